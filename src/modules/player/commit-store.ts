import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GroupCommitter } from '../../platform/database/group-commit';
import { HotExecute, inHotTransaction, isLockConflict, paddedChunks, padToPowerOfTwo, pipeline, powerOfTwoChunks, sqlOf } from '../../platform/database/hot-statement';
import { EventBus, StagedEvent } from '../../platform/events';
import { INSERT_JOB_SQL, insertJobValues } from '../../platform/queue/job-store';
import { JobEntity } from '../../platform/queue/job.entity';
import { LaunchHistoryEntity } from '../registrations/entities/launch-history.entity';
import { RegistrationEntity } from '../registrations/entities/registration.entity';
import { RegistrationInstanceEntity } from '../registrations/entities/registration-instance.entity';
import { jsonColumn } from '../registrations/entities/json-column';
import { appendHistoryLog, hotAppendStatements } from '../registrations/launch-history-log';
import { ProgressSummary, RegistrationProgressEvents } from '../registrations/registration-progress-events';
import type { Objective } from '../registrations/registration-types';
import { entityManagerWriter, hotStatementWriter, OwnStatements, XapiStatementsService } from '../xapi/xapi-statements.service';

/** What one applied commit writes. */
export interface StoredCommit {
  /** The activity tree's JSON (ActivityResult): a string while the commit waits for its transaction, not an object graph. */
  activityDetails: string;
  completion: string;
  success: string;
  completionAmount: number;
  scoreScaled: number | null;
  totalSeconds: number;
  suspendedActivityId: string | null;
  commitSeq: number;
  launchHistoryId: string | null;
  /** Seconds tracked in this launch (the launch history's totalSecondsTracked). */
  launchSeconds: number;
  /** The player's last commit (unload): the launch ends now. */
  final: boolean;
  /** When the learner did it (first access, completion), if not now (xAPI statements' timestamps). */
  at?: Date;
  /** SCORM 2004: the sequencing engine's new state. */
  sequencingState?: string;
  /** SCORM 2004: the registration's globalObjectives, when the commit changed them. */
  globalObjectives?: Objective[];
  /** The commit's xAPI statements (ADL SCORM profile), stored in its transaction when it is applied. */
  statements?: OwnStatements;
  /** The instance's new xapi_reported (what its activities' statements have reported), with `statements`. */
  xapiReported?: string;
  /** Lines for the launch's history log (launches that capture history), appended in the commit's transaction. */
  historyLog?: string;
  /** The instance's progress before this write: the progress events (their outbox rows in its transaction) are told from it. */
  progressBefore?: ProgressSummary;
}

export interface CommitTarget {
  appId: string;
  registrationId: string;
  instance: number;
}

interface PendingCommit {
  where: CommitTarget;
  expectedSeq: number;
  c: StoredCommit;
  /** Domain events of the write: their outbox rows are inserted with it. */
  events?: StagedEvent[];
}

/** Most commits in one transaction (each is one UPDATE of its instance; the registrations and launches are one statement each). */
const MAX_BATCH = 32;
/** Transactions of commits under way at once (of the pool's connections; DATABASE_POOL_SIZE defaults to 10). */
const WRITERS = 2;

const INSTANCE_SQL = `UPDATE registration_instance SET activity_details = ?, completion = ?, success = ?, completion_amount = ?, score_scaled = ?, total_seconds = ?,
    first_access_at = COALESCE(first_access_at, ?), last_access_at = ?, completed_at = COALESCE(completed_at, ?),
    suspended_activity_id = ?, commit_seq = ?, updated_at = ?, sequencing_state = COALESCE(?, sequencing_state), global_objectives = COALESCE(?, global_objectives),
    xapi_reported = COALESCE(?, xapi_reported)
  WHERE app_id = ? AND registration_id = ? AND instance = ? AND commit_seq = ?`;

/** Batches up to this size update their instances one guarded UPDATE each; larger ones lock, read and upsert (two statements). */
const ROW_BY_ROW = 2;

const UPSERT_SQL_HEAD = `INSERT INTO registration_instance (app_id, registration_id, instance, course_version, created_at, activity_details, completion, success,
    completion_amount, score_scaled, total_seconds, first_access_at, last_access_at, completed_at, suspended_activity_id, commit_seq, updated_at,
    sequencing_state, global_objectives, xapi_reported) VALUES`;
const UPSERT_ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
/**
 * The upsert of instances: each column written only if the instance is still at the commit_seq its row expects
 * (carried as the row's course_version, never inserted: the rows exist, and an optimistic upsert that did insert one
 * is rolled back); a row at another commit_seq is left as it is. commit_seq is set last (MySQL assigns left to right;
 * with MariaDB's SIMULTANEOUS_ASSIGNMENT every guard reads the old value anyway).
 */
const UPSERT_SQL_TAIL = `ON DUPLICATE KEY UPDATE ${(
  [
    ['activity_details', 'VALUES(activity_details)'],
    ['completion', 'VALUES(completion)'],
    ['success', 'VALUES(success)'],
    ['completion_amount', 'VALUES(completion_amount)'],
    ['score_scaled', 'VALUES(score_scaled)'],
    ['total_seconds', 'VALUES(total_seconds)'],
    ['first_access_at', 'COALESCE(first_access_at, VALUES(first_access_at))'],
    ['last_access_at', 'VALUES(last_access_at)'],
    ['completed_at', 'COALESCE(completed_at, VALUES(completed_at))'],
    ['suspended_activity_id', 'VALUES(suspended_activity_id)'],
    ['updated_at', 'VALUES(updated_at)'],
    ['sequencing_state', 'COALESCE(VALUES(sequencing_state), sequencing_state)'],
    ['global_objectives', 'COALESCE(VALUES(global_objectives), global_objectives)'],
    ['xapi_reported', 'COALESCE(VALUES(xapi_reported), xapi_reported)'],
    ['commit_seq', 'VALUES(commit_seq)'],
  ] as const
)
  .map(([column, value]) => `${column} = IF(commit_seq = VALUES(course_version), ${value}, ${column})`)
  .join(', ')}`;

/** The upsert of `rows` instances (one statement shape per length). */
const upsertSql = (rows: number): string => sqlOf(`upsert instances ${rows}`, () => `${UPSERT_SQL_HEAD} ${new Array<string>(rows).fill(UPSERT_ROW).join(', ')} ${UPSERT_SQL_TAIL}`);

/** A date as SQLite keeps DATETIME(3): UTC text 'YYYY-MM-DD HH:MM:SS.SSS' (for raw SQL expressions). */
const dbDatetime = (d: Date): string => d.toISOString().replace('T', ' ').replace('Z', '');

/**
 * Stores applied commits: each instance's summary and tree if it is still at the expected commit_seq (false when
 * another commit won), its xAPI statements, its registration's updated_at (GetRegistrations' `updated` filter and
 * order) and its launch's history row, in one transaction.
 *
 * Commits of many learners arriving together share a transaction (GroupCommitter); a commit's answer waits for its
 * transaction's COMMIT. MySQL: two transactions at once, each of two round trips (its statements pipelined, then
 * COMMIT): guarded upserts of the instances, one UPDATE of all their registrations, one of all their launches, the
 * inserts of their statements and links; if an instance was not at its expected commit_seq, rolled back and done
 * again with the instances locked and read first. SQLite: TypeORM's statements, one transaction at a time (one writer;
 * one fsync a batch).
 */
@Injectable()
export class CommitStore {
  private readonly group: GroupCommitter<PendingCommit>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly lrs: XapiStatementsService,
    private readonly events: EventBus,
    private readonly progressEvents: RegistrationProgressEvents,
  ) {
    const mysql = dataSource.options.type === 'mysql';
    const writeBatch = (items: PendingCommit[]) => (mysql ? this.writeMysql(items) : this.writeTypeorm(items));
    this.group = new GroupCommitter<PendingCommit>(
      {
        keyOf: (p) => `${p.where.appId}\n${p.where.registrationId}\n${p.where.instance}`,
        writeBatch,
        writeOne: async (item) => {
          try {
            return (await writeBatch([item]))[0];
          } catch (err) {
            // Another writer of the same rows (lock order): as when it won the race, the caller reads again and retries.
            if (isLockConflict(err)) return false;
            throw err;
          }
        },
      },
      // SQLite has one writer (and TypeORM's one connection must not interleave two transactions).
      { maxBatch: MAX_BATCH, writers: mysql ? WRITERS : 1 },
    );
  }

  store(where: CommitTarget, expectedSeq: number, c: StoredCommit): Promise<boolean> {
    // Nobody listens (the usual case): the commit pays one check.
    if (!c.progressBefore || !this.progressEvents.listened) return this.group.write({ where, expectedSeq, c });
    return this.storeWithEvents(where, expectedSeq, c, c.progressBefore);
  }

  private async storeWithEvents(where: CommitTarget, expectedSeq: number, c: StoredCommit, before: ProgressSummary): Promise<boolean> {
    const events = (await this.progressEvents.of(where, before, c)).map((e) => this.events.stage(e)).filter((e) => e !== null);
    const applied = await this.group.write({ where, expectedSeq, c, ...(events.length ? { events } : {}) });
    if (applied) for (const staged of events) this.events.committed(staged);
    return applied;
  }

  /**
   * MySQL: first optimistically, every commit's instance still at its expected commit_seq (all but always: a retried
   * or raced commit is rare), then, if one was not, with the instances locked and read first.
   */
  private async writeMysql(items: PendingCommit[]): Promise<boolean[]> {
    const order = items.map((p, i) => ({ p, i })).sort((a, b) => compareTargets(a.p.where, b.p.where));
    const now = new Date();
    try {
      return await this.writeMysqlOptimistic(items, order, now);
    } catch {
      // One was not at its expected commit_seq (or the instance is gone): nothing was written. The same again, reading
      // where each instance stands first; an error that was not about that comes again from there.
    }
    return this.writeMysqlLocked(items, order, now);
  }

  /**
   * One transaction, every statement on the wire at once (inHotTransaction pipelines them): the instances by guarded
   * upserts (each row written only if its instance is at the expected commit_seq), their registrations, launches and
   * statements. Throws, rolled back, unless every instance was written: an upsert's affected rows are 2 for each row
   * it changed and at most 1 for one it left alone or inserted.
   */
  private writeMysqlOptimistic(items: PendingCommit[], order: Array<{ p: PendingCommit; i: number }>, now: Date): Promise<boolean[]> {
    return inHotTransaction(this.dataSource, async (execute) => {
      const sent = pipeline();
      const upserts = powerOfTwoChunks(order.map(({ p }) => p), MAX_BATCH).map((chunk) => {
        const upserted = execute(upsertSql(chunk.length), chunk.flatMap((p) => upsertValues(p, now)));
        sent.send(upserted);
        return { upserted, rows: chunk.length };
      });
      const applied = new Array<boolean>(items.length).fill(true);
      await this.sendApplied(execute, sent, items, order, applied, now);
      await sent.all();
      for (const { upserted, rows } of upserts) {
        if (((await upserted).affectedRows ?? 0) !== 2 * rows) throw new Error('an instance was not at its expected commit_seq');
      }
      return applied;
    });
  }

  /** One transaction: the instances locked and read, those at their expected commit_seq written, then the registrations and launches of those applied. Instances in key order (lock order). */
  private writeMysqlLocked(items: PendingCommit[], order: Array<{ p: PendingCommit; i: number }>, now: Date): Promise<boolean[]> {
    return inHotTransaction(this.dataSource, async (execute) => {
      const applied = new Array<boolean>(items.length).fill(false);
      // Statements whose answers nothing below needs go without waiting for the ones before (inHotTransaction runs
      // them in order, and rolls them all back if one fails): each wait is a turn of a busy event loop. Their answers
      // are awaited together at the end.
      const sent = pipeline();
      if (order.length <= ROW_BY_ROW) {
        const results = await Promise.all(order.map(({ p }) => execute(INSTANCE_SQL, instanceValues(p, now))));
        order.forEach(({ i }, k) => (applied[i] = (results[k].affectedRows ?? 0) > 0));
      } else {
        // Lock the instances and read where each stands; those still at their expected commit_seq are written by one
        // multi-row upsert. It only ever updates: the rows exist and stay locked until COMMIT, so the values it
        // would insert with are never used.
        const keys = padToPowerOfTwo(order.map(({ p }) => p.where));
        const locked = await execute<Array<{ app_id: string; registration_id: string; instance: number | string; commit_seq: number | string }>>(
          sqlOf(`lock instances ${keys.length}`, () => `SELECT app_id, registration_id, instance, commit_seq FROM registration_instance FORCE INDEX (PRIMARY) WHERE ${keys.map(() => '(app_id = ? AND registration_id = ? AND instance = ?)').join(' OR ')} FOR UPDATE`),
          keys.flatMap((w) => [w.appId, w.registrationId, w.instance]),
        );
        const seqOf = new Map(locked.map((r) => [`${r.app_id}\n${r.registration_id}\n${Number(r.instance)}`, Number(r.commit_seq)]));
        for (const { p, i } of order) applied[i] = seqOf.get(`${p.where.appId}\n${p.where.registrationId}\n${p.where.instance}`) === p.expectedSeq;
        const rows = order.filter(({ i }) => applied[i]).map(({ p }) => p);
        // One statement, padded (a repeated row finds its instance at the new commit_seq already and changes nothing).
        for (const chunk of paddedChunks(rows, MAX_BATCH)) {
          sent.send(execute(upsertSql(chunk.length), chunk.flatMap((p) => upsertValues(p, now))));
        }
      }
      await this.sendApplied(execute, sent, items, order, applied, now);
      await sent.all();
      return applied;
    });
  }

  /** The registrations, launches and xAPI statements of the applied commits (items in the order they came, order by key). */
  private async sendApplied(execute: HotExecute, sent: ReturnType<typeof pipeline>, items: PendingCommit[], order: Array<{ p: PendingCommit; i: number }>, applied: boolean[], now: Date): Promise<void> {
    const done = order.filter(({ i }) => applied[i]).map(({ p }) => p);
    if (done.length === 0) return;
    sent.send(touchRegistrations(execute, done, now));
    sent.send(updateLaunches(execute, done, now));
    // Launches that capture history: their commits' lines, as parts of their logs (after the launches' UPDATE, which
    // locked their rows). Commits of launches that capture nothing send nothing more.
    for (const { where, c } of done) {
      if (!c.historyLog || !c.launchHistoryId) continue;
      for (const st of hotAppendStatements({ ...where, launchHistoryId: c.launchHistoryId }, c.historyLog, c.final)) sent.send(execute(st.sql, st.values));
    }
    // Domain events' outbox rows (commits that completed a registration, when a durable listener subscribed).
    for (const { events } of done) for (const staged of events ?? []) for (const job of staged.jobs) sent.send(execute(INSERT_JOB_SQL, insertJobValues(job)));
    // In the order the commits came (done is in key order): a learner's statements in the order of their commits.
    await this.lrs.writeOwn(hotStatementWriter(execute), items.flatMap((p, i) => (applied[i] ? (p.c.statements ?? []) : [])));
  }

  /** SQLite: the commits in one TypeORM transaction, each guarded by its commit_seq. */
  private writeTypeorm(items: PendingCommit[]): Promise<boolean[]> {
    const now = new Date();
    return this.dataSource.transaction(async (m) => {
      const applied: boolean[] = [];
      const statements: OwnStatements = [];
      for (const { where, expectedSeq, c, events } of items) {
        const res = await m
          .createQueryBuilder()
          .update(RegistrationInstanceEntity)
          .set({
            // The tree is JSON already: past the column's transformer, which would encode it again.
            activityDetails: () => ':tree',
            completion: c.completion,
            success: c.success,
            completionAmount: c.completionAmount,
            scoreScaled: c.scoreScaled,
            totalSeconds: c.totalSeconds,
            firstAccessAt: () => 'COALESCE(first_access_at, :at)',
            lastAccessAt: now,
            completedAt: c.completion === 'COMPLETED' ? () => 'COALESCE(completed_at, :at)' : () => 'completed_at',
            suspendedActivityId: c.suspendedActivityId,
            commitSeq: c.commitSeq,
            updatedAt: now,
            ...(c.sequencingState !== undefined ? { sequencingState: c.sequencingState } : {}),
            ...(c.globalObjectives !== undefined ? { globalObjectives: c.globalObjectives } : {}),
            ...(c.xapiReported !== undefined ? { xapiReported: c.xapiReported } : {}),
          })
          .where({ ...where, commitSeq: expectedSeq })
          .setParameter('at', dbDatetime(c.at ?? now))
          .setParameter('tree', c.activityDetails)
          .execute();
        applied.push(Boolean(res.affected));
        if (!res.affected) continue;
        if (c.statements) statements.push(...c.statements);
        for (const staged of events ?? []) if (staged.jobs.length) await m.insert(JobEntity, [...staged.jobs]);
        await m.update(RegistrationEntity, { appId: where.appId, id: where.registrationId }, { updatedAt: now });
        if (c.launchHistoryId) {
          await m.update(LaunchHistoryEntity, { appId: where.appId, id: c.launchHistoryId }, {
            lastRuntimeUpdate: now,
            completion: c.completion,
            success: c.success,
            scoreScaled: c.scoreScaled,
            totalSeconds: c.launchSeconds,
            ...(c.final ? { exitTime: now } : {}),
          });
          if (c.historyLog) await appendHistoryLog(m, { ...where, launchHistoryId: c.launchHistoryId }, c.historyLog, c.final);
        }
      }
      // The batch's statements together (a statement's preparation costs SQLite more than a row), in commit order.
      await this.lrs.writeOwn(entityManagerWriter(m), statements);
      return applied;
    });
  }
}

function compareTargets(a: CommitTarget, b: CommitTarget): number {
  return a.appId < b.appId ? -1 : a.appId > b.appId ? 1 : a.registrationId < b.registrationId ? -1 : a.registrationId > b.registrationId ? 1 : a.instance - b.instance;
}

/**
 * A commit's values in the column order both statements use (INSTANCE_SQL's SET, UPSERT_ROW after the key):
 * completed_at is the time only when the commit completes (COALESCE keeps an earlier one, and null changes nothing).
 */
function commitValues(c: StoredCommit, now: Date): unknown[] {
  const at = c.at ?? now;
  return [
    c.activityDetails,
    c.completion,
    c.success,
    c.completionAmount,
    c.scoreScaled,
    c.totalSeconds,
    at,
    now,
    c.completion === 'COMPLETED' ? at : null,
    c.suspendedActivityId,
    c.commitSeq,
    now,
    c.sequencingState ?? null,
    c.globalObjectives !== undefined ? jsonColumn.to(c.globalObjectives) : null,
    c.xapiReported ?? null,
  ];
}

const instanceValues = ({ where, expectedSeq, c }: PendingCommit, now: Date): unknown[] => [...commitValues(c, now), where.appId, where.registrationId, where.instance, expectedSeq];

/** A commit's row of the upsert: its course_version slot carries the commit_seq it expects (UPSERT_SQL_TAIL). */
const upsertValues = ({ where, expectedSeq, c }: PendingCommit, now: Date): unknown[] => [where.appId, where.registrationId, where.instance, expectedSeq, now, ...commitValues(c, now)];

/** The registrations of the applied commits (each once), in key order: one statement. */
async function touchRegistrations(execute: HotExecute, done: PendingCommit[], now: Date): Promise<void> {
  const seen = new Set<string>();
  const keys: string[][] = [];
  for (const { where } of done) {
    const k = `${where.appId}\n${where.registrationId}`;
    if (seen.has(k)) continue;
    seen.add(k);
    keys.push([where.appId, where.registrationId]);
  }
  const padded = padToPowerOfTwo(keys);
  await execute(sqlOf(`touch registrations ${padded.length}`, () => `UPDATE registration FORCE INDEX (PRIMARY) SET updated_at = ? WHERE ${padded.map(() => '(app_id = ? AND id = ?)').join(' OR ')}`), [now, ...padded.flat()]);
}

/** The launch history rows of the applied commits' sessions: one statement, a CASE per column over the launch ids. */
async function updateLaunches(execute: HotExecute, done: PendingCommit[], now: Date): Promise<void> {
  const withLaunch = done.filter((p) => p.c.launchHistoryId);
  if (withLaunch.length === 0) return;
  const launches = padToPowerOfTwo(withLaunch);
  const columns: Array<[name: string, value: (c: StoredCommit) => unknown, expr?: string]> = [
    ['completion', (c) => c.completion],
    ['success', (c) => c.success],
    ['score_scaled', (c) => c.scoreScaled],
    ['total_seconds', (c) => c.launchSeconds],
    ['exit_time', (c) => (c.final ? now : null), 'COALESCE(?, exit_time)'],
  ];
  const sql = sqlOf(`update launches ${launches.length}`, () => {
    const set = columns.map(([name, , expr = '?']) => `${name} = CASE id ${launches.map(() => `WHEN ? THEN ${expr}`).join(' ')} ELSE ${name} END`);
    return `UPDATE launch_history FORCE INDEX (PRIMARY) SET last_runtime_update = ?, ${set.join(', ')} WHERE ${launches.map(() => '(app_id = ? AND id = ?)').join(' OR ')}`;
  });
  const values: unknown[] = [now];
  for (const [, value] of columns) for (const p of launches) values.push(p.c.launchHistoryId, value(p.c));
  for (const p of launches) values.push(p.where.appId, p.c.launchHistoryId);
  await execute(sql, values);
}
