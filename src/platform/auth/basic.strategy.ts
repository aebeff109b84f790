import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-strategy';
import { CredentialVerifier } from './credential-verifier';
import { Principal } from './principal';
import { UnauthorizedError } from './unauthorized.error';

/**
 * HTTP basic (RFC 7617) as a passport strategy. passport-http is unmaintained and decodes with the deprecated
 * `new Buffer()`, whose deprecation check walks the stack on every request; the parsing is a few lines.
 */
class HttpBasicStrategy extends Strategy {
  /** Nest's PassportStrategy passes `validate` as a node-style callback `(user, password, done)`. */
  constructor(private readonly verify: (user: string, password: string, done: (err: unknown, principal?: Principal | null) => void) => void) {
    super();
  }

  override authenticate(req: Request): void {
    const header = req.headers.authorization;
    const match = header ? /^Basic +([A-Za-z0-9+/=._~-]+) *$/i.exec(header) : null;
    if (!match) return this.fail('Basic realm="LCDS API"', 401);
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return this.fail('Basic realm="LCDS API"', 401);
    this.verify(decoded.slice(0, colon), decoded.slice(colon + 1), (err, principal) => {
      if (err) return this.error(err instanceof Error ? err : new Error('authentication failed'));
      if (!principal) return this.fail('Basic realm="LCDS API"', 401);
      this.success(principal);
    });
  }
}

/** User name = application id, password = one of its secret keys. */
@Injectable()
export class BasicStrategy extends PassportStrategy(HttpBasicStrategy, 'lcds-basic') {
  constructor(private readonly verifier: CredentialVerifier) {
    super();
  }

  async validate(appId: string, secret: string): Promise<Principal> {
    const match = await this.verifier.verifySecret(appId, secret);
    if (!match) throw new UnauthorizedError('Invalid credentials.');
    return { appId, isManagement: match.isManagement, via: 'basic', credentialId: match.credentialId };
  }
}
