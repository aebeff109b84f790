import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/app-config';
import { CredentialVerifier } from '../../../platform/auth/credential-verifier';
import { UnauthorizedError } from '../../../platform/auth/unauthorized.error';
import { InvalidInputError, NotFoundError } from '../../../platform/http/domain-errors';
import type { Json } from './statement-keys';
import { XapiCredentialsService } from '../xapi-credentials.service';

/** Who is calling an application's LRS, and what they may do there. */
export interface LrsPrincipal {
  appId: string;
  /** The xAPI credential used; null for the application's own API keys. */
  credentialId: string | null;
  canRead: boolean;
  canWrite: boolean;
  /** DEFAULT and USER credentials read only the statements they stored themselves. */
  readOwnOnly: boolean;
  /** The `authority` the LRS puts on statements stored by this caller. */
  authority: Json;
  /** The xAPI version the client speaks (X-Experience-API-Version). */
  version: string;
}

export const LRS_CHALLENGE = 'Basic realm="LCDS LRS"';
const SUPPORTED_VERSION = /^(1\.0(\.\d+)?|2\.0(\.\d+)?)$/;

export function lrsPrincipal(req: Request): LrsPrincipal {
  return (req as Request & { lrs: LrsPrincipal }).lrs;
}

/**
 * The LRS's own authentication (the API's global guard lets /lrs through as public): HTTP basic with an xAPI
 * credential of the application in the path (key:secret), or with the application's own id and secret key.
 * Also requires a supported X-Experience-API-Version, and answers with the version header on every response.
 */
@Injectable()
export class LrsAuthGuard implements CanActivate {
  constructor(
    private readonly credentials: XapiCredentialsService,
    private readonly verifier: CredentialVerifier,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const requested = req.headers['x-experience-api-version'];
    const version = typeof requested === 'string' ? requested.trim() : '';
    res.setHeader('X-Experience-API-Version', version.startsWith('2.') ? '2.0.0' : '1.0.3');
    if (this.config.role === 'worker') throw new NotFoundError('Operation', req.path);
    const appId = String(req.params.appId ?? '');
    const principal = await this.authenticate(req.headers.authorization, appId);
    if (!version) throw new InvalidInputError('The X-Experience-API-Version header is required (1.0.x or 2.0.x)');
    if (!SUPPORTED_VERSION.test(version)) throw new InvalidInputError(`X-Experience-API-Version ${version} is not supported; use 1.0.x or 2.0.x`);
    (req as Request & { lrs: LrsPrincipal }).lrs = { ...principal, version };
    return true;
  }

  private async authenticate(header: string | undefined, appId: string): Promise<Omit<LrsPrincipal, 'version'>> {
    const match = header ? /^Basic +([A-Za-z0-9+/=._~-]+) *$/i.exec(header) : null;
    if (!match) throw new UnauthorizedError(header ? 'The LRS accepts only HTTP basic authentication.' : 'Authorization Required.', LRS_CHALLENGE);
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new UnauthorizedError('Invalid credentials.', LRS_CHALLENGE);
    const user = decoded.slice(0, colon);
    const secret = decoded.slice(colon + 1);
    const homePage = this.credentials.endpoint(appId);
    const credential = await this.credentials.authenticate(appId, user, secret);
    if (credential) {
      const level = credential.permissionsLevel;
      return {
        appId,
        credentialId: credential.id,
        canRead: level !== 'WRITEONLY',
        canWrite: level !== 'READONLY',
        readOwnOnly: level === 'DEFAULT' || level === 'USER',
        authority: { objectType: 'Agent', name: credential.name, account: { homePage, name: credential.id } },
      };
    }
    if (user === appId && appId !== '' && (await this.verifier.verifySecret(appId, secret))) {
      return { appId, credentialId: null, canRead: true, canWrite: true, readOwnOnly: false, authority: { objectType: 'Agent', account: { homePage, name: appId } } };
    }
    throw new UnauthorizedError('Invalid credentials.', LRS_CHALLENGE);
  }
}
