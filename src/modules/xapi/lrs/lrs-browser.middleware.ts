import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { InvalidInputError } from '../../../platform/http/domain-errors';
import { assertJsonDepth } from '../../../platform/http/json-depth';
import { JSON_CONTENT, LrsRequest } from './lrs-request';

const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Experience-API-Version, If-Match, If-None-Match, X-Requested-With, Accept, Accept-Language';
const EXPOSED_HEADERS = 'ETag, Last-Modified, Content-Type, Location, X-Experience-API-Version, X-Experience-API-Consistent-Through, WWW-Authenticate';
/** The form fields of the alternate request syntax that stand for headers (Communication 1.3). */
const HEADER_FIELDS = ['authorization', 'x-experience-api-version', 'content-type', 'content-length', 'if-match', 'if-none-match'];
const METHODS = ['GET', 'PUT', 'POST', 'DELETE'];

/**
 * What browser content needs from the LRS: CORS (any origin may call it, as every call carries its own credentials
 * in Authorization rather than cookies), and the alternate request syntax of xAPI 1.0.x (Communication 1.3): a POST
 * with `?method=` and a form body carrying headers, `content` and the parameters, turned here into the request it
 * stands for before routing and authentication.
 */
@Injectable()
export class LrsBrowserMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    const origin = req.headers.origin;
    res.setHeader('Access-Control-Allow-Origin', origin ?? '*');
    if (origin) {
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Vary', 'Origin');
    }
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, POST, PUT, DELETE, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '86400');
      res.status(204).end();
      return;
    }
    if (req.method === 'POST' && typeof req.url === 'string' && /[?&]method=/.test(req.url)) alternateSyntax(req as LrsRequest);
    // Statement GETs carry it whatever their status (Communication 2.1.3): every write is committed before it is
    // answered, so everything stored until now is visible to this request.
    if ((req.method === 'GET' || req.method === 'HEAD') && /\/statements\/?$/.test(req.originalUrl.split('?')[0])) res.setHeader('X-Experience-API-Consistent-Through', new Date().toISOString());
    next();
  }
}

function alternateSyntax(req: LrsRequest): void {
  const url = new URL(req.url, 'http://lrs');
  const method = (url.searchParams.get('method') ?? '').toUpperCase();
  if (!METHODS.includes(method)) throw new InvalidInputError('method must be GET, PUT, POST or DELETE');
  const extra = [...url.searchParams.keys()].filter((k) => k !== 'method');
  if (extra.length > 0) throw new InvalidInputError(`With the alternate request syntax only method may be in the query string; send ${extra.join(', ')} as form fields`);
  if (!/^application\/x-www-form-urlencoded\b/i.test(String(req.headers['content-type'] ?? ''))) {
    throw new InvalidInputError('The alternate request syntax needs a body of Content-Type application/x-www-form-urlencoded');
  }
  const form = (req.body ?? {}) as Record<string, unknown>;
  const params = new URLSearchParams();
  let content: string | undefined;
  delete req.headers['content-type'];
  for (const [name, value] of Object.entries(form)) {
    if (typeof value !== 'string') throw new InvalidInputError(`The form field ${name} may be sent once`);
    const lower = name.toLowerCase();
    if (lower === 'content') content = value;
    else if (HEADER_FIELDS.includes(lower)) req.headers[lower] = value;
    else params.append(name, value);
  }
  if (String(req.headers['x-experience-api-version'] ?? '').startsWith('2.')) throw new InvalidInputError('xAPI 2.0 has no alternate request syntax; send the request itself');
  if ((method === 'PUT' || method === 'POST') && content === undefined) throw new InvalidInputError(`An alternate-syntax ${method} needs its body in the form field content`);
  req.headers['content-type'] ??= 'application/json';
  if (content !== undefined) {
    req.lrsContent = Buffer.from(content, 'utf8');
    if (JSON_CONTENT.test(req.headers['content-type'])) {
      assertJsonDepth(req.lrsContent);
      try {
        req.body = JSON.parse(content) as unknown;
      } catch {
        throw new InvalidInputError('The form field content is not valid JSON');
      }
    } else {
      req.body = undefined;
    }
  } else {
    req.body = undefined;
  }
  const query = params.toString();
  req.method = method;
  req.url = `${url.pathname}${query ? `?${query}` : ''}`;
}
