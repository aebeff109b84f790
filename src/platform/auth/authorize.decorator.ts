import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiExtension } from '@nestjs/swagger';
import { ScopeName } from './scopes';

export const AUTH_POLICY = 'lcds:auth-policy';

export interface AuthPolicy {
  /** Which basic credentials are accepted: an application's own key, a management application's key, or none. */
  basic: 'normal' | 'management' | false;
  /** Scopes of which a bearer token needs one; false: bearer tokens are refused. */
  oauth: readonly ScopeName[] | false;
  public?: boolean;
  /** Also served by worker processes (only health checks are). */
  onWorkers?: boolean;
}

function policy(p: AuthPolicy) {
  const security = [
    ...(p.basic === 'normal' ? [ApiBasicAuth('APP_NORMAL')] : p.basic === 'management' ? [ApiBasicAuth('APP_MANAGEMENT')] : []),
    ...(p.oauth ? [ApiBearerAuth('OAUTH')] : []),
  ];
  return applyDecorators(
    SetMetadata(AUTH_POLICY, p),
    ...security,
    ApiExtension('x-lcds-scopes', p.oauth ? [...p.oauth] : []),
  );
}

/** APP_NORMAL basic auth, or a bearer token carrying one of the scopes (the contract's Scopes column). */
export const Authorize = (...scopes: ScopeName[]) => policy({ basic: 'normal', oauth: scopes });

/** APP_MANAGEMENT basic auth, or a bearer token of a management application carrying one of the scopes. */
export const AuthorizeManagement = (...scopes: ScopeName[]) => policy({ basic: 'management', oauth: scopes });

/** APP_NORMAL basic auth only (token issuing, asset operations). */
export const AuthorizeBasicOnly = () => policy({ basic: 'normal', oauth: false });

/** No credentials: health checks, learner-facing pages that carry their own signed links. */
export const PublicEndpoint = (options: { onWorkers?: boolean } = {}) =>
  SetMetadata(AUTH_POLICY, { basic: false, oauth: false, public: true, onWorkers: options.onWorkers === true } satisfies AuthPolicy);
