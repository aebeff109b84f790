import { Inject, Injectable } from '@nestjs/common';
import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, IncomingMessage, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';

/** A request the outbound policy refuses, or a peer that failed; the message is meant for the API client. */
export class OutboundError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface OutboundResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * Every request the service makes to a URL a client gave it (course fetch imports, postbacks, statement pipes)
 * goes through here: http(s) only, timeouts, a size cap, bounded redirects, and an SSRF policy that refuses
 * loopback, private, link-local and other non-public addresses (checked on the address actually connected to,
 * so DNS rebinding does not get around it) unless the operator allows private networks.
 */
@Injectable()
export class OutboundHttp {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Streams a URL's body to a file; returns its size and content type. */
  async download(url: string, path: string, options: { maxBytes: number; timeoutMs?: number; headers?: Record<string, string> }): Promise<{ bytes: number; contentType?: string }> {
    const res = await this.send('GET', url, undefined, options.headers ?? {}, options.timeoutMs ?? 120_000);
    if (res.statusCode! < 200 || res.statusCode! >= 300) {
      res.resume();
      throw new OutboundError(`${url} answered HTTP ${res.statusCode}`, res.statusCode);
    }
    const declared = Number(res.headers['content-length'] ?? NaN);
    if (declared > options.maxBytes) {
      res.destroy();
      throw new OutboundError(`${url} is ${declared} bytes, more than the limit of ${options.maxBytes}`);
    }
    let bytes = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        if (bytes > options.maxBytes) done(new OutboundError(`${url} is more than the limit of ${options.maxBytes} bytes`));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(res, cap, createWriteStream(path));
    } catch (err) {
      await unlink(path).catch(() => undefined);
      throw err instanceof OutboundError ? err : new OutboundError(`downloading ${url} failed: ${(err as Error).message}`);
    }
    return { bytes, contentType: res.headers['content-type'] };
  }

  /** Sends a body and reads the answer (up to 64 KB of it). */
  async post(url: string, body: string, headers: Record<string, string>, timeoutMs = 30_000): Promise<OutboundResponse> {
    return this.read(url, await this.send('POST', url, body, headers, timeoutMs), 65_536, false);
  }

  /** Reads a document (following redirects); an answer larger than maxBytes is an error, not cut short. */
  async get(url: string, headers: Record<string, string>, options: { maxBytes: number; timeoutMs?: number }): Promise<OutboundResponse> {
    return this.read(url, await this.send('GET', url, undefined, headers, options.timeoutMs ?? 30_000), options.maxBytes, true);
  }

  /** Refuses a URL the policy does not allow, before any work is queued for it. */
  checkUrl(url: string): URL {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new OutboundError(`'${url}' is not an absolute URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new OutboundError(`'${url}' must be an http or https URL`);
    if (parsed.username || parsed.password) throw new OutboundError('URLs with embedded credentials are not accepted');
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    if (ipaddr.isValid(host) && !this.addressAllowed(host)) throw this.refused(url);
    return parsed;
  }

  /**
   * Agents for a client that makes its own requests to a URL the policy covers (an S3 connector's endpoint): every
   * connection's address is checked as `send` checks it. Call checkUrl first (a literal address is not looked up).
   */
  guardedAgents(url: string): { httpAgent: HttpAgent; httpsAgent: HttpsAgent } {
    const lookup = this.guardedLookup(url);
    return { httpAgent: new HttpAgent({ lookup }), httpsAgent: new HttpsAgent({ lookup }) };
  }

  private async read(url: string, res: IncomingMessage, maxBytes: number, strict: boolean): Promise<OutboundResponse> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      if (bytes + chunk.length > maxBytes) {
        if (strict) {
          res.destroy();
          throw new OutboundError(`${url} answered with more than the limit of ${maxBytes} bytes`);
        }
        chunks.push(chunk.subarray(0, maxBytes - bytes));
        bytes = maxBytes;
        continue;
      }
      chunks.push(chunk);
      bytes += chunk.length;
    }
    return { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') };
  }

  private async send(method: string, url: string, body: string | undefined, headers: Record<string, string>, timeoutMs: number, redirects = 0): Promise<IncomingMessage> {
    const target = this.checkUrl(url);
    const options: RequestOptions = {
      method,
      headers: { 'user-agent': `LCDS/${this.config.version}`, ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
      lookup: this.guardedLookup(url),
      timeout: timeoutMs,
    };
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, options, resolve);
      req.on('timeout', () => req.destroy(new OutboundError(`${url} did not answer within ${timeoutMs} ms`)));
      req.on('error', (err) => reject(err instanceof OutboundError ? err : new OutboundError(`${url}: ${err.message}`)));
      req.end(body);
    });
    const location = res.headers.location;
    if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location && method === 'GET') {
      res.resume();
      if (redirects >= 5) throw new OutboundError(`${url}: too many redirects`);
      return this.send(method, new URL(location, target).toString(), body, headers, timeoutMs, redirects + 1);
    }
    return res;
  }

  private guardedLookup(url: string): LookupFunction {
    return (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
        if (err) return callback(err, '', 0);
        const list = addresses;
        const denied = list.find((a) => !this.addressAllowed(a.address));
        if (denied) return callback(this.refused(url), '', 0);
        if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
        return callback(null, list[0].address, list[0].family);
      });
    };
  }

  private addressAllowed(address: string): boolean {
    if (this.config.outbound.allowPrivateNetworks) return true;
    let parsed = ipaddr.parse(address);
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
    return parsed.range() === 'unicast';
  }

  private refused(url: string): OutboundError {
    return new OutboundError(
      `${url} points at a private or local network address; LCDS does not call those unless LCDS_OUTBOUND_ALLOW_PRIVATE=true is set by the operator`,
    );
  }
}
