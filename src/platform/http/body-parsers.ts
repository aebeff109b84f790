import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { json, urlencoded } from 'express';
import { DomainError, InvalidInputError, PayloadTooLargeError, UnsupportedMediaTypeError } from './domain-errors';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

/** Turns body-parser failures into domain errors with messages a client can act on. */
function describe(err: BodyParserError): DomainError | BodyParserError {
  switch (err.type) {
    case 'entity.parse.failed':
      return new InvalidInputError(`Malformed JSON in request body: ${err.message}`);
    case 'entity.too.large':
      return new PayloadTooLargeError(`Request body is larger than the limit of ${err.limit} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaTypeError(err.message);
    case 'request.aborted':
    case 'request.size.invalid':
      return new InvalidInputError(`The request body was cut short: ${err.message}`);
    case 'parameters.too.many':
      return new InvalidInputError('Too many form parameters');
    default:
      return err;
  }
}

function wrap(parser: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => parser(req, res, (err?: unknown) => next(err ? describe(err as BodyParserError) : undefined));
}

/** JSON and form bodies, each capped at `limit` bytes. */
export function bodyParsers(limit: number): RequestHandler[] {
  return [
    wrap(json({ limit, type: ['application/json', 'application/*+json'] })),
    wrap(urlencoded({ limit, extended: false, parameterLimit: 1000 })),
  ];
}
