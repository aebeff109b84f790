import { rateLimitHeaders, RateLimits } from '../../../platform/http/rate-limits';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/app-config';
import { CredentialVerifier } from '../../../platform/auth/credential-verifier';
import { UnauthorizedError } from '../../../platform/auth/unauthorized.error';
import { ForbiddenError, InvalidInputError, NotFoundError } from '../../../platform/http/domain-errors';
import { XapiCredentialsService } from '../xapi-credentials.service';
import { LrsCredential, LrsCredentialCache } from './lrs-credential-cache';
import { LaunchSessions } from './launch-sessions';
import { LAUNCH_TOKEN_USER, LrsLaunchGrant, LrsLaunchTokens } from './lrs-launch-tokens';
import { baseStringUri, LrsOAuthVerifier, parseOAuthHeader } from './lrs-oauth';
import { agentKey, Json } from './statement-keys';

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
  /** Set for the player's launch tokens: the registration and learner they are bound to. */
  launch?: LrsLaunchGrant;
}

export const LRS_CHALLENGE = 'Basic realm="LCDS LRS"';
const SUPPORTED_VERSION = /^(1\.0(\.\d+)?|2\.0(\.\d+)?)$/;

/**
 * The X-Experience-API-Version of a response: 2.0.0 to a 2.0 client, 1.0.3 to a 1.0.x one, and to a request without
 * the header (or with an unsupported one) the configured answer (LCDS_LRS_UNVERSIONED_ANSWER, 2.0.0 by default).
 */
export function answeredVersion(requested: string, config: AppConfig): string {
  if (requested.startsWith('2.')) return '2.0.0';
  if (requested.startsWith('1.0')) return '1.0.3';
  return config.lrs.unversionedAnswer;
}

export function lrsPrincipal(req: Request): LrsPrincipal {
  return (req as Request & { lrs: LrsPrincipal }).lrs;
}

/**
 * The LRS's own authentication (the API's global guard lets /lrs through as public): HTTP basic with an xAPI
 * credential of the application in the path (key:secret), OAuth 1.0a two-legged with an OAUTH xAPI credential, HTTP
 * basic with the application's own id and secret key, or a launch token of the player (LrsLaunchTokens). Credentials
 * come from memory (LrsCredentialCache), so a request does no database read once they are cached.
 * Also requires a supported X-Experience-API-Version, and answers with the version header on every response.
 */
@Injectable()
export class LrsAuthGuard implements CanActivate {
  constructor(
    private readonly credentials: XapiCredentialsService,
    private readonly cache: LrsCredentialCache,
    private readonly launchTokens: LrsLaunchTokens,
    private readonly launchSessions: LaunchSessions,
    private readonly oauth: LrsOAuthVerifier,
    private readonly verifier: CredentialVerifier,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limits: RateLimits,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const requested = req.headers['x-experience-api-version'];
    const version = typeof requested === 'string' ? requested.trim() : '';
    res.setHeader('X-Experience-API-Version', answeredVersion(version, this.config));
    if (this.config.role === 'worker') throw new NotFoundError('Operation', req.path);
    const appId = String(req.params.appId ?? '');
    const principal = await this.authenticate(req, appId).catch((err: unknown) => {
      // A script's request (fetch, XHR: Sec-Fetch-Dest empty) gets no Basic challenge, which would make the browser
      // prompt the learner for a password (content whose launch token ended, e.g. a cmi5 session after terminated).
      if (err instanceof UnauthorizedError && req.headers['sec-fetch-dest'] === 'empty') throw new UnauthorizedError(err.message, null);
      throw err;
    });
    if (!version) throw new InvalidInputError('The X-Experience-API-Version header is required (1.0.x or 2.0.x)');
    if (!SUPPORTED_VERSION.test(version)) throw new InvalidInputError(`X-Experience-API-Version ${version} is not supported; use 1.0.x or 2.0.x`);
    (req as Request & { lrs: LrsPrincipal }).lrs = { ...principal, version };
    const budget = this.limits.enabled ? await this.limits.consume('lrs', appId) : null;
    if (budget) for (const [name, value] of Object.entries(rateLimitHeaders(budget))) res.setHeader(name, value);
    return true;
  }

  private async authenticate(req: Request, appId: string): Promise<Omit<LrsPrincipal, 'version'>> {
    const header = req.headers.authorization;
    const homePage = this.credentials.endpoint(appId);
    if (header && /^OAuth\s/i.test(header)) return this.authenticateOAuth(req, header, appId, homePage);
    const match = header ? /^Basic +([A-Za-z0-9+/=._~-]+) *$/i.exec(header) : null;
    if (!match) throw new UnauthorizedError(header ? 'The LRS accepts HTTP basic authentication and OAuth 1.0a (two-legged).' : 'Authorization Required.', LRS_CHALLENGE);
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new UnauthorizedError('Invalid credentials.', LRS_CHALLENGE);
    const user = decoded.slice(0, colon);
    const secret = decoded.slice(colon + 1);
    if (user === LAUNCH_TOKEN_USER) {
      const grant = this.launchTokens.verify(appId, secret);
      if (!grant) throw new UnauthorizedError('The launch token is invalid or has expired.', LRS_CHALLENGE);
      await this.launchSessions.live(grant);
      checkLaunchScope(req, grant);
      return { appId, credentialId: null, canRead: true, canWrite: true, readOwnOnly: false, authority: { objectType: 'Agent', account: { homePage, name: appId } }, launch: grant };
    }
    const credential = await this.cache.verifyBasic(appId, user, secret);
    if (credential) return this.credentialPrincipal(appId, homePage, credential);
    if (user === appId && appId !== '' && (await this.verifier.verifySecret(appId, secret))) {
      return { appId, credentialId: null, canRead: true, canWrite: true, readOwnOnly: false, authority: { objectType: 'Agent', account: { homePage, name: appId } } };
    }
    throw new UnauthorizedError('Invalid credentials.', LRS_CHALLENGE);
  }

  /** Two-legged OAuth 1.0a with an OAUTH xAPI credential (consumer key = credential id, consumer secret = its secret). */
  private async authenticateOAuth(req: Request, header: string, appId: string, homePage: string): Promise<Omit<LrsPrincipal, 'version'>> {
    const oauth = parseOAuthHeader(header);
    if (!oauth) throw new UnauthorizedError('The OAuth Authorization header is malformed.', LRS_CHALLENGE);
    const consumer = await this.cache.oauthConsumer(appId, oauth.get('oauth_consumer_key') ?? '');
    if (!consumer) throw new UnauthorizedError('Invalid credentials.', LRS_CHALLENGE);
    const path = req.originalUrl.split('?')[0];
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
    const params: Array<[string, string]> = [...new URLSearchParams(query).entries()];
    if ((req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded') && req.body && typeof req.body === 'object') {
      for (const [k, v] of Object.entries(req.body as Record<string, unknown>)) for (const item of Array.isArray(v) ? v : [v]) params.push([k, String(item)]);
    }
    // As the client addressed it: the public URL (behind a proxy), or the Host header it reached us with.
    const baseUrls = [baseStringUri(new URL(`${this.config.publicUrl.replace(/\/+$/, '')}${path}`))];
    const host = req.get('host');
    if (host) baseUrls.push(baseStringUri(new URL(path, `${req.protocol}://${host}`)));
    const problem = await this.oauth.problem({ method: req.method, baseUrls, params, oauth }, consumer.secret, appId);
    if (problem) throw new UnauthorizedError(`OAuth: ${problem}.`, LRS_CHALLENGE);
    return this.credentialPrincipal(appId, homePage, consumer.credential);
  }

  private credentialPrincipal(appId: string, homePage: string, credential: LrsCredential): Omit<LrsPrincipal, 'version'> {
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
}

/**
 * What a launch token may do: statements of its learner in its registration (reading them needs registration=…,
 * or the id of a statement of its registration), the State of its learner (in its registration, when one is named),
 * the Agent Profile of its learner, the Activity Profiles of its content's activities (the course's activity, or the
 * cmi5 AU's, and the ids under it: `<id>/…`, `<id>#…`, `<id>?…`), and reading activities and agents. Anything else
 * (another agent's profile, another course's activity profiles, another registration's state) is 403 with the rule
 * that refused it.
 */
export function checkLaunchScope(req: Request, grant: LrsLaunchGrant): void {
  const resource = req.path.replace(/^\/lrs\/[^/]+\/?/, '').replace(/\/+$/, '');
  const override = typeof req.query.method === 'string' ? req.query.method.toUpperCase() : null;
  const method = override ?? req.method.toUpperCase();
  const form = override !== null && req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
  const param = (name: string): string | undefined => {
    const v = req.query[name] ?? form[name];
    return typeof v === 'string' ? v : undefined;
  };
  const deny = (why: string): never => {
    throw new ForbiddenError(`This launch token ${why}`);
  };
  const reading = method === 'GET' || method === 'HEAD';
  const sameAgent = (raw: string | undefined): boolean => {
    if (raw === undefined) return false;
    try {
      return agentKey(JSON.parse(raw)) === grant.agent;
    } catch {
      return false;
    }
  };
  switch (resource) {
    case 'about':
      return;
    case 'statements': {
      if (reading) {
        if (param('statementId') !== undefined || param('voidedStatementId') !== undefined) return;
        if (param('registration')?.toLowerCase() !== grant.registration) deny('reads only the statements of its registration: send registration=<its registration>');
        return;
      }
      if (method !== 'PUT' && method !== 'POST') deny(`may not ${method} statements`);
      let body: unknown = override !== null ? form.content : req.body;
      if (typeof body === 'string') {
        try {
          body = JSON.parse(body);
        } catch {
          deny('sends statements as JSON only');
        }
      }
      for (const s of (Array.isArray(body) ? body : [body]) as unknown[]) {
        if (typeof s !== 'object' || s === null) deny('sends statements as JSON only');
        const statement = s as { actor?: Json; context?: { registration?: unknown } };
        if (agentKey(statement.actor) !== grant.agent) deny('writes only statements whose actor is its learner');
        const registration = statement.context?.registration;
        if (typeof registration !== 'string' || registration.toLowerCase() !== grant.registration) deny('writes only statements whose context.registration is its registration');
      }
      return;
    }
    case 'activities/state': {
      if (!sameAgent(param('agent'))) deny('reads and writes only the State of its learner');
      if (!reading && param('stateId') === 'LMS.LaunchData') deny('may not change LMS.LaunchData, which the LMS writes (cmi5 10.2.1.0-5)');
      const registration = param('registration');
      if (registration !== undefined && registration.toLowerCase() !== grant.registration) deny('reads and writes only the State of its registration');
      return;
    }
    case 'agents/profile':
      // Without an agent the request is malformed (400 from the controller), not forbidden.
      if (param('agent') !== undefined && !sameAgent(param('agent'))) deny('reads and writes only the profile of its learner');
      return;
    case 'activities/profile': {
      const activityId = param('activityId');
      if (activityId !== undefined && activityId !== '' && !grant.activities.some((root) => isUnder(activityId, root))) {
        deny(`reads and writes only the activity profiles of its course's activities (${grant.activities.join(', ') || 'none'} and the ids under them)`);
      }
      return;
    }
    case 'activities':
    case 'agents':
      if (!reading) deny(`may only read ${resource}`);
      return;
    default:
      deny(`may not use ${resource || 'this resource'}`);
  }
}

/** Whether an activity id is `root` or an id under it (root followed by `/`, `#`, `?` or `:`, or root ending so). */
function isUnder(id: string, root: string): boolean {
  if (id === root) return true;
  if (!id.startsWith(root)) return false;
  return /[/#?:]$/.test(root) || /^[/#?:]/.test(id.slice(root.length));
}
