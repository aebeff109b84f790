import { Injectable } from '@nestjs/common';
import { KeyRing } from '../../../platform/crypto/keyring';
import { InvalidInputError } from '../../../platform/http/domain-errors';
import { agentKey, Json } from './statement-keys';

/** The user name of launch-token credentials (no xAPI credential can have it: those ids are generated or validated). */
export const LAUNCH_TOKEN_USER = 'lcds-launch';
const MAX_LIFETIME_SECONDS = 7 * 24 * 3600;

/**
 * What a launch token allows: one learner's statements and state in one registration of one application, that
 * learner's agent profile, and the activity profiles of the content's own activities, until `expiresAt`.
 */
export interface LrsLaunchGrant {
  appId: string;
  registration: string;
  /** agentKey of the learner. */
  agent: string;
  /** The activity ids whose activity profiles (and those of the ids under them) the content may read and write. */
  activities: string[];
  expiresAt: number;
  /** cmi5: the session the token belongs to (player session id and cmi5 session id); its rules apply to the token's statements. */
  session?: { player: string; cmi5: string };
  /** xAPI launches that capture history: the player session whose launch's history log lists the token's statements. */
  log?: string;
}

export interface MintedLrsToken {
  /** The value of an `Authorization` header: `Basic base64(lcds-launch:<token>)` (what cmi5 calls the auth-token, after `Basic `). */
  authorization: string;
  /** The base64 part alone: cmi5's `auth-token`, xAPI launch's `auth` without the scheme. */
  authToken: string;
  expiresAt: Date;
}

/**
 * Short-lived LRS credentials the player hands to xAPI and cmi5 content: signed (KeyRing 'lrs-tokens'), stateless,
 * bound to application, registration and learner. LrsAuthGuard accepts them with limited rights (see there).
 */
@Injectable()
export class LrsLaunchTokens {
  constructor(private readonly keys: KeyRing) {}

  mint(appId: string, grant: { registration: string; actor: Json; expiresInSeconds: number; activities?: string[]; session?: { player: string; cmi5: string }; log?: string }): MintedLrsToken {
    const agent = agentKey(grant.actor);
    if (agent === null) throw new InvalidInputError('The actor of an LRS launch token needs an inverse functional identifier');
    if (!Number.isInteger(grant.expiresInSeconds) || grant.expiresInSeconds < 1 || grant.expiresInSeconds > MAX_LIFETIME_SECONDS) {
      throw new InvalidInputError(`An LRS launch token lives 1 to ${MAX_LIFETIME_SECONDS} seconds`);
    }
    const expiresAt = Date.now() + grant.expiresInSeconds * 1000;
    const body = Buffer.from(JSON.stringify({ a: appId, r: grant.registration.toLowerCase(), k: agent, x: expiresAt, ...(grant.activities?.length ? { c: grant.activities } : {}), ...(grant.session ? { s: [grant.session.player, grant.session.cmi5] } : {}), ...(grant.log ? { l: grant.log } : {}) })).toString('base64url');
    const token = `${body}.${this.keys.sign('lrs-tokens', body)}`;
    const authToken = Buffer.from(`${LAUNCH_TOKEN_USER}:${token}`).toString('base64');
    return { authorization: `Basic ${authToken}`, authToken, expiresAt: new Date(expiresAt) };
  }

  /** The grant of a valid, unexpired token of this application; null otherwise. */
  verify(appId: string, token: string): LrsLaunchGrant | null {
    const dot = token.indexOf('.');
    if (dot <= 0 || token.length > 4096) return null;
    const body = token.slice(0, dot);
    if (!this.keys.verify('lrs-tokens', body, token.slice(dot + 1))) return null;
    let parsed: { a?: unknown; r?: unknown; k?: unknown; x?: unknown; s?: unknown; c?: unknown; l?: unknown };
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof parsed;
    } catch {
      return null;
    }
    if (parsed.a !== appId || typeof parsed.r !== 'string' || typeof parsed.k !== 'string' || typeof parsed.x !== 'number' || parsed.x <= Date.now()) return null;
    const session = Array.isArray(parsed.s) && parsed.s.length === 2 && parsed.s.every((v) => typeof v === 'string') ? { player: parsed.s[0], cmi5: parsed.s[1] } : undefined;
    const activities = Array.isArray(parsed.c) ? parsed.c.filter((v): v is string => typeof v === 'string') : [];
    return { appId, registration: parsed.r, agent: parsed.k, activities, expiresAt: parsed.x, ...(session ? { session } : {}), ...(typeof parsed.l === 'string' ? { log: parsed.l } : {}) };
  }
}
