import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { json, urlencoded } from 'express';
import { DomainError, InvalidInputError, PayloadTooLargeError, UnsupportedMediaTypeError } from './domain-errors';
import { jsonNestsDeeperThan, TOO_DEEP_MESSAGE } from './json-depth';

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
    case TOO_DEEP:
      return new InvalidInputError(TOO_DEEP_MESSAGE);
    default:
      // body-parser marks what the client got wrong with a 4xx status and no type of ours, e.g. a body that is not
      // what its Content-Encoding says (zlib's "incorrect header check"): a 400 with that reason, not a 500.
      if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
        return new InvalidInputError(`The request body could not be read${err.message ? `: ${err.message}` : ''}`);
      }
      return err;
  }
}

/** body-parser's error type for a body nested too deep (thrown by verify, below). */
const TOO_DEEP = 'entity.too.deep';

/** Refuses a JSON body nested deeper than MAX_JSON_DEPTH before it is parsed (see json-depth). */
function verifyDepth(_req: unknown, _res: unknown, body: Buffer): void {
  if (jsonNestsDeeperThan(body)) throw Object.assign(new Error(TOO_DEEP_MESSAGE), { type: TOO_DEEP });
}

function wrap(parser: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => parser(req, res, (err?: unknown) => next(err ? describe(err as BodyParserError) : undefined));
}

/** Whether the request has a body (body-parser's test): neither a Transfer-Encoding nor a Content-Length means none. */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

/**
 * JSON and form bodies, each capped at `limit` bytes, as one middleware. A request without a body (most GETs and
 * DELETEs) skips both parsers, which would otherwise each look at its state and headers before finding nothing to
 * read; `req.body` is then undefined, as the parsers leave it.
 */
export function bodyParsers(limit: number): RequestHandler {
  const parseJson = wrap(json({ limit, type: ['application/json', 'application/*+json'], verify: verifyDepth }));
  const parseForm = wrap(urlencoded({ limit, extended: false, parameterLimit: 1000 }));
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) {
      if (!Reflect.has(req, 'body')) req.body = undefined;
      next();
      return;
    }
    parseJson(req, res, (err?: unknown) => (err ? next(err) : parseForm(req, res, next)));
  };
}
