import { Inject, Injectable } from '@nestjs/common';
import { setBounded } from '../../platform/bounded-map';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Repository } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { clientAddressOf } from '../../platform/http/client-address';
import { cookieNameOf, cookieOf, fingerprintOf, sameHash, sessionCookie, sha256, type SessionBinding, type StoredSessionAuth } from './launch-auth';
import { PlayerError } from './player-errors';
import { PlayerSessionEntity } from './player-session.entity';
import { PlayerSessions } from './player-sessions';

/** Sessions whose launchAuth (or its absence) is known, by session id (bounded; the oldest is dropped first). */
const KNOWN_MAX = 10_000;
/** A sliding session's last use is written at most this often (and at most every quarter of its slidingExpiry). */
const SEEN_WRITE_MS = 5_000;

const otherBrowser = () =>
  new PlayerError(403, 'This session belongs to another browser', 'This course session was opened in another browser, or this browser did not keep the cookie that ties the session to it. Launch the course again from where you found it.');

/**
 * Enforces the launchAuth of launch links (launch-auth.ts): binds a session to the request that claims its link, and
 * checks every later request of the session (the player page, its JSON requests, content, commits). A session
 * without launchAuth costs one row read per node, once; after that nothing.
 */
@Injectable()
export class PlayerLaunchAuth {
  private readonly known = new Map<string, StoredSessionAuth | null>();
  private readonly https: boolean;

  constructor(
    @InjectRepository(PlayerSessionEntity) private readonly rows: Repository<PlayerSessionEntity>,
    private readonly sessions: PlayerSessions,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.https = config.publicUrl.startsWith('https:');
  }

  /** At the claim of a link: binds its session to this request; the Set-Cookie value to send, if any. */
  async bind(sessionToken: string, req: IncomingMessage): Promise<string | null> {
    const claims = this.sessions.tokens.decode(sessionToken);
    if (typeof claims !== 'object') return null;
    const row = await this.rows.findOne({ where: { id: claims.id }, select: { id: true, launchAuth: true, expiresAt: true } });
    const policy = row?.launchAuth?.policy;
    if (!row || !policy) return null;
    const now = Date.now();
    const secret = policy.type === 'cookies' ? randomBytes(32).toString('base64url') : null;
    const binding: SessionBinding = {
      launchedAt: now,
      ...(secret ? { cookie: sha256(secret) } : {}),
      ...(policy.ipAddress ? { ip: clientAddressOf(req, this.config.http.trustProxy) } : {}),
      ...(policy.fingerprint ? { fingerprint: fingerprintOf(req) } : {}),
    };
    const expiresAt = new Date(Math.min(row.expiresAt.getTime(), policy.expiry ? now + policy.expiry * 1000 : Infinity));
    await this.rows.update({ id: row.id }, { launchAuth: { policy, binding }, expiresAt, ...(policy.slidingExpiry ? { lastSeenAt: new Date(now) } : {}) });
    return secret ? sessionCookie(cookieNameOf(row.id), secret, (expiresAt.getTime() - now) / 1000, this.https) : null;
  }

  /**
   * Checks a request of the session a token names: null when nothing is to check (no launchAuth, or a token the
   * handler refuses itself), else a promise that rejects with the PlayerError to answer.
   */
  check(req: IncomingMessage, token: string): Promise<void> | null {
    const claims = this.sessions.tokens.decode(token);
    if (typeof claims !== 'object') return null;
    const known = this.known.get(claims.id);
    if (known === null) return null;
    return this.checkSession(req, claims.id, known);
  }

  private async checkSession(req: IncomingMessage, id: string, known: StoredSessionAuth | undefined): Promise<void> {
    let auth = known;
    let lastSeenAt: Date | null = null;
    if (!auth || auth.policy.slidingExpiry) {
      const row = await this.rows.findOne({ where: { id }, select: { id: true, launchAuth: true, lastSeenAt: true } });
      if (!row) return; // the handler answers 410
      if (!row.launchAuth) {
        this.remember(id, null);
        return;
      }
      // Not bound (yet): refused, and not remembered, so the next request reads the row again.
      if (!row.launchAuth.binding) throw otherBrowser();
      auth = row.launchAuth;
      lastSeenAt = row.lastSeenAt;
      this.remember(id, auth);
    }
    const { policy, binding } = auth;
    if (!binding) throw otherBrowser();
    const now = Date.now();
    if (binding.cookie && !sameHash(sha256(cookieOf(req, cookieNameOf(id))), binding.cookie)) throw otherBrowser();
    if (binding.fingerprint && !sameHash(fingerprintOf(req), binding.fingerprint)) throw otherBrowser();
    if (binding.ip !== undefined && clientAddressOf(req, this.config.http.trustProxy) !== binding.ip) {
      throw new PlayerError(403, 'This session belongs to another network address', 'This course session was opened from another network address. Launch the course again from where you found it.');
    }
    if (policy.expiry && now >= binding.launchedAt + policy.expiry * 1000) {
      throw new PlayerError(410, 'This session has ended', 'The time allowed for this course session has run out. Launch the course again.');
    }
    if (policy.slidingExpiry) {
      const sliding = policy.slidingExpiry * 1000;
      const seen = (lastSeenAt ?? new Date(binding.launchedAt)).getTime();
      if (now >= seen + sliding) throw new PlayerError(410, 'This session has ended', 'This course session ended after a time without activity. Launch the course again.');
      if (now - seen >= Math.min(SEEN_WRITE_MS, sliding / 4)) await this.rows.update({ id }, { lastSeenAt: new Date(now) });
    }
  }

  private remember(id: string, auth: StoredSessionAuth | null): void {
    setBounded(this.known, id, auth, KNOWN_MAX);
  }
}
