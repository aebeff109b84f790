import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNotEmpty, IsString } from 'class-validator';
import { createHash, randomUUID } from 'node:crypto';
import { IsNull, Not, Repository } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { EventBus, RegistrationProgressChanged } from '../../platform/events';
import { OutboundHttp } from '../../platform/outbound/outbound-http';
import { defineQueue, JobQueue, QueueDefinition, UnrecoverableJobError } from '../../platform/queue/job-queue';
import { RegistrationsService } from '../registrations/registrations.service';
import { DispatchesService } from './dispatches.service';
import { DispatchLaunches, LaunchRefusal } from './dispatch-launches';
import { DispatchRegistrationEntity } from './entities/dispatch-registration.entity';
import { oauthSignature, signatureMatches, signedAuthorization } from './oauth1';

/** How far an LTI 1.1 launch's oauth_timestamp may be from LCDS's clock (seconds). */
export const LTI11_TIMESTAMP_WINDOW = 300;

export class LtiOutcomePayload {
  @IsString() @IsNotEmpty() appId!: string;
  @IsString() @IsNotEmpty() dispatchId!: string;
  @IsString() @IsNotEmpty() learnerKey!: string;
}

export const LTI_OUTCOME_QUEUE_NAME = 'dispatch-lti-outcome';

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The score LTI Basic Outcomes gets (0–1): the scaled score, else 1 for passed or completed, 0 for failed; null: none yet. */
export function outcomeScore(p: { completion: string; success: string; score: number | null }): number | null {
  if (p.score !== null) return Math.min(1, Math.max(0, p.score));
  if (p.success === 'PASSED' || p.completion === 'COMPLETED') return 1;
  if (p.success === 'FAILED') return 0;
  return null;
}

/**
 * LTI 1.1 for dispatches: the launch URL, consumer key and secret (GetLtiDispatch); signed basic launches (OAuth 1.0a
 * HMAC-SHA1, timestamp window, single-use nonces) that create or resume the learner's dispatch registration; and
 * Basic Outcomes: the learner's score sent back (replaceResult) after each change, by a job retried with backoff.
 */
@Injectable()
export class DispatchLti implements OnModuleInit {
  private readonly logger = new Logger(DispatchLti.name);
  readonly queue: QueueDefinition<LtiOutcomePayload>;

  constructor(
    @InjectRepository(DispatchRegistrationEntity) private readonly learners: Repository<DispatchRegistrationEntity>,
    private readonly dispatches: DispatchesService,
    private readonly launches: DispatchLaunches,
    private readonly registrations: RegistrationsService,
    private readonly jobs: JobQueue,
    private readonly outbound: OutboundHttp,
    private readonly events: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.queue = defineQueue<LtiOutcomePayload>({ name: LTI_OUTCOME_QUEUE_NAME, payloadClass: LtiOutcomePayload, maxAttempts: 12, backoffMs: config.jobs.postbackBackoffMs, timeoutMs: 60_000 });
  }

  onModuleInit(): void {
    this.jobs.register(this.queue, (p) => this.sendOutcome(p));
    this.events.on(RegistrationProgressChanged, (e) => this.progressed(e));
  }

  launchUrl(packageKey: string): string {
    return `${this.config.publicUrl}/dispatch/lti/${packageKey}`;
  }

  /** DispatchLtiInfoSchema */
  async info(appId: string, id: string): Promise<{ url: string; consumerKey: string; sharedSecret: string }> {
    const d = await this.dispatches.require(appId, id);
    return { url: this.launchUrl(d.packageKey), consumerKey: d.packageKey, sharedSecret: this.dispatches.secretOf(d) };
  }

  /** A basic launch request POSTed by the consumer (its form fields); the player's link, or why not. */
  async launch(key: string, form: Record<string, unknown>, now = Date.now()): Promise<{ playerUrl: string } | { refused: LaunchRefusal }> {
    const params: Array<[string, string]> = Object.entries(form).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, String(x)] as [string, string]) : [[k, String(v)] as [string, string]]));
    const get = (name: string) => params.find(([k]) => k === name)?.[1] ?? '';
    const d = await this.dispatches.byPackageKey(key);
    if (!d || get('oauth_consumer_key') !== key || get('oauth_signature_method') !== 'HMAC-SHA1' || !['', '1.0'].includes(get('oauth_version'))) return { refused: 'invalid' };
    if (!signatureMatches(oauthSignature('POST', this.launchUrl(key), params, this.dispatches.secretOf(d)), get('oauth_signature'))) return { refused: 'invalid' };
    const timestamp = Number(get('oauth_timestamp'));
    if (!Number.isInteger(timestamp) || Math.abs(now / 1000 - timestamp) > LTI11_TIMESTAMP_WINDOW) return { refused: 'expired' };
    const nonce = get('oauth_nonce');
    if (!nonce || nonce.length > 128) return { refused: 'invalid' };
    if (!(await this.launches.useNonce(`lti.${key}.${nonce}`, (timestamp + LTI11_TIMESTAMP_WINDOW + 60) * 1000, now))) return { refused: 'replayed' };
    const userId = get('user_id');
    if (get('lti_message_type') !== 'basic-lti-launch-request' || !get('lti_version').startsWith('LTI-1') || !get('resource_link_id') || !userId || userId.length > 191) return { refused: 'invalid' };
    const name = { ...(get('lis_person_name_given') ? { firstName: get('lis_person_name_given').slice(0, 255) } : {}), ...(get('lis_person_name_family') ? { lastName: get('lis_person_name_family').slice(0, 255) } : {}) };
    const returnUrl = get('launch_presentation_return_url');
    const result = await this.launches.launch(d, userId, name, new URL(this.config.publicUrl).origin, undefined, new Date(now), /^https?:\/\//i.test(returnUrl) ? returnUrl : undefined);
    if ('refused' in result) return result;
    const outcomeUrl = get('lis_outcome_service_url');
    const sourcedid = get('lis_result_sourcedid');
    if (/^https?:\/\//i.test(outcomeUrl) && sourcedid) {
      const learnerKey = (await this.launches.learnerOf(d, userId, name)).key;
      await this.learners.update({ appId: d.appId, dispatchId: d.id, learnerKey }, { ltiOutcomeUrl: outcomeUrl, ltiResultSourcedid: sourcedid });
    }
    return { playerUrl: result.playerUrl };
  }

  /** A dispatch registration's progress changed: its score goes back to an LTI consumer that asked for outcomes. */
  private async progressed(e: RegistrationProgressChanged): Promise<void> {
    await schedulePassbacks(e, this.logger, 'lti11', () => this.learners.find({ where: { appId: e.appId, registrationId: e.registrationId, ltiOutcomeUrl: Not(IsNull()) } }), (payload, jobId) => this.jobs.enqueue(this.queue, payload, { appId: e.appId, jobId }));
  }

  /** replaceResult with the registration's current score (idempotent: a retry sends what holds then). */
  private async sendOutcome(p: LtiOutcomePayload): Promise<unknown> {
    const row = await this.learners.findOneBy({ appId: p.appId, dispatchId: p.dispatchId, learnerKey: p.learnerKey });
    const d = await this.dispatches.require(p.appId, p.dispatchId).catch(() => null);
    if (!row?.ltiOutcomeUrl || !row.ltiResultSourcedid || !d) return { sent: false, reason: 'gone' };
    const reg = await this.registrations.find(p.appId, row.registrationId);
    if (!reg) return { sent: false, reason: 'gone' };
    const view = await this.registrations.progress(p.appId, row.registrationId, {});
    const score = outcomeScore({ completion: view.registrationCompletion, success: view.registrationSuccess, score: view.score?.scaled ?? null });
    if (score === null) return { sent: false, reason: 'no score' };
    const body = replaceResultXml(randomUUID(), row.ltiResultSourcedid, score);
    const auth = signedAuthorization(row.ltiOutcomeUrl, d.packageKey, this.dispatches.secretOf(d), body, randomUUID().replace(/-/g, ''));
    const res = await this.outbound.post(row.ltiOutcomeUrl, body, { 'content-type': 'application/xml', authorization: auth });
    if (res.status >= 400 && res.status < 500 && res.status !== 429) throw new UnrecoverableJobError(`the outcome service answered HTTP ${res.status}`);
    if (res.status < 200 || res.status >= 300) throw new Error(`the outcome service answered HTTP ${res.status}`);
    if (!/<imsx_codeMajor>\s*success\s*<\/imsx_codeMajor>/.test(res.body)) throw new UnrecoverableJobError('the outcome service did not answer success');
    return { sent: true, score };
  }
}

/**
 * Queues one score passback job per LTI link of a dispatch registration whose progress changed (a score to send).
 * Never throws: the change is saved whatever happens here. The job id derives from the score, so a repeat is a no-op.
 */
export async function schedulePassbacks(
  e: RegistrationProgressChanged,
  logger: Logger,
  kind: string,
  find: () => Promise<DispatchRegistrationEntity[]>,
  enqueue: (payload: LtiOutcomePayload, jobId: string) => Promise<unknown>,
): Promise<void> {
  // Only dispatch registrations (their ids say so) cost a read here: this runs on every commit.
  if (!e.registrationId.startsWith('dispatch-')) return;
  const score = outcomeScore(e);
  if (score === null) return;
  try {
    for (const row of await find()) {
      const h = createHash('sha256').update(`${kind}\n${e.appId}\n${row.dispatchId}\n${row.learnerKey}\n${e.instance}\n${score}\n${e.completion}`).digest('hex');
      const jobId = `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
      await enqueue({ appId: e.appId, dispatchId: row.dispatchId, learnerKey: row.learnerKey }, jobId);
    }
  } catch (err) {
    logger.error({ msg: 'score passback not scheduled', kind, appId: e.appId, registrationId: e.registrationId, err: err instanceof Error ? err.message : String(err) });
  }
}

export function replaceResultXml(messageId: string, sourcedid: string, score: number): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<imsx_POXEnvelopeRequest xmlns="http://www.imsglobal.org/services/ltiv1p1/xsd/imsoms_v1p0">
<imsx_POXHeader><imsx_POXRequestHeaderInfo><imsx_version>V1.0</imsx_version><imsx_messageIdentifier>${xml(messageId)}</imsx_messageIdentifier></imsx_POXRequestHeaderInfo></imsx_POXHeader>
<imsx_POXBody><replaceResultRequest><resultRecord><sourcedGUID><sourcedId>${xml(sourcedid)}</sourcedId></sourcedGUID><result><resultScore><language>en</language><textString>${score}</textString></resultScore></result></resultRecord></replaceResultRequest></imsx_POXBody>
</imsx_POXEnvelopeRequest>`;
}
