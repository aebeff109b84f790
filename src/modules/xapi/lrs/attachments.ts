import { createHash, randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { InvalidInputError } from '../../../platform/http/domain-errors';
import type { Json } from './statement-keys';

/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call -- statements are free-form JSON; statement-rules.ts checks their shape */

export const SIGNATURE_USAGE = 'http://adlnet.gov/expapi/attachments/signature';
const SIGNATURE_ALGORITHMS = ['RS256', 'RS384', 'RS512'];
const SHA2_HEX_LENGTHS: Record<number, string> = { 56: 'sha224', 64: 'sha256', 96: 'sha384', 128: 'sha512' };

export interface MimePart {
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: Buffer;
}

/** An attachment's content, as received in a multipart/mixed part and as stored. */
export interface AttachmentContent {
  sha2: string;
  contentType: string;
  content: Buffer;
}

function boundaryOf(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw new InvalidInputError('multipart/mixed needs a boundary parameter in its Content-Type');
  return boundary;
}

/** RFC 2046 multipart body into its parts (binary safe). */
export function parseMultipart(body: Buffer, contentType: string): MimePart[] {
  const delimiter = Buffer.from(`--${boundaryOf(contentType)}`);
  const next = Buffer.concat([Buffer.from('\r\n'), delimiter]);
  let pos = body.subarray(0, delimiter.length).equals(delimiter) ? 0 : body.indexOf(next);
  if (pos < 0) throw new InvalidInputError('The multipart/mixed body does not contain its boundary');
  pos += pos === 0 ? delimiter.length : next.length;
  const parts: MimePart[] = [];
  for (;;) {
    if (body.subarray(pos, pos + 2).toString() === '--') return parts;
    const lineEnd = body.indexOf('\r\n', pos);
    if (lineEnd < 0) throw new InvalidInputError('The multipart/mixed body ends without its closing boundary');
    const start = lineEnd + 2;
    const end = body.indexOf(next, start);
    if (end < 0) throw new InvalidInputError('The multipart/mixed body ends without its closing boundary');
    parts.push(parsePart(body.subarray(start, end)));
    pos = end + next.length;
  }
}

function parsePart(raw: Buffer): MimePart {
  const split = raw.subarray(0, 2).toString() === '\r\n' ? 0 : raw.indexOf('\r\n\r\n');
  if (split < 0) throw new InvalidInputError('A multipart/mixed part has no blank line after its headers');
  const headers: Record<string, string> = {};
  for (const line of raw.subarray(0, split).toString('utf8').split('\r\n')) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new InvalidInputError(`A multipart/mixed part has a malformed header line: ${line.slice(0, 80)}`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: raw.subarray(split === 0 ? 2 : split + 4) };
}

/** A multipart/mixed response: the JSON first, then one part per attachment. */
export function buildMultipart(json: unknown, attachments: AttachmentContent[]): { contentType: string; body: Buffer } {
  const boundary = `lcds-${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [Buffer.from(`--${boundary}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(json)}`)];
  for (const a of attachments) {
    chunks.push(Buffer.from(`\r\n--${boundary}\r\nContent-Type: ${a.contentType}\r\nContent-Transfer-Encoding: binary\r\nX-Experience-API-Hash: ${a.sha2}\r\n\r\n`), a.content);
  }
  chunks.push(Buffer.from(`\r\n--${boundary}--\r\n`));
  return { contentType: `multipart/mixed; boundary=${boundary}`, body: Buffer.concat(chunks) };
}

/** The attachments of statements (their own and their sub-statements'). */
export function attachmentsOf(statements: Json[]): Json[] {
  const list = (value: Json): Json[] => (Array.isArray(value) ? value.filter((a: Json) => a !== null && typeof a === 'object') : []);
  return statements.flatMap((s) => (s !== null && typeof s === 'object' ? [...list(s.attachments), ...list(s.object?.attachments)] : []));
}

/**
 * Matches the parts after the statements to the statements' attachments (Communication 1.5.2): every attachment
 * without a fileUrl needs a part with its SHA-2, every part must be the content of one of them, and each part's
 * hash is checked against its bytes. Signature attachments are checked as JWS (Data 2.6).
 */
export function matchAttachments(statements: Json[], parts: MimePart[]): AttachmentContent[] {
  const declared = attachmentsOf(statements);
  const received = new Map<string, AttachmentContent>();
  parts.forEach((part, i) => {
    const where = `multipart/mixed part ${i + 2}`;
    const hash = part.headers['x-experience-api-hash'];
    if (!hash) throw new InvalidInputError(`${where} has no X-Experience-API-Hash header`);
    const encoding = part.headers['content-transfer-encoding'];
    if (encoding === undefined || encoding.toLowerCase() !== 'binary') throw new InvalidInputError(`${where} must have Content-Transfer-Encoding: binary`);
    const sha2 = hash.toLowerCase();
    if (!declared.some((a) => typeof a.sha2 === 'string' && a.sha2.toLowerCase() === sha2)) {
      throw new InvalidInputError(`${where}: its X-Experience-API-Hash ${hash} is not the sha2 of any attachment of the statements`);
    }
    const algorithm = SHA2_HEX_LENGTHS[sha2.length];
    if (algorithm === undefined || createHash(algorithm).update(part.body).digest('hex') !== sha2) {
      throw new InvalidInputError(`${where}: its content does not have the SHA-2 hash ${hash}`);
    }
    received.set(sha2, { sha2, contentType: part.headers['content-type'] ?? 'application/octet-stream', content: part.body });
  });
  for (const a of declared) {
    if (a.fileUrl === undefined && !received.has(String(a.sha2).toLowerCase())) {
      throw new InvalidInputError(`The attachment with sha2 ${String(a.sha2)} has no fileUrl and no multipart/mixed part with its content`);
    }
  }
  for (const s of statements) for (const a of attachmentsOf([s])) if (a.usageType === SIGNATURE_USAGE) verifySignature(s, a, received.get(String(a.sha2).toLowerCase()));
  return [...received.values()];
}

/**
 * A signed statement (Data 2.6): the signature attachment is application/octet-stream and a compact JWS using
 * RS256/384/512 whose payload is the statement as it was before the signature was attached.
 */
function verifySignature(statement: Json, attachment: Json, part: AttachmentContent | undefined): void {
  const fail = (why: string) => new InvalidInputError(`Invalid statement signature: ${why}`);
  if (String(attachment.contentType).toLowerCase() !== 'application/octet-stream') throw fail('the signature attachment must have contentType application/octet-stream');
  if (part === undefined) throw fail('the signature must be sent as a multipart/mixed part');
  const pieces = part.content.toString('utf8').trim().split('.');
  if (pieces.length !== 3) throw fail('the signature is not a JWS in compact serialization');
  let header: Json;
  let payload: Json;
  try {
    header = JSON.parse(Buffer.from(pieces[0], 'base64url').toString('utf8'));
    payload = JSON.parse(Buffer.from(pieces[1], 'base64url').toString('utf8'));
  } catch {
    throw fail('the JWS header or payload is not valid JSON');
  }
  if (!SIGNATURE_ALGORITHMS.includes(header?.alg)) throw fail('the JWS must use RS256, RS384 or RS512');
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw fail('the JWS payload is not a statement');
  if (!isDeepStrictEqual(signedView(payload, payload), signedView(statement, payload))) throw fail('the JWS payload differs from the statement');
}

/** What a signature covers: the statement without the LRS-set properties and without the signature attachment. */
function signedView(statement: Json, payload: Json): Json {
  const copy: Json = structuredClone(statement);
  for (const key of ['authority', 'stored', 'version']) delete copy[key];
  if (payload.id === undefined) delete copy.id;
  if (payload.timestamp === undefined) delete copy.timestamp;
  if (copy.result?.duration !== undefined) copy.result.duration = truncateDuration(copy.result.duration);
  if (Array.isArray(copy.attachments)) {
    copy.attachments = copy.attachments.filter((a: Json) => a.usageType !== SIGNATURE_USAGE);
    if (copy.attachments.length === 0) delete copy.attachments;
  }
  return normalise(copy);
}

function normalise(value: Json): Json {
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((k) => [k, normalise(value[k])]));
  if (typeof value === 'string' && /^[0-9a-f-]{36}$/i.test(value)) return value.toLowerCase();
  return value;
}

/** Durations compare to 0.01 s (Data 4.6): seconds beyond hundredths are cut off. */
function truncateDuration(duration: Json): Json {
  if (typeof duration !== 'string') return duration;
  return duration.replace(/(\d+)\.(\d+)S$/, (_m, whole: string, fraction: string) => `${whole}.${fraction.slice(0, 2).padEnd(2, '0')}S`).replace(/\.00S$/, 'S');
}
