import { Injectable, OnModuleInit } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type Redis from 'ioredis';
import { RedisService } from '../../../platform/redis/redis.service';

/** RFC 5849 §3.6 percent-encoding: everything but unreserved characters. */
export function oauthEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The parameters of an `Authorization: OAuth …` header (§3.5.1), decoded; null when it is not one. */
export function parseOAuthHeader(header: string): Map<string, string> | null {
  const m = /^OAuth\s+(.*)$/is.exec(header.trim());
  if (!m) return null;
  const params = new Map<string, string>();
  for (const part of m[1].split(',')) {
    const kv = /^\s*([A-Za-z0-9_.~%-]+)\s*=\s*"([^"]*)"\s*$/.exec(part);
    if (!kv) {
      if (part.trim() === '') continue;
      return null;
    }
    try {
      params.set(decodeURIComponent(kv[1]), decodeURIComponent(kv[2]));
    } catch {
      return null; // a broken percent-escape (`%ZZ`): as malformed as a missing quote
    }
  }
  return params;
}

export interface OAuthRequest {
  method: string;
  /** Scheme, host and path as the client addressed them (§3.4.1.2), without query. */
  baseUrls: string[];
  /** Query and form parameters, decoded, repeated names kept. */
  params: Array<[string, string]>;
  oauth: Map<string, string>;
}

/** The signature base string of §3.4.1. */
export function signatureBaseString(method: string, baseUrl: string, params: Array<[string, string]>): string {
  const normalized = params
    .map(([k, v]) => [oauthEncode(k), oauthEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return `${method.toUpperCase()}&${oauthEncode(baseUrl)}&${oauthEncode(normalized)}`;
}

/** §3.4.1.2: lower-case scheme and host, the port only when it is not the scheme's default. */
export function baseStringUri(url: URL): string {
  const port = url.port && !((url.protocol === 'http:' && url.port === '80') || (url.protocol === 'https:' && url.port === '443')) ? `:${url.port}` : '';
  return `${url.protocol.toLowerCase()}//${url.hostname.toLowerCase()}${port}${url.pathname}`;
}

const WINDOW_SECONDS = 300;
const ALGORITHMS: Record<string, string> = { 'HMAC-SHA1': 'sha1', 'HMAC-SHA256': 'sha256' };

/**
 * OAuth 1.0a two-legged verification for xAPI credentials whose `auth` is OAUTH (what the xAPI specification and
 * SCORM Cloud's LRS offer as OAuth): the consumer key is the credential id and the consumer secret its secret; no
 * token. HMAC-SHA1 or HMAC-SHA256 signatures, a timestamp within five minutes, and a nonce never seen before
 * within that window (remembered in Redis when the cluster has it, so a replay to another node is refused too).
 */
@Injectable()
export class LrsOAuthVerifier implements OnModuleInit {
  private redis?: Redis;
  private readonly nonces = new Map<string, number>();

  constructor(private readonly redisService: RedisService) {}

  onModuleInit(): void {
    if (this.redisService.enabled) this.redis = this.redisService.connect('oauth-nonces');
  }

  /** Why the request's signature is not acceptable, or null when it is. */
  async problem(req: OAuthRequest, consumerSecret: string, scope: string): Promise<string | null> {
    const o = req.oauth;
    if (o.has('oauth_token') && o.get('oauth_token') !== '') return 'only two-legged OAuth (no oauth_token) is supported';
    if (o.has('oauth_version') && o.get('oauth_version') !== '1.0') return 'oauth_version must be 1.0';
    const algorithm = ALGORITHMS[o.get('oauth_signature_method') ?? ''];
    if (!algorithm) return 'oauth_signature_method must be HMAC-SHA1 or HMAC-SHA256';
    const timestamp = Number(o.get('oauth_timestamp'));
    if (!/^\d+$/.test(o.get('oauth_timestamp') ?? '') || Math.abs(Date.now() / 1000 - timestamp) > WINDOW_SECONDS) return 'oauth_timestamp is missing or more than five minutes off';
    const nonce = o.get('oauth_nonce') ?? '';
    if (nonce === '' || nonce.length > 255) return 'oauth_nonce is missing';
    const given = Buffer.from(o.get('oauth_signature') ?? '', 'base64');
    const params: Array<[string, string]> = [...req.params, ...[...o.entries()].filter(([k]) => k !== 'oauth_signature' && k !== 'realm')];
    const key = `${oauthEncode(consumerSecret)}&`;
    const valid = req.baseUrls.some((base) => {
      const expected = createHmac(algorithm, key).update(signatureBaseString(req.method, base, params)).digest();
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    if (!valid) return 'the OAuth signature does not match';
    if (!(await this.freshNonce(`${scope}\n${o.get('oauth_consumer_key') ?? ''}\n${timestamp}\n${nonce}`))) return 'oauth_nonce was used before';
    return null;
  }

  private async freshNonce(key: string): Promise<boolean> {
    if (this.redis) {
      const set = await this.redis.set(`${this.redisService.prefix}:oauth-nonce:${key}`, '1', 'PX', WINDOW_SECONDS * 2000, 'NX');
      return set === 'OK';
    }
    const now = Date.now();
    if (this.nonces.size > 100_000) for (const [k, until] of this.nonces) if (until < now) this.nonces.delete(k);
    const until = this.nonces.get(key);
    if (until !== undefined && until > now) return false;
    this.nonces.set(key, now + WINDOW_SECONDS * 2000);
    return true;
  }
}
