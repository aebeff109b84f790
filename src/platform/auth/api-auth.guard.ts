import { operationOf, type OperationTagged } from '../metrics/metrics';
import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { rateLimitHeaders, RateLimits } from '../http/rate-limits';
import { ForbiddenError, NotFoundError } from '../http/domain-errors';
import { AUTH_POLICY, AuthPolicy } from './authorize.decorator';
import { AuthGuard } from '@nestjs/passport';
import type { AuthenticatedRequest, Principal } from './principal';
import { scopesCover } from './scopes';
import { UnauthorizedError } from './unauthorized.error';

function rethrow<TUser>(err: unknown, user: TUser | false): TUser {
  if (err) throw err instanceof Error ? err : new UnauthorizedError();
  if (!user) throw new UnauthorizedError();
  return user;
}

/** The passport strategies (BasicStrategy 'lcds-basic', BearerStrategy 'lcds-bearer'), our errors kept. */
class BasicAuthGuard extends AuthGuard('lcds-basic') {
  override handleRequest<TUser = Principal>(err: unknown, user: TUser | false): TUser {
    return rethrow(err, user);
  }
}

class BearerAuthGuard extends AuthGuard('lcds-bearer') {
  override handleRequest<TUser = Principal>(err: unknown, user: TUser | false): TUser {
    return rethrow(err, user);
  }
}

/**
 * The one global guard. A route without an authorization decorator is closed; a public route is open;
 * every other route authenticates by basic or bearer and then checks the kind of credentials and the scopes.
 */
@Injectable()
export class ApiAuthGuard implements CanActivate {
  private readonly logger = new Logger(ApiAuthGuard.name);
  /** Each handler's policy, read from its metadata once (it never changes at run time); null: none declared. */
  private readonly policies = new WeakMap<object, AuthPolicy | null>();
  private readonly basic = new BasicAuthGuard({ session: false });
  private readonly bearer = new BearerAuthGuard({ session: false });

  constructor(
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limits: RateLimits,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const handler = context.getHandler();
    const req = context.switchToHttp().getRequest<Request>();
    (req as OperationTagged).lcdsOperation = operationOf(handler);
    let policy = this.policies.get(handler);
    if (policy === undefined) {
      policy = this.reflector.getAllAndOverride<AuthPolicy | undefined>(AUTH_POLICY, [handler, context.getClass()]) ?? null;
      this.policies.set(handler, policy);
    }
    if (!policy) {
      this.logger.error(`route ${context.getClass().name}.${context.getHandler().name} declares no authorization; refused`);
      throw new ForbiddenError('This operation is not available');
    }
    // A worker process serves only its health checks.
    if (this.config.role === 'worker' && !policy.onWorkers) throw new NotFoundError('Operation', req.path);
    if (policy.public) return true;
    const header = req.headers.authorization;
    if (!header) throw new UnauthorizedError();
    const scheme = header.slice(0, header.indexOf(' ')).toLowerCase();
    if (scheme === 'bearer' && policy.oauth === false) {
      throw new ForbiddenError('This operation accepts only HTTP basic authentication with an application id and secret key');
    }
    if (scheme !== 'basic' && scheme !== 'bearer') throw new UnauthorizedError('Unsupported authorization scheme.');
    // Only the strategy of the scheme the client used runs.
    await (scheme === 'bearer' ? this.bearer : this.basic).canActivate(context);
    const principal = (req as AuthenticatedRequest).user as Principal;
    this.authorize(policy, principal);
    if (this.limits.enabled) await this.spend(principal, context.switchToHttp().getResponse<Response>());
    return true;
  }

  /** LCDS_RATE_LIMIT: a point of the application's budget and of the credential's; the headers tell the tighter. */
  private async spend(principal: Principal, res: Response): Promise<void> {
    const app = await this.limits.consume('api', principal.appId);
    const credential = await this.limits.consume('apiCredential', `${principal.appId}:${principal.credentialId}`);
    const tighter = app && credential ? (credential.remaining < app.remaining ? credential : app) : (app ?? credential);
    if (tighter) for (const [name, value] of Object.entries(rateLimitHeaders(tighter))) res.setHeader(name, value);
  }

  private authorize(policy: AuthPolicy, principal: Principal): void {
    if (principal.via === 'basic') {
      if (policy.basic === false) throw new ForbiddenError('This operation does not accept basic authentication');
      if (policy.basic === 'management' && !principal.isManagement) {
        throw new ForbiddenError('This operation needs the credentials of a management application');
      }
      return;
    }
    if (policy.oauth === false) throw new ForbiddenError('This operation accepts only basic authentication');
    if (policy.basic === 'management' && !principal.isManagement) {
      throw new ForbiddenError('This operation needs a token issued to a management application');
    }
    if (!scopesCover(principal.scopes ?? [], policy.oauth)) {
      throw new ForbiddenError(`The token's scopes do not cover this operation; it needs one of: ${policy.oauth.join(', ')}`);
    }
  }
}
