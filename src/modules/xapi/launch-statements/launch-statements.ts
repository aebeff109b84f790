import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsNumber, IsObject, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { DataSource, In } from 'typeorm';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/app-config';
import { defineQueue, JobQueue } from '../../../platform/queue/job-queue';
import { CourseVersionEntity } from '../../courses/entities/course-version.entity';
import type { FlatCmi, ScormVersion } from '../../player/scorm-runtime';
import { RegistrationEntity } from '../../registrations/entities/registration.entity';
import { RegistrationInstanceEntity } from '../../registrations/entities/registration-instance.entity';
import { XapiLaunchStateEntity } from '../entities/xapi-launch-state.entity';
import { XapiCredentialsService } from '../xapi-credentials.service';
import type { Json } from '../lrs/statement-keys';
import { XapiStatementsService } from '../xapi-statements.service';
import { commitStatements, LaunchContext, launchStatements, NOTHING_REPORTED, relevantCmi, ReportedState, stableUuid, StatementSubject } from './scorm-profile';

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
  /** commit: what the statements name, as the session knew it at launch (sessions of an earlier version: none, read from the rows). */
  @IsOptional() @IsObject() subject?: StatementSubject;
  /** commit: the interactions the activity had before it; `cmi` holds only those from this index on (relevantCmi). */
  @IsOptional() @IsInt() @Min(0) interactionsFrom?: number;
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

/**
 * How long applied commits gather before they are queued, from the first one after a quiet spell. Every job costs a
 * job row, a queue add and its own reads of the launch states and contexts; at runtime-commit rates gathering for a
 * moment turns a job per commit or two into one per application every few dozen commits.
 */
export const GATHER_MS = 50;

/** The commits applied in a GATHER_MS window (of any registrations of one application), in the order they were applied. */
export class LaunchStatementsBatchPayload {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BATCH)
  @ValidateNested({ each: true })
  @Type(() => LaunchStatementsPayload)
  items!: LaunchStatementsPayload[];
}

/** The problems of one batch item, as LaunchStatementsPayload's decorators would find them (by hand: see checkBatch). */
function itemProblems(x: unknown, at: string): string[] {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return [`${at} must be an object`];
  const o = x as Record<string, unknown>;
  const out: string[] = [];
  const need = (ok: boolean, field: string, what: string) => {
    if (!ok) out.push(`${at}.${field} must be ${what}`);
  };
  const str = (v: unknown) => typeof v === 'string' && v !== '';
  const int = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
  const optional = (field: string, ok: (v: unknown) => boolean, what: string) => o[field] === undefined || need(ok(o[field]), field, what);
  const obj = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  need(o.kind === 'launch' || o.kind === 'commit', 'kind', 'launch or commit');
  for (const f of ['appId', 'registrationId', 'activityId', 'key']) need(str(o[f]), f, 'a non-empty string');
  need(int(o.instance), 'instance', 'an integer ≥ 0');
  need(o.standard === '1.2' || o.standard === '2004', 'standard', '1.2 or 2004');
  need(int(o.at), 'at', 'an integer ≥ 0');
  optional('seq', int, 'an integer ≥ 0');
  optional('interactionsFrom', int, 'an integer ≥ 0');
  optional('cmi', obj, 'an object');
  optional('subject', obj, 'an object');
  optional('final', (v) => typeof v === 'boolean', 'a boolean');
  optional('resumed', (v) => typeof v === 'boolean', 'a boolean');
  optional('passing', (v) => typeof v === 'number' && Number.isFinite(v), 'a number');
  return out;
}

/** LaunchStatementsBatchPayload checked by hand: the same rules, a hundredth of class-validator's CPU on 200 items. */
function checkBatch(payload: Record<string, unknown>): string[] {
  const items = payload.items;
  if (!Array.isArray(items) || items.length < 1 || items.length > MAX_BATCH) return [`items must be an array of 1 to ${MAX_BATCH} commits`];
  return items.flatMap((item, i) => itemProblems(item, `items[${i}]`));
}

export const LAUNCH_STATEMENTS_BATCH_QUEUE = defineQueue<LaunchStatementsBatchPayload>({
  name: 'xapi-launch-statements-batch',
  check: checkBatch,
  // Built by commitApplied from typed values: checked when it runs, not on enqueue.
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

type ActivityWhere = Pick<XapiLaunchStateEntity, 'appId' | 'registrationId' | 'instance' | 'activityId'>;

/** The commits of a batch for one activity, in order, and what recording them from the stored state gives. */
interface ActivityCommits {
  where: ActivityWhere;
  context: LaunchContext;
  items: Array<{ index: number; item: LaunchStatementsPayload }>;
  /** The stored row read for this round (null: none yet). */
  row: XapiLaunchStateEntity | null;
  seq: number;
  state: ReportedState;
  statements: Array<{ index: number; list: unknown[] }>;
  /**
   * The first commit to state left out interactions (interactionsFrom) that the reported state has not stated yet:
   * the batch of the commits before it has not been recorded (another worker process has it, or it is retried).
   */
  gap: boolean;
}

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
  /** Queues `pending` when the gathering window closes. */
  private timer: NodeJS.Timeout | null = null;
  /** The queueings, one after the other so jobs are queued in the order their commits were applied. */
  private queued: Promise<void> = Promise.resolve();
  /** The last batch job of each application this process runs (see recordInTurn). */
  private recording = new Map<string, Promise<void>>();

  constructor(
    private readonly jobs: JobQueue,
    private readonly statements: XapiStatementsService,
    private readonly credentials: XapiCredentialsService,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register(LAUNCH_STATEMENTS_QUEUE, (payload) => this.record(payload));
    this.jobs.register(LAUNCH_STATEMENTS_BATCH_QUEUE, (payload, context) => this.recordInTurn(payload, context.attempt >= (LAUNCH_STATEMENTS_BATCH_QUEUE.maxAttempts ?? 1)));
  }

  /** Before the queues and the database close: the commits still gathered are queued. */
  async onModuleDestroy(): Promise<void> {
    this.flush();
    await this.queued;
  }

  /** A tracked launch opened a session on an activity (resumed: its last exit was suspend). Never throws, never waits. */
  launched(p: { appId: string; registrationId: string; instance: number; activityId: string; standard: ScormVersion; sessionId: string; resumed: boolean; at: Date }): void {
    this.enqueue({ kind: 'launch', appId: p.appId, registrationId: p.registrationId, instance: p.instance, activityId: p.activityId, standard: p.standard, at: p.at.getTime(), key: p.sessionId, resumed: p.resumed });
  }

  /**
   * A commit was applied (after its transaction). Never throws, never waits. At runtime-commit rates a job per commit
   * (a job row, a Redis add, its own reads and writes) costs more than the commit itself, so commits gather for
   * GATHER_MS from the first one after a quiet spell (or until an application has MAX_BATCH) and go as one job per
   * application. A job records its commits in order; a retried batch skips the commits it did already (the sequence
   * guard), and the statements' ids come from the commit, so nothing is stated twice.
   */
  commitApplied(p: { appId: string; registrationId: string; instance: number; activityId: string; standard: ScormVersion; seq: number; cmi: FlatCmi; final: boolean; passing?: number; at: Date; subject?: StatementSubject; interactionsBefore?: number }): void {
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
      cmi: relevantCmi(p.cmi, p.interactionsBefore),
      final: p.final,
      ...(p.passing !== undefined ? { passing: p.passing } : {}),
      ...(p.subject ? { subject: p.subject } : {}),
      ...(p.interactionsBefore ? { interactionsFrom: p.interactionsBefore } : {}),
    });
    if (items.length >= MAX_BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), GATHER_MS);
  }

  /** Queues what is pending, one job per application and MAX_BATCH commits, after the queueings before it. Never throws. */
  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.size === 0) return;
    const jobs = [...this.pending].flatMap(([appId, items]) => Array.from({ length: Math.ceil(items.length / MAX_BATCH) }, (_, i) => ({ appId, items: items.slice(i * MAX_BATCH, (i + 1) * MAX_BATCH) })));
    this.pending = new Map();
    this.queued = this.queued.then(async () => {
      for (const { appId, items } of jobs) {
        try {
          await this.jobs.enqueue(LAUNCH_STATEMENTS_BATCH_QUEUE, { items }, { appId, jobId: randomUUID() });
        } catch (err) {
          this.logger.error({ msg: 'launch statements not queued', appId, commits: items.length, err: err instanceof Error ? err.message : String(err) });
        }
      }
    });
  }

  /**
   * Runs an application's batch jobs one after the other in this process. Jobs run several at once, and a batch that
   * overtakes the one before it claims its activities first, so the earlier commits, then late, would state nothing.
   */
  private recordInTurn(batch: LaunchStatementsBatchPayload, lastAttempt: boolean): Promise<unknown> {
    const appId = batch.items[0].appId;
    const run = (this.recording.get(appId) ?? Promise.resolve()).then(() => this.recordBatch(batch, lastAttempt));
    const done = run.then(
      () => undefined,
      () => undefined,
    );
    this.recording.set(appId, done);
    void done.then(() => {
      if (this.recording.get(appId) === done) this.recording.delete(appId);
    });
    return run;
  }

  /**
   * The commits of a batch, as recording them one by one in order would: each activity's commits are stated against
   * the state its previous commit left; the states are read and written in one transaction of two queries (claim),
   * then the statements stored with one call per application. A failure to store gives the steps back and makes
   * the job retry.
   */
  private async recordBatch(batch: LaunchStatementsBatchPayload, lastAttempt = true): Promise<unknown> {
    let stored = 0;
    for (const item of batch.items) if (item.kind !== 'commit') stored += ((await this.record(item)) as { stored?: number }).stored ?? 0;
    const commits = batch.items.filter((item) => item.kind === 'commit');
    const contexts = await this.batchContexts(commits);
    const byActivity = new Map<string, ActivityCommits>();
    commits.forEach((item, index) => {
      const key = activityKey(item);
      let group = byActivity.get(key);
      if (!group) {
        const context = this.launchContext(contexts.get(contextKey(item))!, item);
        // Registration or course gone: nothing to state.
        if (!context) return;
        const where = { appId: item.appId, registrationId: item.registrationId, instance: item.instance, activityId: item.activityId };
        byActivity.set(key, (group = { where, context, items: [], row: null, seq: -1, state: NOTHING_REPORTED, statements: [], gap: false }));
      }
      group.items.push({ index, item });
    });
    const claimed = await this.claim([...byActivity.values()], lastAttempt);
    const byApp = new Map<string, Array<{ index: number; list: unknown[] }>>();
    for (const g of claimed) {
      if (g.statements.length === 0) continue;
      const lists = byApp.get(g.where.appId) ?? [];
      lists.push(...g.statements);
      byApp.set(g.where.appId, lists);
    }
    try {
      for (const [appId, lists] of byApp) {
        const statements: unknown[] = [];
        for (const x of lists.sort((l, r) => l.index - r.index)) statements.push(...x.list);
        await this.statements.storeStatements(appId, statements, this.authority(appId));
        stored += statements.length;
      }
    } catch (err) {
      // Give the steps back so the retry of this job states them again (ids from the commits: nothing twice).
      await this.giveBack(claimed);
      throw err;
    }
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

  /** A launch's statements; a commit queued alone (by an earlier version) is recorded as a batch of one. */
  private async record(p: LaunchStatementsPayload): Promise<unknown> {
    if (p.kind === 'commit') return this.recordBatch({ items: [p] });
    const rows = await this.contextRows(p);
    const context = this.launchContext(rows, p);
    if (!context) return { skipped: 'registration or course gone' };
    const list = launchStatements(context, new Date(p.at), `${activityKey(p)}\nlaunch\n${p.key}`, p.resumed === true);
    await this.statements.storeStatements(p.appId, list, this.authority(p.appId));
    return { stored: list.length };
  }

  private authority(appId: string): Json {
    return { objectType: 'Agent', name: 'LCDS player', account: { homePage: this.credentials.endpoint(appId), name: appId } };
  }

  /**
   * Reads the groups' launch states and writes what their commits lead to, in one transaction: the rows are locked
   * from the read to the write (SQLite runs one writer at a time), so a concurrent job for the same activities waits
   * and then sees this one's step. Returns the groups that advanced; those whose commits were all reported already
   * (a retried batch, a later job that ran first) state nothing.
   */
  private async claim(groups: ActivityCommits[], lastAttempt: boolean): Promise<ActivityCommits[]> {
    if (groups.length === 0) return [];
    const lock = this.dataSource.options.type === 'mysql' ? ({ mode: 'pessimistic_write' } as const) : undefined;
    return this.dataSource.transaction(async (m) => {
      // By registration (a short IN list): a batch's activities are those of its registrations, seldom others.
      const byKey = new Map<string, XapiLaunchStateEntity>();
      for (const [appId, registrationIds] of registrationsByApp(groups.map((g) => g.where))) {
        const rows = await m.find(XapiLaunchStateEntity, { where: { appId, registrationId: In(registrationIds) }, ...(lock ? { lock } : {}) });
        for (const r of rows) byKey.set(activityKey(r), r);
      }
      for (const g of groups) plan(g, byKey.get(activityKey(g.where)) ?? null);
      // A batch that overtook the one before it (several worker processes): wait for that one rather than state its
      // commits' changes late, and their new interactions never. The last attempt states what it can.
      const gaps = groups.filter((g) => g.gap);
      if (gaps.length > 0) {
        if (!lastAttempt) throw new Error(`launch statements: the commits before this batch are not recorded yet (${gaps.length} activities); retrying`);
        this.logger.warn({ msg: 'launch statements: earlier commits were never recorded; their new interactions are not stated', activities: gaps.map((g) => g.where) });
      }
      const advancing = groups.filter((g) => g.seq > (g.row ? Number(g.row.seq) : -1));
      if (advancing.length === 0) return [];
      const now = new Date();
      const meta = m.connection.getMetadata(XapiLaunchStateEntity);
      const column = (property: keyof XapiLaunchStateEntity) => meta.findColumnWithPropertyName(property)!.databaseName;
      await m
        .createQueryBuilder()
        .insert()
        .into(XapiLaunchStateEntity)
        .values(advancing.map((g) => ({ ...g.where, seq: g.seq, reported: JSON.stringify(g.state), updatedAt: now })))
        .orUpdate(
          (['seq', 'reported', 'updatedAt'] as const).map(column),
          (['appId', 'registrationId', 'instance', 'activityId'] as const).map(column),
        )
        .execute();
      return advancing;
    });
  }

  /** Undoes claim for these groups (their statements were not stored), unless a later job moved them on since. */
  private async giveBack(groups: ActivityCommits[]): Promise<void> {
    if (groups.length === 0) return;
    await this.dataSource.transaction(async (m) => {
      for (const g of groups) {
        if (g.row) await m.update(XapiLaunchStateEntity, { ...g.where, seq: g.seq }, { seq: g.row.seq, reported: g.row.reported });
        else await m.delete(XapiLaunchStateEntity, { ...g.where, seq: g.seq });
      }
    });
  }

  /** What the statements of these commits name, read in three queries whatever the number of registrations. */
  private async batchContexts(items: LaunchStatementsPayload[]): Promise<Map<string, ContextRows>> {
    const out = new Map<string, ContextRows>();
    const byApp = new Map<string, Map<string, LaunchStatementsPayload>>();
    for (const item of items) {
      let launches = byApp.get(item.appId);
      if (!launches) byApp.set(item.appId, (launches = new Map<string, LaunchStatementsPayload>()));
      launches.set(contextKey(item), item);
    }
    for (const [appId, launches] of byApp) {
      const list = [...launches.values()];
      const registrationIds = [...new Set(list.map((p) => p.registrationId))];
      const regs = new Map((await this.dataSource.getRepository(RegistrationEntity).findBy({ appId, id: In(registrationIds) })).map((r) => [r.id, r]));
      // Commits that carry their subject need only know that the registration is still there (not erased).
      const present = list.filter((p) => regs.has(p.registrationId) && !p.subject);
      const insts =
        present.length > 0
          ? await this.dataSource.getRepository(RegistrationInstanceEntity).find({
              where: { appId, registrationId: In([...new Set(present.map((p) => p.registrationId))]) },
              select: { registrationId: true, instance: true, courseVersion: true },
            })
          : [];
      const instOf = new Map(insts.map((i) => [`${i.registrationId}\n${i.instance}`, i]));
      const versionKeys = new Map<string, { appId: string; courseId: string; version: number }>();
      for (const i of insts) {
        const courseId = regs.get(i.registrationId)!.courseId;
        versionKeys.set(`${courseId}\n${i.courseVersion}`, { appId, courseId, version: i.courseVersion });
      }
      const versions = versionKeys.size > 0 ? await this.dataSource.getRepository(CourseVersionEntity).find({ where: [...versionKeys.values()] }) : [];
      const versionOf = new Map(versions.map((v) => [`${v.courseId}\n${v.version}`, v]));
      for (const [key, p] of launches) {
        const reg = regs.get(p.registrationId) ?? null;
        const inst = reg ? (instOf.get(`${p.registrationId}\n${p.instance}`) ?? null) : null;
        const version = inst ? (versionOf.get(`${reg!.courseId}\n${inst.courseVersion}`) ?? null) : null;
        out.set(key, { reg, inst, version });
      }
    }
    return out;
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

  /** Null when the registration, its instance or its course version is gone. */
  private launchContext({ reg, inst, version }: ContextRows, p: LaunchStatementsPayload): LaunchContext | null {
    if (p.subject) return reg ? { ...p.subject, publicUrl: this.config.publicUrl, activityId: p.activityId, instance: p.instance, standard: p.standard } : null;
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
}

/**
 * The group's statements and resulting state from `row` on, each commit against the state the one before it left,
 * as recording them one by one would: a commit at or before the sequence reported already states nothing.
 */
function plan(group: ActivityCommits, row: XapiLaunchStateEntity | null): void {
  group.row = row;
  group.seq = row ? Number(row.seq) : -1;
  group.state = row ? (JSON.parse(row.reported) as ReportedState) : NOTHING_REPORTED;
  group.statements = [];
  group.gap = false;
  const initialSeq = group.seq;
  const keyBase = activityKey(group.where);
  for (const { index, item } of group.items) {
    const seq = item.seq ?? 0;
    if (seq <= group.seq) continue;
    // The first commit stated here must find every interaction before its own stated already.
    if (group.seq === initialSeq && (item.interactionsFrom ?? 0) > group.state.interactions) group.gap = true;
    const { statements, state } = commitStatements(item.standard === group.context.standard ? group.context : { ...group.context, standard: item.standard }, item.cmi ?? {}, group.state, new Date(item.at), `${keyBase}\ncommit\n${item.key}`, item.final === true, item.passing);
    group.seq = seq;
    group.state = state;
    if (statements.length > 0) group.statements.push({ index, list: statements });
  }
}

function contextKey(p: Pick<LaunchStatementsPayload, 'appId' | 'registrationId' | 'instance'>): string {
  return `${p.appId}\n${p.registrationId}\n${p.instance}`;
}

function registrationsByApp(wheres: ActivityWhere[]): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const w of wheres) {
    let ids = out.get(w.appId);
    if (!ids) out.set(w.appId, (ids = new Set()));
    ids.add(w.registrationId);
  }
  return new Map([...out].map(([appId, ids]) => [appId, [...ids]]));
}

function activityKey(p: ActivityWhere): string {
  return `${p.appId}\n${p.registrationId}\n${p.instance}\n${p.activityId}`;
}
