import { Inject, Injectable } from '@nestjs/common';
import { setBounded } from '../bounded-map';
import { JwtService } from '@nestjs/jwt';
import { createSecretKey, randomUUID } from 'node:crypto';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { KeyRing } from '../crypto/keyring';
import { UnauthorizedError } from './unauthorized.error';

/**
 * What a report viewer link may show: its permission (NONAV the linked page only, DOWNONLY the linked page and
 * what lies below it, FREENAV everything) and the page it was made for (`/reports/…`).
 */
export interface ViewerClaim {
  nav: 'NONAV' | 'DOWNONLY' | 'FREENAV';
  root: string;
  admin: boolean;
}

export interface TokenClaims {
  appId: string;
  scopes: string[];
  isManagement: boolean;
  tokenId: string;
  expiresAt: Date;
  label?: string;
  viewer?: ViewerClaim;
}

interface JwtPayload {
  sub: string;
  scope: string;
  mgmt?: boolean;
  label?: string;
  jti: string;
  exp: number;
  viewer?: ViewerClaim;
}

/**
 * OAuth2 bearer tokens: HS256 JWTs signed with a key derived from the master key. They carry application,
 * scopes and expiry and nothing else; like the real service's tokens they cannot be revoked, so any node
 * verifies them without a database.
 */
@Injectable()
export class TokenService {
  private readonly jwt: JwtService;
  /** Verifiers for tokens signed before a master key rotation (LCDS_PREVIOUS_MASTER_KEYS). */
  private readonly previous: JwtService[];
  private static readonly ISSUER = 'lcds';
  private static readonly AUDIENCE = 'lcds-api-v2';
  private static readonly VERIFIED_CACHE_SIZE = 10_000;
  /** Tokens verified before, in the order first verified (see verify). */
  private readonly verified = new Map<string, { claims: TokenClaims; until: number }>();

  constructor(keys: KeyRing, @Inject(APP_CONFIG) private readonly config: AppConfig) {
    // A KeyObject, not a Buffer: given a Buffer, jsonwebtoken first tries it as a public key on every call,
    // which throws and costs ~40x the HMAC itself (measured by bench/ping).
    const [current, ...previous] = keys.verificationKeys('token-signing').map(
      (key) => new JwtService({ secret: createSecretKey(key) as unknown as Buffer, signOptions: { algorithm: 'HS256' }, verifyOptions: { algorithms: ['HS256'] } }),
    );
    this.jwt = current;
    this.previous = previous;
  }

  get maxLifetimeSeconds(): number {
    return this.config.auth.maxTokenLifetimeSeconds;
  }

  issue(input: { appId: string; scopes: string[]; isManagement: boolean; expiresAt: Date; label?: string; viewer?: ViewerClaim }): { token: string; claims: TokenClaims } {
    const tokenId = randomUUID();
    const payload: JwtPayload = {
      sub: input.appId,
      scope: input.scopes.join(' '),
      jti: tokenId,
      exp: Math.floor(input.expiresAt.getTime() / 1000),
      ...(input.isManagement ? { mgmt: true } : {}),
      ...(input.label ? { label: input.label } : {}),
      ...(input.viewer ? { viewer: input.viewer } : {}),
    };
    const token = this.jwt.sign(payload, { issuer: TokenService.ISSUER, audience: TokenService.AUDIENCE });
    return { token, claims: { ...input, tokenId } };
  }

  /**
   * The claims of a valid token, or an UnauthorizedError. A token verified once is remembered until it expires
   * (at most VERIFIED_CACHE_SIZE tokens, the oldest forgotten first): a token is immutable and cannot be revoked,
   * and the keys that verify it live as long as the process, so the answer cannot change before its `exp`; the
   * HMAC and jsonwebtoken's decoding were a sixth of an authenticated GET's cost (bench:ping). Whether the
   * application still exists is checked on every request all the same (BearerStrategy).
   */
  verify(token: string): TokenClaims {
    const known = this.verified.get(token);
    if (known !== undefined) {
      if (Date.now() < known.until) return known.claims;
      this.verified.delete(token);
    }
    const claims = this.verifyOnce(token);
    setBounded(this.verified, token, { claims, until: claims.expiresAt.getTime() }, TokenService.VERIFIED_CACHE_SIZE);
    return claims;
  }

  private verifyOnce(token: string): TokenClaims {
    let payload: JwtPayload | undefined;
    let failure: unknown;
    for (const jwt of [this.jwt, ...this.previous]) {
      try {
        payload = jwt.verify<JwtPayload>(token, { issuer: TokenService.ISSUER, audience: TokenService.AUDIENCE });
        break;
      } catch (err) {
        failure ??= err;
        // Only a signature made with another key is worth trying the previous keys for.
        if (!(err instanceof Error && err.message === 'invalid signature')) break;
      }
    }
    if (!payload) {
      const expired = failure instanceof Error && failure.name === 'TokenExpiredError';
      throw new UnauthorizedError(expired ? 'Token expired.' : 'Invalid token.', 'Bearer error="invalid_token"');
    }
    // Frozen: the same claims answer every request that presents the token.
    return Object.freeze({
      appId: payload.sub,
      scopes: Object.freeze(payload.scope ? payload.scope.split(' ') : []) as string[],
      isManagement: payload.mgmt === true,
      tokenId: payload.jti,
      expiresAt: new Date(payload.exp * 1000),
      label: payload.label,
      ...(payload.viewer ? { viewer: Object.freeze(payload.viewer) } : {}),
    });
  }
}
