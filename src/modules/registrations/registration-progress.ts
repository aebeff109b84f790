import { inHotTransaction, runLeanStatement, sqlOf } from '../../platform/database/hot-statement';
import { affectedBy, leanColumns, leanInsert, leanRead, leanUpdate, type LeanStatement } from '../../platform/database/lean-read';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, IsNull, LessThan, Repository } from 'typeorm';
import type { CourseVersion } from '../courses/course-version';
import { CoursesService } from '../courses/courses.service';
import { SettingsService } from '../settings/settings.service';
import { CommitStore } from './commit-store';
import { LaunchHistoryEntity } from './entities/launch-history.entity';
import { RegistrationEntity } from './entities/registration.entity';
import { RegistrationInstanceEntity } from './entities/registration-instance.entity';
import type { InstanceRecord, RegistrationRecord } from './registration-records';
import { RegistrationPostbacks } from './registration-postbacks';
import type { ActivityResult } from './registration-types';
import { progressSummary } from './registration-progress-events';
import { settingCourseRef } from './registrations.service';
import { trackedSeconds } from './tracked-time';

/** The launch history columns a launch writes. */
const LAUNCH_START_COLUMNS = ['appId', 'id', 'registrationId', 'instance', 'launchTime', 'exitTime', 'lastRuntimeUpdate', 'completion', 'success', 'scoreScaled', 'totalSeconds', 'historyLog', 'historyLogChars'] as const;
const INSTANCE_KEY = ['appId', 'registrationId', 'instance'] as const;

/** A registration instance's key. */
export interface InstanceKey {
  appId: string;
  registrationId: string;
  instance: number;
}

/** What statements changed in a registration's tree (applyStatementProgress). */
export interface StatementChange {
  /** When the first statement that completed the registration was made (null: none did). */
  completedAt: Date | null;
  /** Seconds the statements add to the launch's time (a cmi5 session's duration). */
  seconds?: number;
  /** The launch ended (cmi5 terminated): its exit time is now. */
  ended?: boolean;
}

/** A launch history row as a launch starts it. */
export interface LaunchStart {
  id: string;
  launchTime: Date;
  completion: string;
  success: string;
  scoreScaled: number | null;
  historyLog: string | null;
}

/** The columns of an instance the player changes outside a commit (a launch, a navigation request, a switch of activity). */
export type InstanceChange = Partial<Pick<InstanceRecord, 'activityDetails' | 'completion' | 'success' | 'completionAmount' | 'scoreScaled' | 'completedAt' | 'firstAccessAt' | 'lastAccessAt' | 'updatedAt' | 'sequencingState' | 'globalObjectives'>>;

/** A launch history row's statuses, score and time as the player records them outside a commit. */
export type LaunchChange = Partial<Pick<LaunchHistoryEntity, 'completion' | 'success' | 'scoreScaled' | 'totalSeconds' | 'lastRuntimeUpdate' | 'exitTime'>>;

/**
 * The registrations module's progress writes and the reads the player needs: the only way other modules reach the
 * registration, registration_instance and launch_history tables. Commits go through CommitStore (the hot path, also
 * exported); everything else the player changes (a launch, a navigation request, progress from statements, a launch's
 * exit) goes through here. Every write of an instance is guarded by its commit_seq, so it orders with commits.
 */
@Injectable()
export class RegistrationProgress {
  constructor(
    @InjectRepository(RegistrationEntity) private readonly registrations: Repository<RegistrationEntity>,
    @InjectRepository(RegistrationInstanceEntity) private readonly instances: Repository<RegistrationInstanceEntity>,
    @InjectRepository(LaunchHistoryEntity) private readonly launches: Repository<LaunchHistoryEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly courses: CoursesService,
    private readonly settings: SettingsService,
    private readonly commitStore: CommitStore,
    private readonly postbacks: RegistrationPostbacks,
  ) {}

  // ---- reads ------------------------------------------------------------------------------------------------

  registration(appId: string, id: string): Promise<RegistrationRecord | null> {
    return leanRead(this.registrations, ['appId', 'id']).one({ appId, id });
  }

  /** The registration an xAPI registration id (its statements' context.registration) names. */
  registrationByXapiId(appId: string, xapiRegistrationId: string): Promise<RegistrationRecord | null> {
    return this.registrations.findOneBy({ appId, xapiRegistrationId: xapiRegistrationId.toLowerCase() });
  }

  async courseIdOf(appId: string, registrationId: string): Promise<string | null> {
    return (await this.registrations.findOne({ where: { appId, id: registrationId }, select: { courseId: true } }))?.courseId ?? null;
  }

  instance(where: InstanceKey): Promise<InstanceRecord | null> {
    return leanRead(this.instances, ['appId', 'registrationId', 'instance']).one(where);
  }

  /**
   * What a launch reads first, in one statement: the registration, its instance (`instance`, or its latest) and the
   * instance's sequencing state. Null when either is missing.
   */
  async launchState(appId: string, registrationId: string, instance: number | 'latest'): Promise<{ reg: RegistrationRecord; inst: InstanceRecord; sequencingState: string | null } | null> {
    const r = leanColumns(this.registrations, 'r');
    const i = leanColumns(this.instances, 'i');
    const latest = instance === 'latest';
    // Keyed by the driver too: the SQL text quotes names the driver's way.
    const sql = sqlOf(`launch state ${this.dataSource.options.type} ${latest ? 'latest' : 'given'}`, () => {
      const which = latest ? r.column('latestInstance') : '?';
      return `SELECT ${r.select}, ${i.select}, ${i.column('sequencingState')} AS seq_state FROM ${r.table} r JOIN ${i.table} i ON ${i.column('appId')} = ${r.column('appId')} AND ${i.column('registrationId')} = ${r.column('id')} AND ${i.column('instance')} = ${which} WHERE ${r.column('appId')} = ? AND ${r.column('id')} = ?`;
    });
    const [row] = await runLeanStatement(this.dataSource, sql, latest ? [appId, registrationId] : [instance, appId, registrationId], true);
    const reg = row ? r.of(row) : null;
    const inst = row ? i.of(row) : null;
    return reg && inst ? { reg, inst, sequencingState: (row.seq_state as string | null) ?? null } : null;
  }

  /** An instance's activity tree alone (null: no such instance, or no tree). */
  async treeOf(where: InstanceKey): Promise<ActivityResult | null> {
    return (await this.instances.findOne({ where, select: { appId: true, registrationId: true, instance: true, activityDetails: true } }))?.activityDetails ?? null;
  }

  /** The course version an instance runs (null: no such instance or version). */
  async versionOf(where: InstanceKey): Promise<CourseVersion | null> {
    const inst = await this.instances.findOne({ where, select: { courseVersion: true, registrationId: true } });
    const courseId = inst ? await this.courseIdOf(where.appId, where.registrationId) : null;
    return inst && courseId ? this.courses.findVersion(where.appId, courseId, inst.courseVersion) : null;
  }

  /**
   * PlayerTimeLimit: the seconds a registration instance has spent in its course: each launch counts the time its
   * content reported or the time it was open (launch to exit or last save), whichever is more (a SCO that never
   * reports session time still spends the learner's time); the instance's tracked time when more (launch history
   * expired). `current`: a launch not to count (the one being opened).
   */
  async timeSpent(where: InstanceKey, current?: string | null): Promise<number> {
    const [launches, tree] = await Promise.all([
      this.launches.find({ where, select: { id: true, launchTime: true, exitTime: true, lastRuntimeUpdate: true, totalSeconds: true } }),
      this.treeOf(where),
    ]);
    const open = launches
      .filter((l) => l.id !== current)
      .reduce((sum, l) => {
        const end = l.exitTime ?? l.lastRuntimeUpdate;
        const wall = end ? Math.max(0, (end.getTime() - l.launchTime.getTime()) / 1000) : 0;
        return sum + Math.max(l.totalSeconds ?? 0, wall);
      }, 0);
    return Math.max(open, trackedSeconds(tree?.timeTracked));
  }

  /** The stored sequencing state of a registration instance (not loaded with the instance: it can be large). */
  async sequencingStateOf(where: InstanceKey): Promise<string | null> {
    // A launch's read: SQL text, no query builder.
    const rows = await this.dataSource.query<Array<{ state: string | null }>>('SELECT sequencing_state AS state FROM registration_instance WHERE app_id = ? AND registration_id = ? AND instance = ?', [where.appId, where.registrationId, where.instance]);
    return rows[0]?.state ?? null;
  }

  /**
   * The global shared objectives a new instance starts with: those of the registration's latest earlier instance
   * (global objectives are scoped to the registration, as SCORM Cloud's default scope).
   */
  async priorGlobals(where: InstanceKey): Promise<string | null> {
    if (where.instance === 0) return null;
    const row = await this.instances
      .createQueryBuilder('i')
      .select('i.sequencingState', 'state')
      .where('i.appId = :appId AND i.registrationId = :registrationId AND i.instance < :instance AND i.sequencingState IS NOT NULL', where)
      .orderBy('i.instance', 'DESC')
      .limit(1)
      .getRawOne<{ state: string | null }>();
    return row?.state ?? null;
  }

  // ---- writes -----------------------------------------------------------------------------------------------

  /**
   * A launch's writes, in one transaction: its launch history row, the instance's change and the registration's
   * updated_at (the list's datetimeFilter/orderBy `updated` read it), and `also` (the player session it opens). By SQL
   * text made once (LeanInsert, LeanUpdate). MySQL: a hot transaction, the statements pipelined (one round trip, then
   * COMMIT) instead of a round trip each;
   * SQLite: on its one connection (inside the player link's transaction, a savepoint).
   */
  async startLaunch(where: InstanceKey, launch: LaunchStart, change: InstanceChange, also: readonly LeanStatement[] = []): Promise<void> {
    const history = leanInsert(this.launches, LAUNCH_START_COLUMNS).statement({
      appId: where.appId,
      id: launch.id,
      registrationId: where.registrationId,
      instance: where.instance,
      launchTime: launch.launchTime,
      exitTime: null,
      lastRuntimeUpdate: null,
      completion: launch.completion,
      success: launch.success,
      scoreScaled: launch.scoreScaled,
      totalSeconds: 0,
      historyLog: launch.historyLog,
      historyLogChars: launch.historyLog?.length ?? 0,
    });
    // The columns the change sets (as repository.update, undefined values set nothing), in one order: one SQL text a shape.
    const set = (Object.keys(change) as Array<keyof InstanceChange & keyof RegistrationInstanceEntity>).filter((k) => change[k] !== undefined).sort();
    const statements: LeanStatement[] = [history];
    if (set.length) statements.push(leanUpdate(this.instances, set, INSTANCE_KEY).statement(change as Pick<RegistrationInstanceEntity, (typeof set)[number]>, where));
    statements.push(leanUpdate(this.registrations, ['updatedAt'], ['appId', 'id']).statement({ updatedAt: launch.launchTime }, { appId: where.appId, id: where.registrationId }), ...also);
    if (this.dataSource.options.type === 'mysql') {
      await inHotTransaction(this.dataSource, (execute) => Promise.all(statements.map((st) => execute(st.sql, st.params))));
      return;
    }
    await this.dataSource.transaction(async () => {
      for (const st of statements) await affectedBy(this.dataSource, st.sql, st.params);
    });
  }

  /** Changes an instance if it is still at `commitSeq` (false: another update won; read again and retry). */
  async updateInstance(where: InstanceKey, commitSeq: number, change: InstanceChange): Promise<boolean> {
    const res = await this.instances.update({ ...where, commitSeq }, change);
    return (res.affected ?? 0) > 0;
  }

  /** A launch history row's statuses, score and time (a navigation request's rollup and exit, a switch of activity). */
  async recordLaunch(appId: string, launchHistoryId: string, change: LaunchChange): Promise<void> {
    await this.launches.update({ appId, id: launchHistoryId }, change);
  }

  /** Sets a launch's exit time if it has none yet; its launch time when this call set it, null otherwise. */
  async claimLaunchExit(appId: string, launchHistoryId: string, now: Date): Promise<Date | null> {
    const claimed = await this.launches.update({ appId, id: launchHistoryId, exitTime: IsNull() }, { exitTime: now });
    if (!claimed.affected) return null;
    return (await this.launches.findOne({ where: { appId, id: launchHistoryId }, select: { id: true, launchTime: true } }))?.launchTime ?? null;
  }

  /** Deletes up to `batch` launch history rows of an application launched before `before`; how many. */
  async expireLaunchHistory(appId: string, before: Date, batch: number): Promise<number> {
    const rows = await this.launches.find({ where: { appId, launchTime: LessThan(before) }, select: { id: true }, take: batch });
    if (rows.length) await this.launches.delete({ appId, id: In(rows.map((r) => r.id)) });
    return rows.length;
  }

  /**
   * Progress from statements (xAPI courses' result statements, cmi5 AUs' statements): `change` updates the
   * instance's tree (false: nothing to change), which is stored like a commit with the summary and a launch history
   * row, the launch's (`launchHistoryId`) or else the latest (commit_seq advances, so it orders with other updates;
   * retried when another update won), then a postback. The change's `seconds` (a cmi5 session's duration) add to the
   * launch's time; `ended` (cmi5 terminated) sets its exit time. `settingIds`: settings the change reads (their
   * effective values, read before it with the store's own). Returns the stored tree, or null when nothing changed.
   */
  async applyStatementProgress(
    where: InstanceKey,
    change: (tree: ActivityResult, version: CourseVersion, values: ReadonlyMap<string, string>) => StatementChange | false,
    launchHistoryId?: string | null,
    settingIds: readonly string[] = [],
  ): Promise<ActivityResult | null> {
    const { appId } = where;
    for (let attempt = 0; attempt < 5; attempt++) {
      const inst = await this.instances.findOneBy(where);
      const reg = inst ? await this.registrations.findOne({ where: { appId, id: where.registrationId }, select: { courseId: true } }) : null;
      const version = inst && reg ? await this.courses.findVersion(appId, reg.courseId, inst.courseVersion) : null;
      if (!inst?.activityDetails || !version) return null;
      const tree = inst.activityDetails;
      const progressBefore = progressSummary(tree);
      const target = { level: 'registrationInstance' as const, registrationId: where.registrationId, instance: inst.instance, course: settingCourseRef(version) };
      const read = (ids: readonly string[]) => this.settings.effective(appId, target, [...ids, 'UseStatementTimestampInRegistrationUpdates']);
      // Settings the change needs are read first (one query); otherwise only once something changed.
      const before = settingIds.length ? await read(settingIds) : null;
      const applied = change(tree, version, before ?? new Map());
      if (!applied) return null;
      const values = before ?? (await read([]));
      const useTimestamp = values.get('UseStatementTimestampInRegistrationUpdates') !== 'false';
      const latest = await this.launches.findOne({ where: launchHistoryId ? { appId, id: launchHistoryId } : where, order: { launchTime: 'DESC' }, select: { id: true, totalSeconds: true } });
      const stored = await this.commitStore.store(where, inst.commitSeq, {
        activityDetails: JSON.stringify(tree),
        completion: tree.activityCompletion,
        success: tree.activitySuccess,
        completionAmount: tree.activityCompletion === 'COMPLETED' ? 1 : (tree.completionAmount?.scaled ?? 0),
        scoreScaled: tree.score?.scaled ?? null,
        totalSeconds: trackedSeconds(tree.timeTracked),
        suspendedActivityId: null,
        commitSeq: inst.commitSeq + 1,
        launchHistoryId: latest?.id ?? null,
        launchSeconds: (latest?.totalSeconds ?? 0) + (applied.seconds ?? 0),
        final: applied.ended === true,
        ...(useTimestamp && applied.completedAt ? { at: applied.completedAt } : {}),
        progressBefore,
      });
      if (!stored) continue;
      await this.postbacks.schedule(appId, where.registrationId, inst.instance);
      return tree;
    }
    throw new Error('Progress from statements: the registration kept changing; retrying');
  }
}
