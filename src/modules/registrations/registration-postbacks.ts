import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsInt, IsNotEmpty, IsString, Min } from 'class-validator';
import { createHash, randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { KeyRing } from '../../platform/crypto/keyring';
import { NotFoundError } from '../../platform/http/domain-errors';
import { defineQueue, JobContext, JobQueue, QueueDefinition } from '../../platform/queue/job-queue';
import { MAX_BACKOFF_MS, retryDelayMs } from '../../platform/queue/job-store';
import { SettingsService } from '../settings/settings.service';
import type { PostBackDto } from './dto/registration.dto';
import { RegistrationEntity } from './entities/registration.entity';
import { RegistrationPostbackStateEntity } from './entities/registration-postback-state.entity';
import { POSTBACK_REQUEST_SETTING_IDS, postbackOptionsOf, RegistrationPostback } from './registration-postback';
import { postbackSignature, postbackSigningKey } from './registration-postback-signing';
import { httpUrlProblem } from '../../platform/http/http-url';
import { RegistrationsService } from './registrations.service';

/** The job of a registration's pending postback; `after` is the settled sequence it follows (its key). */
export class RegistrationPostbackPayload {
  @IsString() @IsNotEmpty() appId!: string;
  @IsString() @IsNotEmpty() registrationId!: string;
  @IsInt() @Min(0) instance!: number;
  @IsInt() @Min(0) after!: number;
}

export const REGISTRATION_POSTBACK_QUEUE_NAME = 'registration-postback';
/** Retries go on for at least this long while the receiver fails. */
export const POSTBACK_RETRY_WINDOW_MS = 24 * 3600 * 1000;

/** The fewest attempts whose retry delays (backoffMs doubling, capped at MAX_BACKOFF_MS) add up to the window. */
export function postbackMaxAttempts(backoffMs: number, windowMs = POSTBACK_RETRY_WINDOW_MS): number {
  let total = 0;
  let attempts = 1;
  while (total < windowMs) total += retryDelayMs(backoffMs, attempts++);
  return attempts;
}

export function registrationPostbackQueue(backoffMs: number): QueueDefinition<RegistrationPostbackPayload> {
  return defineQueue<RegistrationPostbackPayload>({
    name: REGISTRATION_POSTBACK_QUEUE_NAME,
    payloadClass: RegistrationPostbackPayload,
    // 30 s base: 30 s … 32 min, then hourly (MAX_BACKOFF_MS) — 31 attempts over 24 h 3 min.
    maxAttempts: postbackMaxAttempts(Math.min(backoffMs, MAX_BACKOFF_MS)),
    backoffMs,
    timeoutMs: 60_000,
  });
}

const AUTH_TYPES: Record<string, PostBackDto['authType']> = { form: 'FORM', httpbasic: 'HTTPBASIC' };
const FORMATS: Record<string, PostBackDto['resultsFormat']> = { course: 'COURSE', activity: 'ACTIVITY', full: 'FULL' };
/** The settings a registration's postback target comes from (when it has no postBack of its own). */
export const POSTBACK_SETTING_IDS = ['ApiRollupRegistrationPostBackUrl', 'ApiRollupRegistrationAuthType', 'ApiRollupRegistrationAuthUser', 'ApiRollupRegistrationAuthPassword', 'ApiRollupRegistrationFormat'] as const;

/**
 * Registration postbacks: each progress change of a registration (an applied runtime commit) asks for one; a job
 * of queue `registration-postback` posts the registration's CURRENT state to its postBack URL (or the
 * ApiRollupRegistration* settings), retried with backoff for a day. Per registration there is at most one pending
 * job (its id derives from the settled sequence), changes while it waits fold into it, and deliveries follow the
 * order of the changes; see RegistrationPostbackStateEntity.
 */
@Injectable()
export class RegistrationPostbacks implements OnModuleInit {
  private readonly logger = new Logger(RegistrationPostbacks.name);
  readonly queue: QueueDefinition<RegistrationPostbackPayload>;

  constructor(
    @InjectRepository(RegistrationPostbackStateEntity) private readonly states: Repository<RegistrationPostbackStateEntity>,
    @InjectRepository(RegistrationEntity) private readonly registrationRows: Repository<RegistrationEntity>,
    private readonly registrations: RegistrationsService,
    private readonly settings: SettingsService,
    private readonly sender: RegistrationPostback,
    private readonly jobs: JobQueue,
    private readonly keys: KeyRing,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.queue = registrationPostbackQueue(config.jobs.postbackBackoffMs);
  }

  onModuleInit(): void {
    this.jobs.register(this.queue, (payload, ctx) => this.deliver(payload, ctx));
  }

  /**
   * Asks for a postback of a registration whose progress changed (call after the change committed). Never throws:
   * the change is saved whatever happens here; a failure is logged. `configured`: the caller already knows the
   * registration has a postback URL (the player resolves it once per launch, see hasTarget), so no reads go into
   * finding out.
   */
  async schedule(appId: string, registrationId: string, instance: number, configured = false): Promise<void> {
    try {
      if (!configured) {
        const reg = await this.registrationRows.findOneBy({ appId, id: registrationId });
        if (!reg || !(await this.target(appId, reg, instance))) return;
      }
      await this.bump(appId, registrationId, instance);
      const state = await this.states.findOneByOrFail({ appId, registrationId });
      await this.enqueue(appId, registrationId, state.instance, state.settledSeq);
    } catch (err) {
      this.logger.error({ msg: 'registration postback not scheduled', appId, registrationId, instance, err: err instanceof Error ? err.message : String(err) });
    }
  }

  /**
   * Whether a registration has somewhere to post to: its postBack URL, else ApiRollupRegistrationPostBackUrl among
   * `values`, the effective POSTBACK_SETTING_IDS of its instance the caller has read (with its other settings).
   */
  hasTarget(reg: RegistrationEntity, values: ReadonlyMap<string, string>): boolean {
    return Boolean(reg.postBack?.url || values.get('ApiRollupRegistrationPostBackUrl')?.trim());
  }

  /** requestedSeq + 1 (creating the row first), and the instance of this change. */
  private async bump(appId: string, registrationId: string, instance: number): Promise<void> {
    const increment = () =>
      this.states
        .createQueryBuilder()
        .update()
        .set({ requestedSeq: () => 'requested_seq + 1', instance, updatedAt: new Date() })
        .where('app_id = :appId AND registration_id = :registrationId', { appId, registrationId })
        .execute();
    if ((await increment()).affected) return;
    // The first change: create the row (a concurrent first change may have done so), then count this one.
    await this.states.createQueryBuilder().insert().values({ appId, registrationId, instance, requestedSeq: 0, settledSeq: 0, updatedAt: new Date() }).orIgnore().execute();
    if (!(await increment()).affected) throw new Error('could not record the postback sequence');
  }

  /** The pending job of a registration: one id per (registration, settled sequence), so enqueueing twice is a no-op. */
  private async enqueue(appId: string, registrationId: string, instance: number, after: number): Promise<void> {
    const hash = createHash('sha256').update(`${appId}\n${registrationId}\n${after}`).digest('hex');
    const jobId = `${hash.slice(0, 8)}-${hash.slice(8, 12)}-5${hash.slice(13, 16)}-8${hash.slice(17, 20)}-${hash.slice(20, 32)}`;
    await this.jobs.enqueue(this.queue, { appId, registrationId, instance, after }, { appId, jobId });
  }

  private async deliver(payload: RegistrationPostbackPayload, ctx: JobContext): Promise<unknown> {
    const { appId, registrationId } = payload;
    const state = await this.states.findOneBy({ appId, registrationId });
    // Stale: a later job has already dealt with this registration (or nothing is left to send).
    if (!state || state.settledSeq > payload.after || state.requestedSeq <= state.settledSeq) return { delivered: false, reason: 'stale' };
    const seq = state.requestedSeq;
    const instance = state.instance;
    let outcome: { delivered: boolean; reason?: string; sequence: number };
    try {
      outcome = { ...(await this.send(appId, registrationId, instance, seq)), sequence: seq };
    } catch (err) {
      if (ctx.attempt >= (this.queue.maxAttempts ?? 1)) {
        // Given up after a day: later changes get a job of their own.
        this.logger.warn({ msg: 'registration postback given up', appId, registrationId, sequence: seq, err: err instanceof Error ? err.message : String(err) });
        await this.settle(appId, registrationId, seq);
      }
      throw err;
    }
    await this.settle(appId, registrationId, seq);
    return outcome;
  }

  /** Posts the current state; resolves without sending when there is nothing (left) to send to. */
  private async send(appId: string, registrationId: string, instance: number, seq: number): Promise<{ delivered: boolean; reason?: string }> {
    const reg = await this.registrationRows.findOneBy({ appId, id: registrationId });
    if (!reg) return { delivered: false, reason: 'registration deleted' };
    let postBack: PostBackDto | null;
    try {
      postBack = await this.target(appId, reg, instance);
    } catch (err) {
      if (err instanceof NotFoundError) return { delivered: false, reason: 'instance deleted' };
      throw err;
    }
    if (!postBack?.url) return { delivered: false, reason: 'no postback URL' };
    const problem = httpUrlProblem(postBack.url, 'url');
    if (problem) return { delivered: false, reason: problem };
    const view = await this.registrations.progress(appId, registrationId, { includeChildResults: true, includeRuntime: true, includeInteractionsAndObjectives: true }, instance);
    const key = postbackSigningKey(this.keys, appId);
    const options = postbackOptionsOf(await this.settings.effective(appId, { level: 'application' }, POSTBACK_REQUEST_SETTING_IDS));
    await this.sender.send(
      postBack,
      view,
      (body) => ({
        'x-lcds-signature': postbackSignature(key, body, Math.floor(Date.now() / 1000)),
        'x-lcds-delivery': randomUUID(),
        'x-lcds-sequence': String(seq),
      }),
      options,
    );
    return { delivered: true };
  }

  /** Marks `seq` dealt with, then queues the next job when changes came in meanwhile. */
  private async settle(appId: string, registrationId: string, seq: number): Promise<void> {
    await this.states
      .createQueryBuilder()
      .update()
      .set({ settledSeq: seq, updatedAt: new Date() })
      .where('app_id = :appId AND registration_id = :registrationId AND settled_seq < :seq', { appId, registrationId, seq })
      .execute();
    const state = await this.states.findOneBy({ appId, registrationId });
    if (state && state.requestedSeq > state.settledSeq) await this.enqueue(appId, registrationId, state.instance, state.settledSeq);
  }

  /** The registration's postBack, else the ApiRollupRegistration* settings of the instance; null when neither has a URL. */
  private async target(appId: string, reg: RegistrationEntity, instance: number): Promise<PostBackDto | null> {
    if (reg.postBack?.url) return this.registrations.openPostBack(reg.postBack);
    const target = await this.registrations.settingTarget(appId, reg.id, instance);
    const values = await this.settings.effective(appId, target, POSTBACK_SETTING_IDS);
    const url = values.get('ApiRollupRegistrationPostBackUrl')?.trim();
    if (!url) return null;
    const user = values.get('ApiRollupRegistrationAuthUser');
    const password = values.get('ApiRollupRegistrationAuthPassword');
    return {
      url,
      authType: AUTH_TYPES[(values.get('ApiRollupRegistrationAuthType') ?? '').toLowerCase()] ?? 'FORM',
      ...(user ? { userName: user } : {}),
      ...(password ? { password } : {}),
      resultsFormat: FORMATS[(values.get('ApiRollupRegistrationFormat') ?? '').toLowerCase()] ?? 'ACTIVITY',
    };
  }
}
