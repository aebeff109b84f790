import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy as PassportBearer } from 'passport-http-bearer';
import { CredentialVerifier } from './credential-verifier';
import { Principal } from './principal';
import { TokenService } from './token.service';
import { UnauthorizedError } from './unauthorized.error';

@Injectable()
export class BearerStrategy extends PassportStrategy(PassportBearer, 'lcds-bearer') {
  constructor(
    private readonly tokens: TokenService,
    private readonly verifier: CredentialVerifier,
  ) {
    super();
  }

  async validate(token: string): Promise<Principal> {
    const claims = this.tokens.verify(token);
    const app = await this.verifier.applicationStatus(claims.appId);
    if (!app) throw new UnauthorizedError('Invalid token.', 'Bearer error="invalid_token"');
    return { appId: claims.appId, isManagement: claims.isManagement && app.isManagement, via: 'bearer', credentialId: claims.tokenId, scopes: claims.scopes, ...(claims.viewer ? { viewer: claims.viewer } : {}) };
  }
}
