import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { BasicStrategy as PassportBasic } from 'passport-http';
import { CredentialVerifier } from './credential-verifier';
import { Principal } from './principal';
import { UnauthorizedError } from './unauthorized.error';

/** HTTP basic: user name = application id, password = one of its secret keys. */
@Injectable()
export class BasicStrategy extends PassportStrategy(PassportBasic, 'lcds-basic') {
  constructor(private readonly verifier: CredentialVerifier) {
    super({ passReqToCallback: false });
  }

  async validate(appId: string, secret: string): Promise<Principal> {
    const match = await this.verifier.verifySecret(appId, secret);
    if (!match) throw new UnauthorizedError('Invalid credentials.');
    return { appId, isManagement: match.isManagement, via: 'basic', credentialId: match.credentialId };
  }
}
