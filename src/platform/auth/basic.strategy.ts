import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { CredentialVerifier } from './credential-verifier';
import { Principal } from './principal';
import { UnauthorizedError } from './unauthorized.error';

const BASIC = /^Basic +([A-Za-z0-9+/=._~-]+) *$/i;

/**
 * HTTP basic (RFC 7617): user name = application id, password = one of its secret keys. A plain call from
 * ApiAuthGuard, not a passport strategy: passport's `authenticate` wrapper, made anew per request with its
 * promise and callbacks, cost more than the check itself (bench:ping).
 */
@Injectable()
export class BasicStrategy {
  constructor(private readonly verifier: CredentialVerifier) {}

  /** The caller, or an UnauthorizedError (a malformed header: the default message; wrong credentials: `Invalid credentials.`). */
  async authenticate(headers: IncomingHttpHeaders): Promise<Principal> {
    const header = headers.authorization;
    const match = header ? BASIC.exec(header) : null;
    if (!match) throw new UnauthorizedError();
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new UnauthorizedError();
    const appId = decoded.slice(0, colon);
    const found = await this.verifier.verifySecret(appId, decoded.slice(colon + 1));
    if (!found) throw new UnauthorizedError('Invalid credentials.');
    return { appId, isManagement: found.isManagement, via: 'basic', credentialId: found.credentialId };
  }
}
