import { createReadStream, statSync } from 'node:fs';
import { Agent, IncomingHttpHeaders, request } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Plain `node:http` calls with their wall time, for benchmarks that time single requests (fetch adds its own
 * overhead and hides when the body ends) and for uploads that must stream from disk.
 */

export interface TimedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** From just before the request is sent to the last byte of the response body, in ms. */
  ms: number;
}

/** A keep-alive agent with one socket: sequential requests reuse one connection, as a client library would. */
export function keepAliveAgent(maxSockets = 1): Agent {
  return new Agent({ keepAlive: true, maxSockets });
}

/** GET url and read the whole body; times the request (see TimedResponse.ms). */
export function timedGet(url: string, headers: Record<string, string>, agent?: Agent): Promise<TimedResponse> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(url, { method: 'GET', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** GET url, expect 200 and JSON; answers the parsed body and the time. */
export async function getJson<T = any>(url: string, headers: Record<string, string>, agent?: Agent): Promise<{ body: T; ms: number; headers: IncomingHttpHeaders }> {
  const res = await timedGet(url, headers, agent);
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${res.body.slice(0, 500)}`);
  return { body: JSON.parse(res.body) as T, ms: res.ms, headers: res.headers };
}

export interface MultipartUpload {
  url: string;
  headers?: Record<string, string>;
  /** Form field of the file (`file` for the import upload). */
  field: string;
  filePath: string;
  fileName: string;
  contentType?: string;
  /** Plain form fields sent before the file. */
  fields?: Record<string, string>;
}

export interface UploadResult extends TimedResponse {
  /** Bytes of the request body (multipart framing + file). */
  bytesSent: number;
  /** When the last byte of the request body was handed to the socket, ms after the start. */
  sentMs: number;
}

/**
 * POSTs one file as multipart/form-data, streamed from disk with a Content-Length (never held in memory:
 * the file is read in 64 KiB chunks as the socket drains). Answers when the response has been read.
 */
export function uploadMultipart(upload: MultipartUpload): Promise<UploadResult> {
  const boundary = `----lcds-bench-${Date.now().toString(16)}${Math.random().toString(16).slice(2)}`;
  const parts: string[] = [];
  for (const [name, value] of Object.entries(upload.fields ?? {})) {
    parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  }
  parts.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="${upload.field}"; filename="${upload.fileName}"\r\n` +
      `Content-Type: ${upload.contentType ?? 'application/octet-stream'}\r\n\r\n`,
  );
  const head = Buffer.from(parts.join(''));
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const fileBytes = statSync(upload.filePath).size;
  const total = head.length + fileBytes + tail.length;

  return new Promise<UploadResult>((resolve, reject) => {
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
    let sentMs = NaN;
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    const req = request(upload.url, {
      method: 'POST',
      headers: { ...upload.headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(total) },
    });
    req.on('error', fail);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', fail);
      res.on('end', () => {
        if (settled) return;
        settled = true;
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          ms: elapsed(),
          sentMs,
          bytesSent: total,
        });
      });
    });
    const body = Readable.from(
      (async function* () {
        yield head;
        yield* createReadStream(upload.filePath, { highWaterMark: 64 * 1024 });
        yield tail;
      })(),
    );
    // The server may answer (and close) before the body is sent, e.g. with 413: the response then wins.
    pipeline(body, req).then(
      () => {
        sentMs = elapsed();
      },
      (err: unknown) => setTimeout(() => fail(err), 1000),
    );
  });
}
