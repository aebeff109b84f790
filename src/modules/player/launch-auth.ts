import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * launchAuth (LaunchAuthSchema) of a launch link, as the player enforces it:
 * - `cookies`: claiming the link sets an HttpOnly cookie; the session's requests are refused without it, so the
 *   session URL works in the browser that opened the link only.
 * - `vault`: SCORM Cloud's cookieless mode (content served without CloudFront cookies, for frames where third-party
 *   cookies are blocked): no cookie; the options below still apply.
 * Options: `ipAddress` binds to the client address at launch, `fingerprint` to a hash of User-Agent and
 * Accept-Language, `expiry` ends the session that many seconds after the launch, `slidingExpiry` after that many
 * seconds without a request (0 or absent: off).
 */
export interface LaunchAuthPolicy {
  type: 'cookies' | 'vault';
  ipAddress?: true;
  fingerprint?: true;
  expiry?: number;
  slidingExpiry?: number;
}

/** What a claimed session is bound to. */
export interface SessionBinding {
  /** SHA-256 (base64url) of the cookie's value. */
  cookie?: string;
  ip?: string;
  fingerprint?: string;
  /** Epoch ms of the launch. */
  launchedAt: number;
}

/** player_session.launch_auth: the link's policy; the binding once the link is claimed. */
export interface StoredSessionAuth {
  policy: LaunchAuthPolicy;
  binding?: SessionBinding;
}

/** LaunchAuthSchema as the request bodies carry it (class-validator has checked the types). */
export interface LaunchAuthBody {
  type?: string;
  options?: { ipAddress?: boolean; fingerprint?: boolean; expiry?: number; slidingExpiry?: number };
}

/** The policy of a launchAuth body (type case-insensitive, default cookies); null when there is none. */
export function launchAuthPolicyOf(body: LaunchAuthBody | null | undefined): LaunchAuthPolicy | null {
  if (!body) return null;
  const o = body.options ?? {};
  return {
    type: body.type?.toLowerCase() === 'vault' ? 'vault' : 'cookies',
    ...(o.ipAddress ? { ipAddress: true as const } : {}),
    ...(o.fingerprint ? { fingerprint: true as const } : {}),
    ...(o.expiry ? { expiry: o.expiry } : {}),
    ...(o.slidingExpiry ? { slidingExpiry: o.slidingExpiry } : {}),
  };
}

export const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');

/**
 * The browser fingerprint: SHA-256 of the User-Agent and Accept-Language headers, which a browser sends the same on
 * every request of a session (page, fetch, beacon). Not a tracking fingerprint: it tells apart another browser or
 * another language setup replaying the session URL, nothing more, and anyone copying both headers passes it.
 */
export function fingerprintOf(req: IncomingMessage): string {
  return sha256(`${req.headers['user-agent'] ?? ''}\n${req.headers['accept-language'] ?? ''}`);
}

/** The cookie of a session: one per session (a browser may run several), all under /player/. */
export const cookieNameOf = (sessionId: string) => `lcds_la_${sessionId.replace(/-/g, '')}`;

/** The value of a named cookie of a request ('' when absent). */
export function cookieOf(req: IncomingMessage, name: string): string {
  const header = req.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return '';
}

export const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * The Set-Cookie header of a session's cookie. HttpOnly always. Over https: Secure, SameSite=None (the player is often
 * framed by an LMS on another site, where a Lax cookie is not sent) and Partitioned (CHIPS: browsers that block
 * third-party cookies still keep a cookie set in that frame for that top-level site). Over plain http a SameSite=None
 * cookie is dropped by browsers, so Lax: the player then works top-level or framed by a same-site page only.
 */
export function sessionCookie(name: string, value: string, maxAgeSeconds: number, https: boolean): string {
  const attrs = [`${name}=${value}`, 'Path=/player/', `Max-Age=${Math.max(1, Math.floor(maxAgeSeconds))}`, 'HttpOnly'];
  attrs.push(...(https ? ['Secure', 'SameSite=None', 'Partitioned'] : ['SameSite=Lax']));
  return attrs.join('; ');
}
