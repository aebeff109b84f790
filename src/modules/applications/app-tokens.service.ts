import { Injectable } from '@nestjs/common';
import { Principal } from '../../platform/auth/principal';
import { isScope, Scope } from '../../platform/auth/scopes';
import { TokenService } from '../../platform/auth/token.service';
import { InvalidInputError } from '../../platform/http/domain-errors';

const APP_MANAGEMENT_SCOPES: readonly string[] = [Scope.ReadAppMgmt, Scope.WriteAppMgmt, Scope.DeleteAppMgmt];

/** The two OAuth2 token flows of the real API, on one issuing rule. */
@Injectable()
export class AppTokensService {
  constructor(private readonly tokens: TokenService) {}

  /** GetAppToken: `scope` space-separated, `expiration` in seconds (default 300). */
  issueForForm(principal: Principal, scope: string, expiration?: string) {
    const seconds = expiration === undefined ? 300 : Number(expiration);
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > this.tokens.maxLifetimeSeconds) {
      throw new InvalidInputError(`expiration must be from 1 to ${this.tokens.maxLifetimeSeconds} seconds`);
    }
    const scopes = scope.split(/[\s,]+/).filter((s) => s !== '');
    const { token } = this.issue(principal, scopes, new Date(Date.now() + seconds * 1000));
    return { access_token: token, expires_in: seconds, token_type: 'Bearer' };
  }

  /** CreateToken: TokenRequestSchema with an absolute expiry. */
  issueForRequest(principal: Principal, scopes: string[], expiry: string, label?: string): { result: string } {
    const expiresAt = new Date(expiry);
    if (Number.isNaN(expiresAt.getTime())) throw new InvalidInputError('expiry must be an ISO 8601 date-time');
    const seconds = (expiresAt.getTime() - Date.now()) / 1000;
    if (seconds <= 0) throw new InvalidInputError('expiry must be in the future');
    if (seconds > this.tokens.maxLifetimeSeconds) {
      throw new InvalidInputError(`expiry must be at most ${this.tokens.maxLifetimeSeconds} seconds from now`);
    }
    return { result: this.issue(principal, scopes, expiresAt, label).token };
  }

  private issue(principal: Principal, scopes: string[], expiresAt: Date, label?: string) {
    if (scopes.length === 0) throw new InvalidInputError('scope: name at least one scope');
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length > 0) throw new InvalidInputError(`scope: unknown scope ${unknown.map((s) => `'${s}'`).join(', ')}`);
    const management = scopes.filter((s) => APP_MANAGEMENT_SCOPES.includes(s));
    if (management.length > 0 && !principal.isManagement) {
      throw new InvalidInputError(`scope: ${management.join(', ')} can only be granted to a management application`);
    }
    return this.tokens.issue({ appId: principal.appId, scopes: [...new Set(scopes)], isManagement: principal.isManagement, expiresAt, label });
  }
}
