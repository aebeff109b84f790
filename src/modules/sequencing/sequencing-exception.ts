/** Sequencing exceptions: the SN book's exception codes (e.g. "SB.2.9-4") with what they mean. */
export class SequencingException extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    // An outcome of the rules, caught by the engine (the valid requests try each request): no stack trace to capture.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'SequencingException';
  }
}

export const fail = (code: string, message: string): never => {
  throw new SequencingException(code, message);
};
