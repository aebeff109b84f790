import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** RFC 3986 percent-encoding, as OAuth 1.0a (RFC 5849 3.6) wants it. */
export function oauthEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The base string URI (RFC 5849 3.4.1.2): scheme and host in lower case, no default port, no query or fragment. */
export function baseUri(url: string): string {
  const u = new URL(url);
  const port = u.port && !((u.protocol === 'http:' && u.port === '80') || (u.protocol === 'https:' && u.port === '443')) ? `:${u.port}` : '';
  return `${u.protocol.toLowerCase()}//${u.hostname.toLowerCase()}${port}${u.pathname}`;
}

/** HMAC-SHA1 signature of a request (RFC 5849 3.4.1–3.4.2): every parameter but oauth_signature, sorted. */
export function oauthSignature(method: string, url: string, params: Array<[string, string]>, consumerSecret: string, tokenSecret = ''): string {
  const normalized = params
    .filter(([k]) => k !== 'oauth_signature')
    .map(([k, v]) => [oauthEncode(k), oauthEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const base = `${method.toUpperCase()}&${oauthEncode(baseUri(url))}&${oauthEncode(normalized)}`;
  return createHmac('sha1', `${oauthEncode(consumerSecret)}&${oauthEncode(tokenSecret)}`).update(base).digest('base64');
}

export function signatureMatches(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The Authorization header of a request LCDS signs (LTI Basic Outcomes: a body signed by its oauth_body_hash). */
export function signedAuthorization(url: string, consumerKey: string, consumerSecret: string, body: string, nonce: string, now = Date.now()): string {
  const oauth: Array<[string, string]> = [
    ['oauth_version', '1.0'],
    ['oauth_nonce', nonce],
    ['oauth_timestamp', String(Math.floor(now / 1000))],
    ['oauth_consumer_key', consumerKey],
    ['oauth_body_hash', createHash('sha1').update(body).digest('base64')],
    ['oauth_signature_method', 'HMAC-SHA1'],
  ];
  const query = [...new URL(url).searchParams.entries()];
  const signature = oauthSignature('POST', url, [...oauth, ...query], consumerSecret);
  return `OAuth ${[...oauth, ['oauth_signature', signature]].map(([k, v]) => `${k}="${oauthEncode(v)}"`).join(', ')}`;
}
