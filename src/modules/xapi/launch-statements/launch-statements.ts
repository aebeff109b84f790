import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsNumber, IsObject, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/app-config';
import { defineQueue, JobQueue } from '../../../platform/queue/job-queue';
import { CourseVersionEntity } from '../../courses/entities/course-version.entity';
import type { FlatCmi, ScormVersion } from '../../player/scorm-runtime';
import { RegistrationEntity } from '../../registrations/entities/registration.entity';
import { RegistrationInstanceEntity } from '../../registrations/entities/registration-instance.entity';
import { XapiLaunchStateEntity } from '../entities/xapi-launch-state.entity';
import { XapiCredentialsService } from '../xapi-credentials.service';
import { XapiStatementsService } from '../xapi-statements.service';
import { commitStatements, LaunchContext, launchStatements, NOTHING_REPORTED, relevantCmi, ReportedState, stableUuid } from './scorm-profile';

/** A launch (kind `launch`) or an applied commit (kind `commit`) of a SCORM activity, to be told as xAPI statements. */
export class LaunchStatementsPayload {
  @IsIn(['launch', 'commit']) kind!: 'launch' | 'commit';
  @IsString() @IsNotEmpty() appId!: string;
  @IsString() @IsNotEmpty() registrationId!: string;
  @IsInt() @Min(0) instance!: number;
  @IsString() @IsNotEmpty() activityId!: string;
  @IsIn(['1.2', '2004']) standard!: ScormVersion;
  /** ms since the epoch: the statements' timestamp. */
  @IsInt() @Min(0) at!: number;
  /** commit: the registration's commit sequence; launch: the session id's hash-free key. */
  @IsString() @IsNotEmpty() key!: string;
  @IsOptional() @IsInt() @Min(0) seq?: number;
  @IsOptional() @IsObject() cmi?: FlatCmi;
  @IsOptional() @IsBoolean() final?: boolean;
  @IsOptional() @IsBoolean() resumed?: boolean;
  @IsOptional() @IsNumber() passing?: number;
}

export const LAUNCH_STATEMENTS_QUEUE = defineQueue<LaunchStatementsPayload>({
  name: 'xapi-launch-statements',
  payloadClass: LaunchStatementsPayload,
  maxAttempts: 5,
  backoffMs: 2_000,
  timeoutMs: 30_000,
});

/** At most this many commits a job. */
const MAX_BATCH = 200;

/** The applied commits of a few milliseconds (of any registrations), in the order they were applied. */
export class LaunchStatementsBatchPayload {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BATCH)
  @ValidateNested({ each: true })
  @Type(() => LaunchStatementsPayload)
  items!: LaunchStatementsPayload[];
}

export const LAUNCH_STATEMENTS_BATCH_QUEUE = defineQueue<LaunchStatementsBatchPayload>({
  name: 'xapi-launch-statements-batch',
  payloadClass: LaunchStatementsBatchPayload,
  // Built by commitApplied from typed values; class-validator on enqueue cost ~5 % of a commit's CPU.
  validate: 'run',
  maxAttempts: 5,
  backoffMs: 2_000,
  timeoutMs: 120_000,
});

interface ContextRows {
  reg: RegistrationEntity | null;
  inst: Pick<RegistrationInstanceEntity, 'courseVersion'> | null;
  version: CourseVersionEntity | null;
}
type ContextMemo = Map<string, Promise<ContextRows>>;

/**
 * Statements from SCORM launches, as SCORM Cloud records them in the application's LRS (ADL xAPI SCORM Profile, see
 * scorm-profile.ts). The player calls `launched` and `commitApplied` without waiting: each only queues a job (the
 * commit's relevant data model elements travel in the payload), so the commit path gets no extra database reads. The
 * job compares the commit with what was reported before (XapiLaunchStateEntity, guarded by the commit sequence, so an
 * older commit that runs late states nothing) and stores the new statements with ids derived from the commit.
 */
@Injectable()
export class LaunchStatements implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(LaunchStatements.name);
  /** Applied commits not queued yet, by application (see commitApplied). */
  private pending = new Map<string, LaunchStatementsPayload[]>();
  /** The queueing under way; commits applied meanwhile wait in `pending` for the next round. */
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly jobs: JobQueue,
    private readonly statements: XapiStatementsService,
    private readonly credentials: XapiCredentialsService,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register(LAUNCH_STATEMENTS_QUEUE, (payload) => this.record(payload));
    this.jobs.register(LAUNCH_STATEMENTS_BATCH_QUEUE, (payload) => this.recordBatch(payload));
  }

  /** Before the queues and the database close: the commits still gathered are queued. */
  async onModuleDestroy(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** A tracked launch opened a session on an activity (resumed: its last exit was suspend). Never throws, never waits. */
  launched(p: { appId: string; registrationId: string; instance: number; activityId: string; standard: ScormVersion; sessionId: string; resumed: boolean; at: Date }): void {
    this.enqueue({ kind: 'launch', appId: p.appId, registrationId: p.registrationId, instance: p.instance, activityId: p.activityId, standard: p.standard, at: p.at.getTime(), key: p.sessionId, resumed: p.resumed });
  }

  /**
   * A commit was applied (after its transaction). Never throws, never waits. At runtime-commit rates a job per commit
   * (a job row, a Redis add, payload validation) costs more than the commit itself, so commits are batched the
   * natural way: with nothing being queued, a commit is queued at once (alone, as before); while a queueing is under
   * way, the commits applied meanwhile gather and go as one job when it is done. A job records its commits in order;
   * a retried batch skips the commits it did already (the sequence guard of record), and the statements' ids come
   * from the commit, so nothing is stated twice.
   */
  commitApplied(p: { appId: string; registrationId: string; instance: number; activityId: string; standard: ScormVersion; seq: number; cmi: FlatCmi; final: boolean; passing?: number; at: Date }): void {
    let items = this.pending.get(p.appId);
    if (!items) this.pending.set(p.appId, (items = []));
    items.push({
      kind: 'commit',
      appId: p.appId,
      registrationId: p.registrationId,
      instance: p.instance,
      activityId: p.activityId,
      standard: p.standard,
      at: p.at.getTime(),
      key: String(p.seq),
      seq: p.seq,
      cmi: relevantCmi(p.cmi),
      final: p.final,
      ...(p.passing !== undefined ? { passing: p.passing } : {}),
    });
    if (!this.flushing) this.startFlush();
  }

  private startFlush(): void {
    this.flushing = this.flush().finally(() => {
      this.flushing = null;
      // Applied between the last round and now.
      if (this.pending.size > 0) this.startFlush();
    });
  }

  /** Queues what is pending, one job per application and MAX_BATCH commits, until nothing is left. Never throws. */
  private async flush(): Promise<void> {
    while (this.pending.size > 0) {
      const batches = [...this.pending];
      this.pending = new Map();
      const jobs = batches.flatMap(([appId, items]) => Array.from({ length: Math.ceil(items.length / MAX_BATCH) }, (_, i) => ({ appId, items: items.slice(i * MAX_BATCH, (i + 1) * MAX_BATCH) })));
      await Promise.all(
        jobs.map(async ({ appId, items }) => {
          try {
            await this.jobs.enqueue(LAUNCH_STATEMENTS_BATCH_QUEUE, { items }, { appId, jobId: randomUUID() });
          } catch (err) {
            this.logger.error({ msg: 'launch statements not queued', appId, commits: items.length, err: err instanceof Error ? err.message : String(err) });
          }
        }),
      );
    }
  }

  /** The commits of a batch, in order; one that fails does not stop the others, and makes the job retry. */
  private async recordBatch(batch: LaunchStatementsBatchPayload): Promise<unknown> {
    let stored = 0;
    let failed: Error | null = null;
    // A batch holds several commits of the same launch: its registration, instance and course are read once.
    const contexts: ContextMemo = new Map();
    for (const item of batch.items) {
      try {
        const outcome = (await this.record(item, contexts)) as { stored?: number };
        stored += outcome.stored ?? 0;
      } catch (err) {
        failed ??= err instanceof Error ? err : new Error(String(err));
      }
    }
    if (failed) throw failed;
    return { commits: batch.items.length, stored };
  }

  private enqueue(payload: LaunchStatementsPayload): void {
    const jobId = stableUuid('launch-statements', payload.appId, payload.registrationId, payload.instance, payload.activityId, payload.kind, payload.key);
    this.jobs.enqueue(LAUNCH_STATEMENTS_QUEUE, payload, { appId: payload.appId, jobId }).catch((err: unknown) => {
      this.logger.error({ msg: 'launch statements not queued', appId: payload.appId, registrationId: payload.registrationId, err: err instanceof Error ? err.message : String(err) });
    });
  }

  async purgeApplication(appId: string): Promise<void> {
    await this.dataSource.getRepository(XapiLaunchStateEntity).delete({ appId });
  }

  private async record(p: LaunchStatementsPayload, contexts?: ContextMemo): Promise<unknown> {
    const context = await this.context(p, contexts);
    if (!context) return { skipped: 'registration or course gone' };
    const at = new Date(p.at);
    const authority = { objectType: 'Agent', name: 'LCDS player', account: { homePage: this.credentials.endpoint(p.appId), name: p.appId } };
    const keyBase = `${p.appId}\n${p.registrationId}\n${p.instance}\n${p.activityId}`;
    if (p.kind === 'launch') {
      const list = launchStatements(context, at, `${keyBase}\nlaunch\n${p.key}`, p.resumed === true);
      await this.statements.storeStatements(p.appId, list, authority);
      return { stored: list.length };
    }
    const where = { appId: p.appId, registrationId: p.registrationId, instance: p.instance, activityId: p.activityId };
    const repo = this.dataSource.getRepository(XapiLaunchStateEntity);
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = await repo.findOneBy(where);
      const seq = p.seq ?? 0;
      if (row && Number(row.seq) >= seq) return { skipped: 'a later commit was reported already' };
      const previous = row ? (JSON.parse(row.reported) as ReportedState) : NOTHING_REPORTED;
      const { statements, state } = commitStatements(context, p.cmi ?? {}, previous, at, `${keyBase}\ncommit\n${p.key}`, p.final === true, p.passing);
      const now = new Date();
      // Claim the step from `row.seq` to `seq`: a concurrent job for another commit of this activity makes one of them retry.
      const claimed = row ? await this.advance(where, Number(row.seq), seq, state, now) : await this.first(where, seq, state, now);
      if (!claimed) continue;
      if (statements.length === 0) return { stored: 0 };
      try {
        await this.statements.storeStatements(p.appId, statements, authority);
      } catch (err) {
        // Give the step back so the retry of this job states it again.
        if (row) await repo.update({ ...where, seq }, { seq: row.seq, reported: row.reported });
        else await repo.delete({ ...where, seq });
        throw err;
      }
      return { stored: statements.length };
    }
    throw new Error('launch statements: the activity kept changing; retrying');
  }

  private async advance(where: Pick<XapiLaunchStateEntity, 'appId' | 'registrationId' | 'instance' | 'activityId'>, from: number, seq: number, state: ReportedState, now: Date): Promise<boolean> {
    const res = await this.dataSource
      .getRepository(XapiLaunchStateEntity)
      .createQueryBuilder()
      .update()
      .set({ seq, reported: JSON.stringify(state), updatedAt: now })
      .where(where)
      .andWhere('seq = :from', { from })
      .execute();
    return (res.affected ?? 0) > 0;
  }

  private async first(where: Pick<XapiLaunchStateEntity, 'appId' | 'registrationId' | 'instance' | 'activityId'>, seq: number, state: ReportedState, now: Date): Promise<boolean> {
    try {
      await this.dataSource.getRepository(XapiLaunchStateEntity).insert({ ...where, seq, reported: JSON.stringify(state), updatedAt: now });
      return true;
    } catch {
      // Another commit's job created the row first: read it and go again.
      return false;
    }
  }

  private async context(p: LaunchStatementsPayload, contexts?: ContextMemo): Promise<LaunchContext | null> {
    const memoKey = `${p.appId}\n${p.registrationId}\n${p.instance}`;
    let rows = contexts?.get(memoKey);
    if (!rows) {
      rows = this.contextRows(p);
      contexts?.set(memoKey, rows);
    }
    const { reg, inst, version } = await rows;
    if (!reg || !inst || !version) return null;
    const launchable = version.package?.launchables.find((a) => a.id === p.activityId);
    const name = [reg.learnerFirstName, reg.learnerLastName].filter((x) => x).join(' ');
    return {
      publicUrl: this.config.publicUrl,
      courseId: reg.courseId,
      courseTitle: version.title,
      activityId: p.activityId,
      activityTitle: launchable?.title ?? p.activityId,
      learner: { id: reg.learnerId, ...(name ? { name } : {}) },
      registration: reg.xapiRegistrationId,
      instance: p.instance,
      standard: p.standard,
    };
  }
  /** The rows a launch's statements name: the registration, its instance's course version (only that column), the version. */
  private async contextRows(p: LaunchStatementsPayload): Promise<ContextRows> {
    const reg = await this.dataSource.getRepository(RegistrationEntity).findOneBy({ appId: p.appId, id: p.registrationId });
    const inst = reg
      ? await this.dataSource.getRepository(RegistrationInstanceEntity).findOne({ where: { appId: p.appId, registrationId: p.registrationId, instance: p.instance }, select: { courseVersion: true } })
      : null;
    const version = inst ? await this.dataSource.getRepository(CourseVersionEntity).findOneBy({ appId: p.appId, courseId: reg!.courseId, version: inst.courseVersion }) : null;
    return { reg, inst, version };
  }

}
