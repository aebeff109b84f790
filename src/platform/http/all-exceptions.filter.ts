import { rateLimitHeaders, TooManyRequestsError } from './rate-limits';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { DomainError } from './domain-errors';
import { UnauthorizedError } from '../auth/unauthorized.error';
import { InvalidContentKeyError } from '../storage/content-store';

/**
 * One place that decides what an error looks like on the wire: MessageSchema `{message}` for every 4xx/5xx,
 * `{error}` for 401 as the real service answers. A 500 never shows a stack trace; it carries a reference id
 * that is logged with the stack.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request>();
    if (res.headersSent) {
      res.end();
      return;
    }
    const { status, body, headers } = describeHttpError(exception, req.method, req.path, this.logger);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.status(status).json(body);
  }
}

/**
 * The status, body and headers of an error (the filter's answer; also used by the lean commit path, which is outside
 * Nest's pipeline). An unexpected error is logged with a reference id that the 500 carries.
 */
export function describeHttpError(exception: unknown, method: string, path: string, logger: Logger): { status: number; body: object; headers: Record<string, string> } {
  if (exception instanceof UnauthorizedError) {
    return { status: 401, body: { error: exception.message }, headers: exception.challenge ? { 'WWW-Authenticate': exception.challenge } : {} };
  }
  if (exception instanceof TooManyRequestsError) {
    return { status: 429, body: { message: exception.message }, headers: { 'Retry-After': String(exception.state.resetSeconds), ...rateLimitHeaders(exception.state) } };
  }
  if (exception instanceof DomainError) {
    return { status: exception.status, body: { message: exception.message }, headers: {} };
  }
  if (exception instanceof InvalidContentKeyError) {
    // A path from the request that no content store can hold (a name over 255 bytes, a key over 1,024): the
    // client's to change. The key itself is not shown: it holds the store's internal prefix.
    return { status: 400, body: { message: `The file path cannot be used: ${exception.reason}` }, headers: {} };
  }
  if (exception instanceof HttpException) {
    const status: number = exception.getStatus();
    const response = exception.getResponse();
    let message = exception.message;
    if (typeof response === 'object' && response !== null && 'message' in response) {
      const m: unknown = response.message;
      message = Array.isArray(m) ? m.join('; ') : String(m);
    }
    if (status === 404 && message.startsWith('Cannot ')) {
      message = `No operation ${method} ${path}`;
    }
    if (status === 401) return { status, body: { error: message }, headers: {} };
    return { status, body: { message }, headers: {} };
  }
  const reference = randomUUID();
  logger.error({ msg: 'unhandled error', reference, err: exception instanceof Error ? { message: exception.message, stack: exception.stack } : exception });
  return { status: 500, body: { message: `Internal error; reference ${reference}` }, headers: {} };
}
