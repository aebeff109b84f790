import type { Request } from 'express';
import { InvalidInputError, PayloadTooLargeError } from '../../../platform/http/domain-errors';
import { parseIsoDate } from '../../../platform/http/query-transforms';
import { ifiOf, Json } from './statement-keys';
import { isIri, isUuid, StatementRuleError, validateAgentParameter } from './statement-rules';

/** The body of an alternate-syntax request (form field `content`), put there by the CORS middleware. */
export interface LrsRequest extends Request {
  lrsContent?: Buffer;
}

export const JSON_CONTENT = /^application\/(.+\+)?json\b/i;

export function contentType(req: Request): string {
  return String(req.headers['content-type'] ?? 'application/octet-stream').trim();
}

/**
 * The request body as bytes. JSON bodies were parsed by the global body parser (re-serialised here); anything else
 * (binary documents, multipart/mixed statements) is still unread on the request stream.
 */
export async function rawBody(req: LrsRequest, limit: number): Promise<Buffer> {
  if (req.lrsContent !== undefined) return req.lrsContent;
  if (JSON_CONTENT.test(contentType(req))) return req.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(req.body));
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new PayloadTooLargeError(`Request body is larger than the limit of ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The query string, each parameter once, only the ones a resource knows. */
export function queryParams(req: Request, allowed: readonly string[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(req.query)) {
    if (!allowed.includes(key)) throw new InvalidInputError(`Unknown parameter ${key}`);
    if (typeof value !== 'string') throw new InvalidInputError(`${key} may be sent once`);
    out[key] = value;
  }
  return out;
}

export function required(params: Record<string, string | undefined>, name: string): string {
  const value = params[name];
  if (value === undefined || value === '') throw new InvalidInputError(`The ${name} parameter is required`);
  return value;
}

/** An `agent` parameter: a JSON-encoded Agent (or identified Group); returns its parsed form. */
export function agentParam(value: string): Json {
  let agent: unknown;
  try {
    agent = JSON.parse(value);
  } catch {
    throw new InvalidInputError('agent must be a JSON-encoded Agent or Group');
  }
  validateAgentParameter('agent', agent);
  if (ifiOf(agent) === null) throw new StatementRuleError('agent', 'must have an inverse functional identifier (mbox, mbox_sha1sum, openid or account)');
  return agent;
}

export function iriParam(name: string, value: string): string {
  if (!isIri(value)) throw new InvalidInputError(`${name} must be an IRI`);
  return value;
}

export function uuidParam(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && !isUuid(value)) throw new InvalidInputError(`${name} must be a UUID`);
  return value?.toLowerCase();
}

export function dateParam(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const parsed = parseIsoDate(value);
  if (!(parsed instanceof Date)) throw new InvalidInputError(`${name} must be an ISO 8601 timestamp`);
  return parsed;
}

export function boolParam(name: string, value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new InvalidInputError(`${name} must be true or false`);
}
