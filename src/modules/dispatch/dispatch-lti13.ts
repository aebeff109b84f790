import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes, randomUUID } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, SignJWT, type JSONWebKeySet, type JWTPayload } from 'jose';
import { IsNull, Not, Repository } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { KeyRing } from '../../platform/crypto/keyring';
import { InvalidInputError, NotFoundError } from '../../platform/http/domain-errors';
import { EventBus, RegistrationProgressChanged } from '../../platform/events';
import { OutboundHttp } from '../../platform/outbound/outbound-http';
import { defineQueue, JobQueue, QueueDefinition, UnrecoverableJobError } from '../../platform/queue/job-queue';
import { RegistrationsService } from '../registrations/registrations.service';
import { SettingsService } from '../settings/settings.service';
import { DestinationsService } from './destinations.service';
import { DispatchesService } from './dispatches.service';
import { DispatchLaunches, LaunchRefusal } from './dispatch-launches';
import { LtiOutcomePayload, outcomeScore, schedulePassbacks } from './dispatch-lti';
import type { StoredLti13Platform } from './entities/destination.entity';
import type { DispatchEntity } from './entities/dispatch.entity';
import { DispatchRegistrationEntity } from './entities/dispatch-registration.entity';
import { Lti13ToolKeys } from './lti13-tool-keys';

const LTI = 'https://purl.imsglobal.org/spec/lti/claim/';
const AGS_ENDPOINT = 'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint';
const AGS_SCORE = 'https://purl.imsglobal.org/spec/lti-ags/scope/score';
/** The login's state is good this long (the platform's authorization round trip). */
const STATE_LIFETIME = 600;
const JWKS_CACHE_MS = 5 * 60_000;
/** The hand-over from the launch to GetLti13DispatchLaunch is good this long (a redirect the browser follows at once). */
const HANDOVER_LIFETIME = 60;
const HANDOVER_AUDIENCE = 'lcds:GetLti13DispatchLaunch';

/** The same payload as LTI 1.1's outcomes: which dispatch learner's score to send. */
export class Lti13ScorePayload extends LtiOutcomePayload {}

/**
 * LTI 1.3 for dispatches: the tool's configuration and JWKS, OIDC third-party login initiation, the launch (the
 * platform's id_token verified against its JWKS: issuer, audience, expiry, nonce, deployment id, message type, the
 * target link's dispatch) and Assignment and Grade Services score passback (client-credentials token with a signed
 * client assertion, then the line item's scores service), by a job retried with backoff.
 */
@Injectable()
export class DispatchLti13 implements OnModuleInit {
  private readonly logger = new Logger(DispatchLti13.name);
  private readonly jwksCache = new Map<string, { at: number; set: JSONWebKeySet }>();
  readonly queue: QueueDefinition<Lti13ScorePayload>;

  constructor(
    @InjectRepository(DispatchRegistrationEntity) private readonly learners: Repository<DispatchRegistrationEntity>,
    private readonly dispatches: DispatchesService,
    private readonly destinations: DestinationsService,
    private readonly launches: DispatchLaunches,
    private readonly registrations: RegistrationsService,
    private readonly settings: SettingsService,
    private readonly toolKeys: Lti13ToolKeys,
    private readonly keys: KeyRing,
    private readonly jobs: JobQueue,
    private readonly outbound: OutboundHttp,
    private readonly events: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.queue = defineQueue<Lti13ScorePayload>({ name: 'dispatch-lti13-score', payloadClass: Lti13ScorePayload, maxAttempts: 12, backoffMs: config.jobs.postbackBackoffMs, timeoutMs: 60_000 });
  }

  onModuleInit(): void {
    this.jobs.register(this.queue, (p) => this.sendScore(p));
    this.events.on(RegistrationProgressChanged, (e) => this.progressed(e));
  }

  private url(path: string): string {
    return `${this.config.publicUrl}/dispatch/lti13/${path}`;
  }

  /** Lti13ToolConfigurationSchema (the same for every destination: one tool, one key pair). */
  async toolConfiguration(appId: string, destinationId: string): Promise<{ publicKey: string; oidcLoginInitiationsUrl: string; redirectUri: string; jsonWebKeySetUrl: string }> {
    await this.destinations.require(appId, destinationId);
    return { publicKey: (await this.toolKeys.get()).publicPem, oidcLoginInitiationsUrl: this.url('login'), redirectUri: this.url('launch'), jsonWebKeySetUrl: this.url('jwks') };
  }

  /** DispatchLti13InfoSchema */
  async dispatchInfo(appId: string, id: string): Promise<{ targetLinkUri: string }> {
    const d = await this.dispatches.require(appId, id);
    return { targetLinkUri: this.url(`target/${d.packageKey}`) };
  }

  async jwks(): Promise<JSONWebKeySet> {
    return { keys: [(await this.toolKeys.get()).publicJwk] };
  }

  /** OIDC login initiation: where to send the browser (the platform's authorization endpoint), or a refusal. */
  async login(params: Record<string, string>): Promise<{ redirect: string } | { refused: LaunchRefusal }> {
    const target = await this.dispatchOfTarget(params.target_link_uri ?? '');
    if (!target) return { refused: 'invalid' };
    const { d, platform } = target;
    if (params.iss !== platform.platformIssuerIdentifier || (params.client_id && params.client_id !== platform.clientId) || !params.login_hint) return { refused: 'invalid' };
    const nonce = randomBytes(18).toString('base64url');
    const body = Buffer.from(JSON.stringify({ k: d.packageKey, n: nonce, e: Math.floor(Date.now() / 1000) + STATE_LIFETIME })).toString('base64url');
    const q = new URLSearchParams({
      scope: 'openid',
      response_type: 'id_token',
      response_mode: 'form_post',
      prompt: 'none',
      client_id: platform.clientId,
      redirect_uri: this.url('launch'),
      login_hint: params.login_hint,
      state: `${body}.${this.keys.sign('dispatch', `lti13-state.${body}`)}`,
      nonce,
      ...(params.lti_message_hint ? { lti_message_hint: params.lti_message_hint } : {}),
    });
    const endpoint = new URL(platform.oidcAuthorizationEndpoint);
    for (const [k, v] of q) endpoint.searchParams.set(k, v);
    return { redirect: endpoint.toString() };
  }

  /** The launch (form_post of id_token and state): the player's link, or why not. */
  async launch(idToken: string, state: string, now = Date.now()): Promise<{ playerUrl: string } | { refused: LaunchRefusal }> {
    const [body, sig] = state.split('.');
    if (!body || !sig || !this.keys.verify('dispatch', `lti13-state.${body}`, sig)) return { refused: 'invalid' };
    const st = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { k: string; n: string; e: number };
    if (st.e * 1000 < now) return { refused: 'expired' };
    const d = await this.dispatches.byPackageKey(st.k);
    const platform = d ? (await this.destinations.require(d.appId, d.destinationId).catch(() => null))?.lti13Data : null;
    if (!d || !platform) return { refused: 'invalid' };
    let claims: JWTPayload;
    try {
      const maxAge = await this.tokenMaxAge(d.appId);
      ({ payload: claims } = await jwtVerify(idToken, createLocalJWKSet(await this.platformKeys(platform.jsonWebKeySetUrl)), {
        issuer: platform.platformIssuerIdentifier,
        audience: platform.clientId,
        maxTokenAge: maxAge,
        currentDate: new Date(now),
      }));
    } catch (err) {
      const code = (err as { code?: string }).code;
      return { refused: code === 'ERR_JWT_EXPIRED' || (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && (err as { claim?: string }).claim === 'iat') ? 'expired' : 'invalid' };
    }
    if (claims.nonce !== st.n || claims[`${LTI}deployment_id`] !== platform.deploymentId || claims[`${LTI}message_type`] !== 'LtiResourceLinkRequest' || claims[`${LTI}version`] !== '1.3.0') return { refused: 'invalid' };
    if (claims[`${LTI}target_link_uri`] !== this.url(`target/${d.packageKey}`) || typeof claims.sub !== 'string' || !claims.sub || claims.sub.length > 191) return { refused: 'invalid' };
    if (!(await this.launches.useNonce(`lti13.${st.k}.${st.n}`, (st.e + 60) * 1000, now))) return { refused: 'replayed' };
    const name = { ...(typeof claims.given_name === 'string' ? { firstName: claims.given_name.slice(0, 255) } : {}), ...(typeof claims.family_name === 'string' ? { lastName: claims.family_name.slice(0, 255) } : {}) };
    const presentation = claims[`${LTI}launch_presentation`] as { return_url?: unknown } | undefined;
    const returnUrl = typeof presentation?.return_url === 'string' && /^https?:\/\//i.test(presentation.return_url) ? presentation.return_url : undefined;
    const result = await this.launches.launch(d, claims.sub, name, new URL(this.config.publicUrl).origin, undefined, new Date(now), returnUrl);
    if ('refused' in result) return result;
    const ags = claims[AGS_ENDPOINT] as { scope?: unknown; lineitem?: unknown } | undefined;
    if (ags && typeof ags.lineitem === 'string' && /^https?:\/\//i.test(ags.lineitem) && Array.isArray(ags.scope) && ags.scope.includes(AGS_SCORE) && platform.accessTokenUrl) {
      const learnerKey = (await this.launches.learnerOf(d, claims.sub, name)).key;
      await this.learners.update({ appId: d.appId, dispatchId: d.id, learnerKey }, { lti13Lineitem: ags.lineitem, lti13Subject: claims.sub });
    }
    return { playerUrl: await this.handover(d, result.playerUrl, now) };
  }

  /**
   * The last step, as the real service's: the launch sends the browser to GetLti13DispatchLaunch
   * (`/api/v2/dispatch/dispatches/{dispatchId}/launches?externalConfig=&jwt=`), whose `jwt` LCDS signed (HS256,
   * the KeyRing's dispatch key, 60 s, single-use) and carries the player's link.
   */
  private async handover(d: DispatchEntity, playerUrl: string, now: number): Promise<string> {
    const jwt = await new SignJWT({ app: d.appId, dispatch: d.id, player: playerUrl })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(this.config.publicUrl)
      .setAudience(HANDOVER_AUDIENCE)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(now / 1000) + HANDOVER_LIFETIME)
      .setJti(randomUUID())
      .sign(this.keys.key('dispatch'));
    const q = new URLSearchParams({ externalConfig: '', jwt });
    return `${this.config.publicUrl}/api/v2/dispatch/dispatches/${encodeURIComponent(d.id)}/launches?${q.toString()}`;
  }

  /**
   * GetLti13DispatchLaunch: the player's link the hand-over's `jwt` carries. A jwt LCDS did not sign, that is expired or
   * used, is a 400; one of another dispatch (or of a dispatch deleted since) a 404. `externalConfig` is accepted and
   * not used: LCDS's launches take no external configuration.
   */
  async completeLaunch(dispatchId: string, jwt: string, now = Date.now()): Promise<string> {
    let claims: JWTPayload | null = null;
    let expired = false;
    for (const key of this.keys.verificationKeys('dispatch')) {
      try {
        ({ payload: claims } = await jwtVerify(jwt, key, { algorithms: ['HS256'], issuer: this.config.publicUrl, audience: HANDOVER_AUDIENCE, currentDate: new Date(now) }));
        break;
      } catch (err) {
        expired ||= (err as { code?: string }).code === 'ERR_JWT_EXPIRED';
      }
    }
    if (!claims) throw new InvalidInputError(expired ? 'jwt: this launch has expired; launch the course again from the learning system' : 'jwt: not a launch that LCDS made');
    const { app, dispatch, player, jti, exp } = claims as JWTPayload & { app?: unknown; dispatch?: unknown; player?: unknown };
    if (typeof app !== 'string' || typeof dispatch !== 'string' || typeof player !== 'string' || !jti || !exp) throw new InvalidInputError('jwt: not a launch that LCDS made');
    if (dispatch !== dispatchId) throw new NotFoundError('Dispatch', dispatchId);
    await this.dispatches.require(app, dispatch);
    if (!(await this.launches.useNonce(`lti13-handover.${jti}`, (exp + 60) * 1000, now))) throw new InvalidInputError('jwt: this launch was already used; launch the course again from the learning system');
    return player;
  }

  /** The dispatch of a target link (`…/dispatch/lti13/target/<key>`) and its destination's platform. */
  private async dispatchOfTarget(uri: string): Promise<{ d: DispatchEntity; platform: StoredLti13Platform } | null> {
    const prefix = this.url('target/');
    if (!uri.startsWith(prefix)) return null;
    const d = await this.dispatches.byPackageKey(uri.slice(prefix.length));
    const destination = d ? await this.destinations.require(d.appId, d.destinationId).catch(() => null) : null;
    return d && destination?.lti13Data ? { d, platform: destination.lti13Data } : null;
  }

  private async tokenMaxAge(appId: string): Promise<number> {
    const v = Number((await this.settings.effective(appId, { level: 'application' }, ['LtiJsonWebTokenExpiry'])).get('LtiJsonWebTokenExpiry'));
    return Number.isFinite(v) && v > 0 ? Math.min(v, 3600) : 300;
  }

  /** The platform's JWKS, read through the outbound policy, kept five minutes. */
  private async platformKeys(url: string): Promise<JSONWebKeySet> {
    const hit = this.jwksCache.get(url);
    if (hit && Date.now() - hit.at < JWKS_CACHE_MS) return hit.set;
    const res = await this.outbound.get(url, { accept: 'application/json' }, { maxBytes: 256 * 1024, timeoutMs: 10_000 });
    if (res.status !== 200) throw new Error(`the platform's JWKS answered HTTP ${res.status}`);
    const set = JSON.parse(res.body) as JSONWebKeySet;
    this.jwksCache.set(url, { at: Date.now(), set });
    return set;
  }

  private async progressed(e: RegistrationProgressChanged): Promise<void> {
    await schedulePassbacks(e, this.logger, 'lti13', () => this.learners.find({ where: { appId: e.appId, registrationId: e.registrationId, lti13Lineitem: Not(IsNull()) } }), (payload, jobId) => this.jobs.enqueue(this.queue, payload, { appId: e.appId, jobId }));
  }

  /** AGS: a token for the score scope (client_credentials, RS256 client assertion), then the score, current. */
  private async sendScore(p: Lti13ScorePayload): Promise<unknown> {
    const row = await this.learners.findOneBy({ appId: p.appId, dispatchId: p.dispatchId, learnerKey: p.learnerKey });
    const d = await this.dispatches.require(p.appId, p.dispatchId).catch(() => null);
    const platform = d ? (await this.destinations.require(d.appId, d.destinationId).catch(() => null))?.lti13Data : null;
    if (!row?.lti13Lineitem || !row.lti13Subject || !platform?.accessTokenUrl || !(await this.registrations.find(p.appId, row.registrationId))) return { sent: false, reason: 'gone' };
    const view = await this.registrations.progress(p.appId, row.registrationId, {});
    const score = outcomeScore({ completion: view.registrationCompletion, success: view.registrationSuccess, score: view.score?.scaled ?? null });
    if (score === null) return { sent: false, reason: 'no score' };
    const { privateKey, publicJwk } = await this.toolKeys.get();
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: publicJwk.kid })
      .setIssuer(platform.clientId)
      .setSubject(platform.clientId)
      .setAudience(platform.accessTokenUrl)
      .setIssuedAt()
      .setExpirationTime('5m')
      .setJti(randomUUID())
      .sign(privateKey);
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion, scope: AGS_SCORE });
    const tokenRes = await this.outbound.post(platform.accessTokenUrl, form.toString(), { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' });
    if (tokenRes.status !== 200) throw this.failure('token', tokenRes.status);
    const token = (JSON.parse(tokenRes.body) as { access_token?: string }).access_token;
    if (!token) throw new UnrecoverableJobError('the platform gave no access token');
    const lineitem = new URL(row.lti13Lineitem);
    lineitem.pathname = `${lineitem.pathname.replace(/\/$/, '')}/scores`;
    const done = view.registrationCompletion === 'COMPLETED';
    const scoreBody = JSON.stringify({
      userId: row.lti13Subject,
      scoreGiven: score,
      scoreMaximum: 1,
      activityProgress: done ? 'Completed' : 'InProgress',
      gradingProgress: done ? 'FullyGraded' : 'Pending',
      timestamp: new Date().toISOString(),
    });
    const res = await this.outbound.post(lineitem.toString(), scoreBody, { 'content-type': 'application/vnd.ims.lis.v1.score+json', authorization: `Bearer ${token}` });
    if (res.status < 200 || res.status >= 300) throw this.failure('score', res.status);
    return { sent: true, score };
  }

  private failure(what: string, status: number): Error {
    const message = `the platform's ${what} service answered HTTP ${status}`;
    return status >= 400 && status < 500 && status !== 429 ? new UnrecoverableJobError(message) : new Error(message);
  }
}
