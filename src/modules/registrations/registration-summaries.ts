import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { retryOnLockConflict } from '../../platform/database/hot-statement';
import { ActivityCounters, BucketTallies, insertRows } from './activity-counters';
import type { ActivityProgress, QuestionAnalysis, Totals } from './registration-statistics-types';

/** Lower bounds (seconds) of the time-spent buckets: under 1 min, 1–5, 5–15, 15–30, 30–60 min, 1–2 h, over 2 h. */
export const SUMMARY_TIME_BOUNDS = [0, 60, 300, 900, 1800, 3600, 7200];
/** Ten score buckets of 10 points (scaled score 0..1; 1 falls in the last). */
export const SUMMARY_SCORE_BUCKETS = 10;
/**
 * How far back of its watermark a refresh looks again: a change stamped (updated_at) before it committed, or on a
 * node whose clock is behind, is still found by the next refresh.
 */
export const REFRESH_MARGIN_MS = 2 * 60_000;
/** An application with fewer registrations than this is summarized on its first refresh, inline; a larger one in the background (reports scan meanwhile). */
export const INLINE_BUILD_LIMIT = 50_000;
/** A build that left its application unbuilt for this long (a stopped CLI) is done again by the next report. */
const ABANDONED_BUILD_MS = 60 * 60_000;
/** How long after a registration was created or deleted its application's summaries are refreshed (reads refresh too). */
const EVENT_REFRESH_DELAY_MS = 1_000;
/** Registrations a rebuild reads at a time. */
const BUILD_CHUNK = 50_000;

/** The filter a summary answers: an application, optionally one course, optionally whole UTC days of creation [from, to). */
export interface SummaryFilter {
  courseId?: string;
  /** YYYY-MM-DD, inclusive */
  fromDay?: string;
  /** YYYY-MM-DD, exclusive */
  toDay?: string;
}

/** Figures by bucket: `course NUL day` → DAY_COLUMNS' values; `course NUL day NUL completedDay` → completions. */
interface Figures {
  days: Map<string, number[]>;
  completions: Map<string, number>;
}

interface Bucket {
  courseId: string;
  day: string;
}

const COUNTERS = ['registrations', 'started', 'completed', 'passed', 'failed', 'score_count', 'seconds_count'] as const;
const SUMS = ['score_sum', 'seconds_sum'] as const;
const SCORE_COLUMNS = Array.from({ length: SUMMARY_SCORE_BUCKETS }, (_, k) => `s${k}`);
const TIME_COLUMNS = SUMMARY_TIME_BOUNDS.map((_, k) => `t${k}`);
const DAY_COLUMNS = [...COUNTERS, ...SUMS, ...SCORE_COLUMNS, ...TIME_COLUMNS];

/** The figures of one (course, day of creation) bucket, from its registrations' latest instances. */
function bucketSelect(day: (column: string) => string): string {
  const scoreBuckets = SCORE_COLUMNS.map((c, k) => {
    const upper = k === SUMMARY_SCORE_BUCKETS - 1 ? '' : ` AND i.score_scaled * 10 < ${k + 1}`;
    return `SUM(CASE WHEN i.score_scaled * 10 >= ${k}${upper} THEN 1 ELSE 0 END) AS ${c}`;
  });
  const timeBuckets = TIME_COLUMNS.map((c, k) => {
    const lower = k === 0 ? 'i.total_seconds > 0' : `i.total_seconds >= ${SUMMARY_TIME_BOUNDS[k]}`;
    const upper = k === SUMMARY_TIME_BOUNDS.length - 1 ? '' : ` AND i.total_seconds < ${SUMMARY_TIME_BOUNDS[k + 1]}`;
    return `SUM(CASE WHEN ${lower}${upper} THEN 1 ELSE 0 END) AS ${c}`;
  });
  return [
    `SELECT r.course_id AS course_id, ${day('r.created_at')} AS created_day`,
    'COUNT(*) AS registrations',
    "SUM(CASE WHEN i.first_access_at IS NOT NULL OR i.completion <> 'UNKNOWN' OR i.success <> 'UNKNOWN' THEN 1 ELSE 0 END) AS started",
    "SUM(CASE WHEN i.completion = 'COMPLETED' THEN 1 ELSE 0 END) AS completed",
    "SUM(CASE WHEN i.success = 'PASSED' THEN 1 ELSE 0 END) AS passed",
    "SUM(CASE WHEN i.success = 'FAILED' THEN 1 ELSE 0 END) AS failed",
    'SUM(CASE WHEN i.score_scaled IS NOT NULL THEN 1 ELSE 0 END) AS score_count',
    'COALESCE(SUM(i.score_scaled), 0) AS score_sum',
    'SUM(CASE WHEN i.total_seconds > 0 THEN 1 ELSE 0 END) AS seconds_count',
    'COALESCE(SUM(CASE WHEN i.total_seconds > 0 THEN i.total_seconds ELSE 0 END), 0) AS seconds_sum',
    ...scoreBuckets,
    ...timeBuckets,
  ].join(', ');
}

const LATEST_JOIN = 'FROM registration r INNER JOIN registration_instance i ON i.app_id = r.app_id AND i.registration_id = r.id AND i.instance = r.latest_instance';

/**
 * The report viewer's summaries: per application, course and UTC day of creation, the counts, sums and histogram
 * buckets of the registrations' latest instances (report_day) and their completions per day (report_completion_day),
 * so that an application's report reads a few thousand summary rows instead of its registrations.
 *
 * A bucket is always recomputed whole from its registrations (a few hundred rows by ix_registration_course_latest), never
 * incremented, so a refresh run twice, or by two nodes, leaves the same figures. A refresh finds the buckets to
 * recompute from what changed since its watermark (less REFRESH_MARGIN_MS): registrations by ix_registration_updated,
 * instances by ix_registration_instance_updated (runtime commits, launches, resets, new instances), and the marks
 * left by deletions in their own transaction (report_dirty). Refreshes of an application are serialized, in the
 * process by a queue and across nodes by a lock on its report_state row (MySQL reads then see everything committed
 * before it). Reports refresh before they read; registrations created or deleted schedule a refresh too.
 */
@Injectable()
export class RegistrationSummaries implements OnModuleDestroy {
  private readonly logger = new Logger(RegistrationSummaries.name);
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly queued = new Map<string, Promise<boolean>>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly builds = new Map<string, Promise<void>>();
  /** Applications whose summaries are built in the background (their reports scan meanwhile). */
  private readonly background = new Set<string>();
  private closed = false;

  /** Progress per activity and question analysis, kept with the other summaries (same buckets, same refreshes). */
  private readonly counters: ActivityCounters;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.counters = new ActivityCounters(dataSource);
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.all([...this.chains.values()].map((p) => p.catch(() => undefined)));
  }

  private get mysql(): boolean {
    return this.dataSource.options.type === 'mysql';
  }

  private day(column: string): string {
    return this.mysql ? `DATE_FORMAT(${column}, '%Y-%m-%d')` : `substr(${column}, 1, 10)`;
  }

  private date(d: Date): string | Date {
    return this.mysql ? d : d.toISOString().replace('T', ' ').replace('Z', '');
  }

  // ---- reads -------------------------------------------------------------------------------------------------

  /**
   * Brings the application's summaries up to date; false when it has none yet (the caller scans). An application
   * never summarized is summarized now when small, else in the background.
   */
  async fresh(appId: string): Promise<boolean> {
    if (this.closed) return false;
    if (await this.refresh(appId)) return true;
    let build = this.builds.get(appId);
    if (!build) {
      const state = await this.state(this.dataSource.manager, appId);
      // A build under way elsewhere (the CLI): scan until it is done (one left unfinished for an hour is done again).
      // One this process began meanwhile (a report's parallel reads all come here) is waited for below.
      if (state && !state.built && Date.now() - state.watermark.getTime() < ABANDONED_BUILD_MS && !this.builds.has(appId)) return false;
      const [{ n }] = await this.dataSource.query<Array<{ n: number | string }>>('SELECT COUNT(*) AS n FROM registration WHERE app_id = ?', [appId]);
      build = this.builds.get(appId);
      if (!build) {
        build = this.serial(appId, () => this.buildNow(appId)).finally(() => this.builds.delete(appId));
        this.builds.set(appId, build);
        if (Number(n) >= INLINE_BUILD_LIMIT) {
          this.background.add(appId);
          void build
            .finally(() => this.background.delete(appId))
            .catch((err: unknown) => this.logger.error({ msg: 'building report summaries failed', appId, err: err instanceof Error ? err.message : String(err) }));
        }
      }
    }
    if (this.background.has(appId)) return false;
    try {
      await build;
      return true;
    } catch (err) {
      // The report scans; the next one tries again.
      this.logger.error({ msg: 'building report summaries failed', appId, err: err instanceof Error ? err.message : String(err) });
      return false;
    }
  }

  async totals(appId: string, f: SummaryFilter): Promise<Totals> {
    const { where, params } = this.where(appId, f);
    const [row] = await this.dataSource.query<Array<Record<string, string | number | null>>>(
      `SELECT ${[...COUNTERS, ...SUMS].map((c) => `SUM(${c}) AS ${c}`).join(', ')} FROM report_day WHERE ${where}`,
      params,
    );
    const n = (k: string) => Number(row?.[k] ?? 0);
    return {
      registrations: n('registrations'),
      started: n('started'),
      completed: n('completed'),
      passed: n('passed'),
      failed: n('failed'),
      averageScore: n('score_count') ? n('score_sum') / n('score_count') : null,
      averageSeconds: n('seconds_count') ? n('seconds_sum') / n('seconds_count') : null,
    };
  }

  async perDay(appId: string, f: SummaryFilter): Promise<Array<{ day: string; created: number; completed: number }>> {
    const { where, params } = this.where(appId, f);
    const created = await this.dataSource.query<Array<{ d: string; n: string | number }>>(`SELECT created_day AS d, SUM(registrations) AS n FROM report_day WHERE ${where} GROUP BY created_day`, params);
    const completed = await this.dataSource.query<Array<{ d: string; n: string | number }>>(
      `SELECT completed_day AS d, SUM(completed) AS n FROM report_completion_day WHERE ${where} GROUP BY completed_day`,
      params,
    );
    const days = new Map<string, { day: string; created: number; completed: number }>();
    const at = (d: string) => {
      let e = days.get(d);
      if (!e) days.set(d, (e = { day: d, created: 0, completed: 0 }));
      return e;
    };
    for (const r of created) if (Number(r.n) > 0) at(r.d).created += Number(r.n);
    for (const r of completed) if (Number(r.n) > 0) at(r.d).completed += Number(r.n);
    return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
  }

  async perCourse(appId: string, f: SummaryFilter): Promise<Array<{ courseId: string; registrations: number; completed: number; passed: number }>> {
    const { where, params } = this.where(appId, f);
    const rows = await this.dataSource.query<Array<{ course_id: string; registrations: string | number; completed: string | number; passed: string | number }>>(
      `SELECT course_id, SUM(registrations) AS registrations, SUM(completed) AS completed, SUM(passed) AS passed FROM report_day WHERE ${where} GROUP BY course_id`,
      params,
    );
    return rows.filter((r) => Number(r.registrations) > 0).map((r) => ({ courseId: r.course_id, registrations: Number(r.registrations), completed: Number(r.completed), passed: Number(r.passed) }));
  }

  /** Progress per activity and question analysis of the filter's registrations, and how many registrations they count. */
  async activityAnalysis(appId: string, f: SummaryFilter): Promise<{ activities: ActivityProgress[]; questions: QuestionAnalysis[]; sampled: number }> {
    const [analysis, totals] = await Promise.all([this.counters.analysis(this.where(appId, f)), this.totals(appId, f)]);
    return { ...analysis, sampled: totals.registrations };
  }

  async scoreHistogram(appId: string, f: SummaryFilter): Promise<number[]> {
    return this.sums(appId, f, SCORE_COLUMNS);
  }

  async timeHistogram(appId: string, f: SummaryFilter): Promise<number[]> {
    return this.sums(appId, f, TIME_COLUMNS);
  }

  private async sums(appId: string, f: SummaryFilter, columns: string[]): Promise<number[]> {
    const { where, params } = this.where(appId, f);
    const [row] = await this.dataSource.query<Array<Record<string, string | number | null>>>(`SELECT ${columns.map((c) => `SUM(${c}) AS ${c}`).join(', ')} FROM report_day WHERE ${where}`, params);
    return columns.map((c) => Number(row?.[c] ?? 0));
  }

  private where(appId: string, f: SummaryFilter): { where: string; params: string[] } {
    const parts = ['app_id = ?'];
    const params = [appId];
    if (f.courseId !== undefined) {
      parts.push('course_id = ?');
      params.push(f.courseId);
    }
    if (f.fromDay) {
      parts.push('created_day >= ?');
      params.push(f.fromDay);
    }
    if (f.toDay) {
      parts.push('created_day < ?');
      params.push(f.toDay);
    }
    return { where: parts.join(' AND '), params };
  }

  // ---- upkeep ------------------------------------------------------------------------------------------------

  /** A registration of the application was created or deleted: its summaries are refreshed shortly. */
  soon(appId: string): void {
    if (this.closed || this.timers.has(appId)) return;
    const timer = setTimeout(() => {
      this.timers.delete(appId);
      if (this.closed) return;
      this.refresh(appId).catch((err: unknown) => this.logger.warn({ msg: 'refreshing report summaries failed', appId, err: err instanceof Error ? err.message : String(err) }));
    }, EVENT_REFRESH_DELAY_MS);
    timer.unref();
    this.timers.set(appId, timer);
  }

  /**
   * In the transaction that deletes these registrations (before it does): their buckets are marked for the next
   * refresh, which recomputes them without them.
   */
  async markRemoved(m: EntityManager, appId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const rows = await m.query<Array<{ course_id: string; d: string }>>(
      `SELECT DISTINCT course_id, ${this.day('created_at')} AS d FROM registration WHERE app_id = ? AND id IN (${ids.map(() => '?').join(', ')})`,
      [appId, ...ids],
    );
    if (rows.length === 0) return;
    const now = this.date(new Date());
    const upsert = this.mysql ? 'ON DUPLICATE KEY UPDATE marked_at = VALUES(marked_at)' : 'ON CONFLICT (app_id, course_id, created_day) DO UPDATE SET marked_at = excluded.marked_at';
    await m.query(
      `INSERT INTO report_dirty (app_id, course_id, created_day, marked_at) VALUES ${rows.map(() => '(?, ?, ?, ?)').join(', ')} ${upsert}`,
      rows.flatMap((r) => [appId, r.course_id, String(r.d), now]),
    );
  }

  /** The application is deleted: its summaries go. */
  async purge(appId: string): Promise<void> {
    for (const table of ['report_day', 'report_completion_day', 'report_activity_day', 'report_question_day', 'report_answer_day', 'report_dirty', 'report_state']) await this.dataSource.query(`DELETE FROM ${table} WHERE app_id = ?`, [appId]);
  }

  /** Brings the summaries up to date with what changed since the last refresh; false when the application has none. */
  refresh(appId: string): Promise<boolean> {
    // A refresh queued but not started yet will see everything committed before now: join it.
    const queued = this.queued.get(appId);
    if (queued) return queued;
    const run = this.serial(appId, () => {
      this.queued.delete(appId);
      return this.refreshNow(appId);
    });
    this.queued.set(appId, run);
    return run;
  }

  /**
   * Recomputes every summary of the application from its registrations, BUILD_CHUNK at a time (its reports scan
   * meanwhile); `progress` is told the registrations done and their total. Idempotent.
   */
  rebuild(appId: string, progress?: (done: number, total: number) => void, chunk = BUILD_CHUNK): Promise<void> {
    return this.serial(appId, () => this.buildNow(appId, progress, chunk));
  }

  /** Applications that have registrations or summaries. */
  async applications(): Promise<string[]> {
    const rows = await this.dataSource.query<Array<{ app_id: string }>>('SELECT DISTINCT app_id FROM registration UNION SELECT app_id FROM report_state');
    return rows.map((r) => r.app_id).sort();
  }

  private serial<T>(appId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(appId) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(work);
    const tail = run.catch(() => undefined);
    this.chains.set(appId, tail);
    void tail.then(() => {
      if (this.chains.get(appId) === tail) this.chains.delete(appId);
    });
    return run;
  }

  private async state(m: EntityManager, appId: string, lock = false): Promise<{ built: boolean; watermark: Date } | null> {
    const rows = await m.query<Array<{ built: number | string | boolean; watermark: string | Date }>>(
      `SELECT built, watermark FROM report_state WHERE app_id = ?${lock && this.mysql ? ' FOR UPDATE' : ''}`,
      [appId],
    );
    if (rows.length === 0) return null;
    const w = rows[0].watermark;
    return { built: Number(rows[0].built) === 1 || rows[0].built === true, watermark: w instanceof Date ? w : new Date(`${String(w).replace(' ', 'T')}Z`) };
  }

  private async refreshNow(appId: string): Promise<boolean> {
    const start = new Date();
    // First without a lock or a write: when nothing changed since the watermark (the usual case of a report), that is
    // all (a change committed after these reads is stamped after the watermark, and found next time).
    const seen = await this.state(this.dataSource.manager, appId);
    if (!seen?.built) return false;
    if ((await this.changedBuckets(this.dataSource.manager, appId, seen.watermark)).length === 0) return true;
    return retryOnLockConflict(() =>
      this.dataSource.transaction(async (m) => {
        // Locked first: on MySQL the reads below see what the refresh before this one (on any node) committed.
        const state = await this.state(m, appId, true);
        if (!state?.built) return false;
        for (const b of await this.changedBuckets(m, appId, state.watermark)) await this.recompute(m, appId, b);
        await m.query('DELETE FROM report_dirty WHERE app_id = ? AND marked_at < ?', [appId, this.date(new Date(state.watermark.getTime() - 2 * REFRESH_MARGIN_MS))]);
        await m.query('UPDATE report_state SET watermark = ? WHERE app_id = ?', [this.date(start), appId]);
        return true;
      }),
    );
  }

  /** The buckets with registrations or instances changed, or registrations deleted, since `watermark` (less the margin). */
  private async changedBuckets(m: EntityManager, appId: string, watermark: Date): Promise<Bucket[]> {
    const since = this.date(new Date(watermark.getTime() - REFRESH_MARGIN_MS));
    const buckets = new Map<string, Bucket>();
    const add = (rows: Array<{ course_id: string; d: string }>) => {
      for (const r of rows) buckets.set(`${r.course_id}\n${String(r.d)}`, { courseId: r.course_id, day: String(r.d) });
    };
    add(await m.query(`SELECT DISTINCT course_id, ${this.day('created_at')} AS d FROM registration WHERE app_id = ? AND updated_at >= ?`, [appId, since]));
    add(
      await m.query(
        `SELECT DISTINCT r.course_id AS course_id, ${this.day('r.created_at')} AS d FROM registration_instance i INNER JOIN registration r ON r.app_id = i.app_id AND r.id = i.registration_id WHERE i.app_id = ? AND i.updated_at >= ?`,
        [appId, since],
      ),
    );
    add(await m.query('SELECT course_id, created_day AS d FROM report_dirty WHERE app_id = ? AND marked_at >= ?', [appId, since]));
    return [...buckets.values()];
  }

  /** One bucket, recomputed from its registrations. */
  private async recompute(m: EntityManager, appId: string, b: Bucket): Promise<void> {
    const next = new Date(Date.parse(`${b.day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const where = 'r.app_id = ? AND r.course_id = ? AND r.created_at >= ? AND r.created_at < ?';
    const params = [appId, b.courseId, b.day, next];
    const figures = await this.compute(m, where, params);
    const tallies: BucketTallies = new Map();
    await this.counters.tally(m, where, params, (c) => this.day(c), LATEST_JOIN, tallies);
    const bucket = 'app_id = ? AND course_id = ? AND created_day = ?';
    const key = [appId, b.courseId, b.day];
    await m.query(`DELETE FROM report_day WHERE ${bucket}`, key);
    await m.query(`DELETE FROM report_completion_day WHERE ${bucket}`, key);
    await this.counters.remove(m, bucket, key);
    await this.write(m, appId, figures);
    await this.counters.write(m, appId, tallies);
  }

  /** The buckets' figures of the registrations `where` selects (alias r, latest instance i). */
  private async compute(m: EntityManager, where: string, params: unknown[]): Promise<Figures> {
    const days = await m.query<Array<Record<string, string | number>>>(`${bucketSelect((c) => this.day(c))} ${LATEST_JOIN} WHERE ${where} GROUP BY r.course_id, created_day`, params);
    const completions = await m.query<Array<{ course_id: string; created_day: string; completed_day: string; n: string | number }>>(
      `SELECT r.course_id AS course_id, ${this.day('r.created_at')} AS created_day, ${this.day('i.completed_at')} AS completed_day, COUNT(*) AS n ${LATEST_JOIN} WHERE ${where} AND i.completed_at IS NOT NULL GROUP BY r.course_id, created_day, completed_day`,
      params,
    );
    const figures: Figures = { days: new Map(), completions: new Map() };
    for (const d of days) figures.days.set(`${d.course_id}\u0000${String(d.created_day)}`, DAY_COLUMNS.map((c) => Number(d[c] ?? 0)));
    for (const c of completions) figures.completions.set(`${c.course_id}\u0000${String(c.created_day)}\u0000${String(c.completed_day)}`, Number(c.n));
    return figures;
  }

  private async write(m: EntityManager, appId: string, figures: Figures): Promise<void> {
    await insertRows(m, 'report_day', ['app_id', 'course_id', 'created_day', ...DAY_COLUMNS], [...figures.days].map(([key, values]) => [appId, ...key.split('\u0000'), ...values]));
    await insertRows(m, 'report_completion_day', ['app_id', 'course_id', 'created_day', 'completed_day', 'completed'], [...figures.completions].map(([key, n]) => [appId, ...key.split('\u0000'), n]));
  }

  private async buildNow(appId: string, progress?: (done: number, total: number) => void, chunkSize = BUILD_CHUNK): Promise<void> {
    const start = new Date();
    const upsert = this.mysql
      ? 'ON DUPLICATE KEY UPDATE built = VALUES(built), watermark = VALUES(watermark)'
      : 'ON CONFLICT (app_id) DO UPDATE SET built = excluded.built, watermark = excluded.watermark';
    // Not built while it is built: reports scan meanwhile, refreshes wait for the end.
    await this.dataSource.query(`INSERT INTO report_state (app_id, built, watermark) VALUES (?, ?, ?) ${upsert}`, [appId, 0, this.date(start)]);
    const [{ n }] = await this.dataSource.query<Array<{ n: number | string }>>('SELECT COUNT(*) AS n FROM registration WHERE app_id = ?', [appId]);
    const total = Number(n);
    progress?.(0, total);
    // The registrations in primary key order, chunkSize at a time (their instances in the same order: the pages
    // are read once, in order), their figures added up by bucket here, written at the end.
    const all: Figures = { days: new Map(), completions: new Map() };
    const tallies: BucketTallies = new Map();
    const m = this.dataSource.manager;
    let done = 0;
    for (let after = ''; ; ) {
      const edge = await m.query<Array<{ id: string }>>('SELECT id FROM registration WHERE app_id = ? AND id > ? ORDER BY id LIMIT 1 OFFSET ?', [appId, after, chunkSize - 1]);
      const last = edge[0]?.id;
      const where = `r.app_id = ? AND r.id > ?${last === undefined ? '' : ' AND r.id <= ?'}`;
      const params = [appId, after, ...(last === undefined ? [] : [last])];
      const chunk = await this.compute(m, where, params);
      // The activity trees of the same registrations, read a few at a time (a chunk of trees is heavy).
      await this.counters.tally(m, where, params, (c) => this.day(c), LATEST_JOIN, tallies);
      for (const [key, values] of chunk.days) {
        const sum = all.days.get(key);
        if (sum) values.forEach((v, k) => (sum[k] += v));
        else all.days.set(key, values);
        done += values[0];
      }
      for (const [key, count] of chunk.completions) all.completions.set(key, (all.completions.get(key) ?? 0) + count);
      progress?.(Math.min(done, total), total);
      if (last === undefined) break;
      after = last;
    }
    await retryOnLockConflict(() =>
      this.dataSource.transaction(async (tx) => {
        await tx.query('DELETE FROM report_day WHERE app_id = ?', [appId]);
        await tx.query('DELETE FROM report_completion_day WHERE app_id = ?', [appId]);
        await this.counters.remove(tx, 'app_id = ?', [appId]);
        await this.write(tx, appId, all);
        await this.counters.write(tx, appId, tallies);
      }),
    );
    // Changes made while it was built are stamped after `start`: the next refresh recomputes their buckets.
    await this.dataSource.query('UPDATE report_state SET built = ?, watermark = ?, built_at = ? WHERE app_id = ?', [1, this.date(start), this.date(new Date()), appId]);
    progress?.(total, total);
  }
}
