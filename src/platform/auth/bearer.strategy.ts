import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { CredentialVerifier } from './credential-verifier';
import { Principal } from './principal';
import { TokenService } from './token.service';
import { UnauthorizedError } from './unauthorized.error';

function hasAccessToken(source: unknown): boolean {
  return typeof source === 'object' && source !== null && Boolean((source as { access_token?: unknown }).access_token);
}

/**
 * OAuth2 bearer tokens (RFC 6750) in the Authorization header, as a plain call from ApiAuthGuard (see BasicStrategy).
 * As before with passport-http-bearer: a header that is not `Bearer <token>`, or a token also given as
 * `access_token` in the body or query, is refused with the default 401.
 */
@Injectable()
export class BearerStrategy {
  constructor(
    private readonly tokens: TokenService,
    private readonly verifier: CredentialVerifier,
  ) {}

  async authenticate(req: Pick<Request, 'headers' | 'body' | 'query' | 'url'>): Promise<Principal> {
    const parts = (req.headers.authorization ?? '').split(' ');
    if (parts.length !== 2 || !/^Bearer$/i.test(parts[0]) || !parts[1]) throw new UnauthorizedError();
    // Express parses the query string on every read of `req.query`: only when there is one.
    if (hasAccessToken(req.body) || (req.url.includes('?') && hasAccessToken(req.query))) throw new UnauthorizedError();
    const claims = this.tokens.verify(parts[1]);
    const app = await this.verifier.applicationStatus(claims.appId);
    if (!app) throw new UnauthorizedError('Invalid token.', 'Bearer error="invalid_token"');
    return { appId: claims.appId, isManagement: claims.isManagement && app.isManagement, via: 'bearer', credentialId: claims.tokenId, scopes: claims.scopes, ...(claims.viewer ? { viewer: claims.viewer } : {}) };
  }
}
