import type { KeyRing } from '../../platform/crypto/keyring';
import { setBounded } from '../../platform/bounded-map';

/** What a launch link carries (signed with the 'links' key). */
export interface LaunchClaims {
  t: 'launch';
  /** Token id = player_session.id */
  id: string;
  app: string;
  /** '' for a course preview (the session row names the course version). */
  reg: string;
  inst: number;
  /** Expiry, epoch seconds. */
  exp: number;
  redirect: string;
  tracking: boolean;
  startSco?: string;
  culture?: string;
  css?: string;
  /**
   * The link's session row holds nothing these claims lack (no launchAuth, additional values or preview): the
   * player, which signed this, need not read it when it claims the link.
   */
  plain?: true;
}

/** What a player session URL carries. */
export interface SessionClaims {
  t: 'session';
  id: string;
  exp: number;
}

/** What a cmi5 fetch URL carries: the player session and the cmi5 session whose auth token it returns once. */
export interface FetchClaims {
  t: 'cmi5-fetch';
  id: string;
  /** The cmi5 session id. */
  c: string;
  exp: number;
}

export type TokenProblem = 'malformed' | 'expired';

export function encodeToken(keys: KeyRing, claims: LaunchClaims | SessionClaims | FetchClaims): string {
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${body}.${keys.sign('links', body)}`;
}

/** The claims of a token of the given kind, or why it is unacceptable (tampered and malformed look the same). */
export function decodeToken<T extends LaunchClaims | SessionClaims | FetchClaims>(keys: KeyRing, token: string, kind: T['t'], now = Date.now()): T | TokenProblem {
  const dot = token.indexOf('.');
  if (dot <= 0 || token.length > 8192) return 'malformed';
  const body = token.slice(0, dot);
  if (!keys.verify('links', body, token.slice(dot + 1))) return 'malformed';
  let claims: T;
  try {
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T;
  } catch {
    return 'malformed';
  }
  if (!claims || claims.t !== kind || typeof claims.id !== 'string' || typeof claims.exp !== 'number') return 'malformed';
  if (claims.exp * 1000 <= now) return 'expired';
  return claims;
}

/**
 * Session tokens already verified, by token (bounded; the oldest is dropped first). A token's claims never change,
 * so the player's commits, every few seconds a learner, do not recompute its HMAC; its expiry is checked at each use.
 */
export class VerifiedSessionTokens {
  private readonly claims = new Map<string, SessionClaims>();

  constructor(
    private readonly keys: KeyRing,
    private readonly max = 10_000,
  ) {}

  decode(token: string, now = Date.now()): SessionClaims | TokenProblem {
    const known = this.claims.get(token);
    if (known) return known.exp * 1000 <= now ? 'expired' : known;
    const claims = decodeToken<SessionClaims>(this.keys, token, 'session', now);
    if (typeof claims === 'object') {
      setBounded(this.claims, token, claims, this.max);
    }
    return claims;
  }
}
