/** Sequencing exceptions: the SN book's exception codes (e.g. "SB.2.9-4") with what they mean. */
export class SequencingException extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SequencingException';
  }
}

export const fail = (code: string, message: string): never => {
  throw new SequencingException(code, message);
};
