/**
 * Errors services throw; the global filter turns each into its status and a MessageSchema body.
 * Services never build HTTP responses themselves.
 */
export abstract class DomainError extends Error {
  abstract readonly status: number;
}

/** 404. Also what another application's identifier looks like: the message never says it exists. */
export class NotFoundError extends DomainError {
  readonly status = 404;
  constructor(what: string, id: string | number) {
    super(`${what} '${id}' not found`);
  }
}

export class InvalidInputError extends DomainError {
  readonly status = 400;
}

export class ConflictError extends DomainError {
  readonly status = 409;
}

export class ForbiddenError extends DomainError {
  readonly status = 403;
}

export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
}

export class UnsupportedMediaTypeError extends DomainError {
  readonly status = 415;
}
