/** 401 with the `{error}` body of the real service. */
export class UnauthorizedError extends Error {
  constructor(
    message = 'Authorization Required.',
    readonly challenge: string | null = 'Basic realm="LCDS API", Bearer',
  ) {
    super(message);
  }
}
