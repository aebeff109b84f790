import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, SelectQueryBuilder } from 'typeorm';
import { ActivityTally, parseTree } from './activity-tally';
import { TagsService } from '../tags/tags.service';
import { RegistrationEntity } from './entities/registration.entity';
import { RegistrationInstanceEntity } from './entities/registration-instance.entity';
import type { ActivityProgress, QuestionAnalysis, RegistrationRow, Totals } from './registration-statistics-types';
import { RegistrationSummaries, SUMMARY_TIME_BOUNDS, SummaryFilter } from './registration-summaries';

/** Which registrations a report counts: created in [from, to), of a course, of a learner, carrying one of the tags. */
export interface StatisticsFilter {
  from?: Date;
  to?: Date;
  courseId?: string;
  learnerId?: string;
  tags?: string[];
}

/** Where figures come from: the summaries when they can answer the filter (`auto`), or a scan of the registrations. */
export type StatisticsSource = 'auto' | 'scan';

/** The most registrations whose activity trees a report reads for activity progress and question analysis when the counters cannot answer (tags, a learner, part of a day). */
export const TREE_SAMPLE_LIMIT = 5000;

/**
 * The figures of the report viewer, from the registrations and their latest instances. Totals, registrations per
 * day and per course and the score and time histograms come from the summaries (RegistrationSummaries, refreshed
 * first) when the filter is an application or a course over whole UTC days; with tags or a learner, or before an
 * application's summaries exist, from indexed scans (ix_registration_created, ix_registration_course_latest,
 * ix_registration_learner). Activity progress and question analysis come from the counters kept with the
 * summaries (over whole days), else from the stored activity trees of the newest registrations (at most
 * TREE_SAMPLE_LIMIT); tables from the newest registrations.
 */
@Injectable()
export class RegistrationStatistics {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tags: TagsService,
    private readonly summaries: RegistrationSummaries,
  ) {}

  /** The summaries' filter when they can answer `filter` and are up to date; null to scan. */
  private async summarized(appId: string, filter: StatisticsFilter, source: StatisticsSource): Promise<SummaryFilter | null> {
    if (source === 'scan' || filter.learnerId !== undefined || filter.tags?.length) return null;
    const fromDay = filter.from ? wholeDay(filter.from) : undefined;
    const toDay = filter.to ? wholeDay(filter.to) : undefined;
    if (fromDay === null || toDay === null) return null;
    if (!(await this.summaries.fresh(appId))) return null;
    return { ...(filter.courseId !== undefined ? { courseId: filter.courseId } : {}), ...(fromDay ? { fromDay } : {}), ...(toDay ? { toDay } : {}) };
  }

  async totals(appId: string, filter: StatisticsFilter, source: StatisticsSource = 'auto'): Promise<Totals> {
    const summary = await this.summarized(appId, filter, source);
    if (summary) return this.summaries.totals(appId, summary);
    const row = await this.base(appId, filter)
      .select('COUNT(*)', 'registrations')
      .addSelect('SUM(CASE WHEN i.firstAccessAt IS NOT NULL OR i.completion <> :unknown OR i.success <> :unknown THEN 1 ELSE 0 END)', 'started')
      .addSelect("SUM(CASE WHEN i.completion = 'COMPLETED' THEN 1 ELSE 0 END)", 'completed')
      .addSelect("SUM(CASE WHEN i.success = 'PASSED' THEN 1 ELSE 0 END)", 'passed')
      .addSelect("SUM(CASE WHEN i.success = 'FAILED' THEN 1 ELSE 0 END)", 'failed')
      .addSelect('AVG(i.scoreScaled)', 'averageScore')
      .addSelect('AVG(CASE WHEN i.totalSeconds > 0 THEN i.totalSeconds END)', 'averageSeconds')
      .setParameter('unknown', 'UNKNOWN')
      .getRawOne<Record<string, string | number | null>>();
    const n = (k: string) => Number(row?.[k] ?? 0);
    const avg = (k: string) => (row?.[k] === null || row?.[k] === undefined ? null : Number(row[k]));
    return { registrations: n('registrations'), started: n('started'), completed: n('completed'), passed: n('passed'), failed: n('failed'), averageScore: avg('averageScore'), averageSeconds: avg('averageSeconds') };
  }

  /** Registrations created and completed per day (UTC) within the filter. */
  async perDay(appId: string, filter: StatisticsFilter, source: StatisticsSource = 'auto'): Promise<Array<{ day: string; created: number; completed: number }>> {
    const summary = await this.summarized(appId, filter, source);
    if (summary) return this.summaries.perDay(appId, summary);
    const created = await this.base(appId, filter).select(this.day('r.createdAt'), 'day').addSelect('COUNT(*)', 'n').groupBy('day').getRawMany<{ day: string; n: string | number }>();
    const completed = await this.base(appId, filter)
      .andWhere('i.completedAt IS NOT NULL')
      .select(this.day('i.completedAt'), 'day')
      .addSelect('COUNT(*)', 'n')
      .groupBy('day')
      .getRawMany<{ day: string; n: string | number }>();
    const days = new Map<string, { day: string; created: number; completed: number }>();
    const at = (d: string) => {
      const key = String(d).slice(0, 10);
      let e = days.get(key);
      if (!e) days.set(key, (e = { day: key, created: 0, completed: 0 }));
      return e;
    };
    for (const r of created) at(r.day).created += Number(r.n);
    for (const r of completed) at(r.day).completed += Number(r.n);
    return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
  }

  /** Registrations and completions per course. */
  async perCourse(appId: string, filter: StatisticsFilter, source: StatisticsSource = 'auto'): Promise<Array<{ courseId: string; registrations: number; completed: number; passed: number }>> {
    const summary = await this.summarized(appId, filter, source);
    if (summary) return this.summaries.perCourse(appId, summary);
    const rows = await this.base(appId, filter)
      .select('r.courseId', 'courseId')
      .addSelect('COUNT(*)', 'registrations')
      .addSelect("SUM(CASE WHEN i.completion = 'COMPLETED' THEN 1 ELSE 0 END)", 'completed')
      .addSelect("SUM(CASE WHEN i.success = 'PASSED' THEN 1 ELSE 0 END)", 'passed')
      .groupBy('r.courseId')
      .getRawMany<{ courseId: string; registrations: string | number; completed: string | number; passed: string | number }>();
    return rows.map((r) => ({ courseId: r.courseId, registrations: Number(r.registrations), completed: Number(r.completed), passed: Number(r.passed) }));
  }

  /** Scores (scaled, 0..1) in ten buckets of 10 points; registrations without a score are left out. */
  async scoreHistogram(appId: string, filter: StatisticsFilter, source: StatisticsSource = 'auto'): Promise<number[]> {
    const summary = await this.summarized(appId, filter, source);
    if (summary) return this.summaries.scoreHistogram(appId, summary);
    const bucket = this.mysql ? 'LEAST(FLOOR(i.scoreScaled * 10), 9)' : 'MIN(CAST(i.scoreScaled * 10 AS INTEGER), 9)';
    const rows = await this.base(appId, filter)
      .andWhere('i.scoreScaled IS NOT NULL AND i.scoreScaled >= 0')
      .select(bucket, 'bucket')
      .addSelect('COUNT(*)', 'n')
      .groupBy('bucket')
      .getRawMany<{ bucket: string | number; n: string | number }>();
    const out = new Array<number>(10).fill(0);
    for (const r of rows) out[Math.max(0, Math.min(9, Number(r.bucket)))] += Number(r.n);
    return out;
  }

  /** Time spent by registrations that spent any, in buckets whose lower bounds (seconds) are `bounds`. */
  async timeHistogram(appId: string, filter: StatisticsFilter, bounds: number[], source: StatisticsSource = 'auto'): Promise<number[]> {
    const summary = bounds.join() === SUMMARY_TIME_BOUNDS.join() ? await this.summarized(appId, filter, source) : null;
    if (summary) return this.summaries.timeHistogram(appId, summary);
    const cases = bounds.map((b, k) => `WHEN i.totalSeconds >= ${Number(b)} THEN ${k}`).reverse().join(' ');
    const rows = await this.base(appId, filter)
      .andWhere('i.totalSeconds > 0')
      .select(`CASE ${cases} ELSE 0 END`, 'bucket')
      .addSelect('COUNT(*)', 'n')
      .groupBy('bucket')
      .getRawMany<{ bucket: string | number; n: string | number }>();
    const out = new Array<number>(bounds.length).fill(0);
    for (const r of rows) out[Number(r.bucket)] += Number(r.n);
    return out;
  }

  /** Registrations with their latest instance's progress, newest first. */
  async rows(appId: string, filter: StatisticsFilter, limit: number): Promise<RegistrationRow[]> {
    const qb = this.base(appId, filter)
      .select(['r.id', 'r.courseId', 'r.learnerId', 'r.learnerFirstName', 'r.learnerLastName', 'r.createdAt'])
      .addSelect(['i.completion', 'i.success', 'i.scoreScaled', 'i.totalSeconds', 'i.firstAccessAt', 'i.lastAccessAt', 'i.completedAt', 'i.registrationId', 'i.appId', 'i.instance'])
      .orderBy('r.createdAt', 'DESC');
    // A course's or a learner's index (…, created_at) gives that order; a tiebreak on id would make SQLite walk
    // ix_registration_created instead (all the application's registrations, seconds at a million).
    if (filter.courseId === undefined && filter.learnerId === undefined) qb.addOrderBy('r.id', 'DESC');
    const rows = await qb.limit(limit).getMany();
    return rows.map((r) => {
      const i = (r as RegistrationEntity & { latest: RegistrationInstanceEntity }).latest;
      return {
        id: r.id,
        courseId: r.courseId,
        learnerId: r.learnerId,
        learnerName: [r.learnerFirstName, r.learnerLastName].filter(Boolean).join(' '),
        completion: i.completion,
        success: i.success,
        score: i.scoreScaled,
        seconds: i.totalSeconds,
        created: r.createdAt.toISOString(),
        firstAccess: i.firstAccessAt?.toISOString() ?? null,
        lastAccess: i.lastAccessAt?.toISOString() ?? null,
        completed: i.completedAt?.toISOString() ?? null,
      };
    });
  }

  /**
   * Progress per activity of the course's tree and the analysis of its questions (runtime interactions): from the
   * counters kept with the summaries when they can answer the filter, else from the trees of the newest
   * TREE_SAMPLE_LIMIT registrations. `sampled`: the registrations counted.
   */
  async activityAnalysis(appId: string, filter: StatisticsFilter, source: StatisticsSource = 'auto'): Promise<{ activities: ActivityProgress[]; questions: QuestionAnalysis[]; sampled: number }> {
    const summary = await this.summarized(appId, filter, source);
    if (summary) return this.summaries.activityAnalysis(appId, summary);
    // Raw rows: thousands of trees are parsed here, not hydrated into entities first.
    const trees = await this.base(appId, filter)
      .select('i.activityDetails', 'tree')
      .orderBy('r.createdAt', 'DESC')
      .limit(TREE_SAMPLE_LIMIT)
      .getRawMany<{ tree: string | null }>();
    const tally = new ActivityTally();
    for (const r of trees) tally.add(parseTree(r.tree));
    return { ...tally.analysis(), sampled: trees.length };
  }

  private get mysql(): boolean {
    return this.dataSource.options.type === 'mysql';
  }

  private day(column: string): string {
    return this.mysql ? `DATE_FORMAT(${column}, '%Y-%m-%d')` : `substr(${column}, 1, 10)`;
  }

  /** The filter's registrations joined to their latest instance (as `r.latest`). */
  private base(appId: string, filter: StatisticsFilter): SelectQueryBuilder<RegistrationEntity> {
    const qb = this.dataSource
      .getRepository(RegistrationEntity)
      .createQueryBuilder('r')
      .innerJoinAndMapOne('r.latest', RegistrationInstanceEntity, 'i', 'i.appId = r.appId AND i.registrationId = r.id AND i.instance = r.latestInstance')
      .where('r.appId = :appId', { appId });
    if (filter.courseId !== undefined) qb.andWhere('r.courseId = :courseId', { courseId: filter.courseId });
    if (filter.learnerId !== undefined) qb.andWhere('r.learnerId = :learnerId', { learnerId: filter.learnerId });
    if (filter.from) qb.andWhere('r.createdAt >= :from', { from: filter.from });
    if (filter.to) qb.andWhere('r.createdAt < :to', { to: filter.to });
    const tagged = this.tags.tagFilterCondition('r.id', appId, 'registration', filter.tags);
    if (tagged) qb.andWhere(tagged.sql, tagged.parameters);
    return qb;
  }
}

/** The UTC day (YYYY-MM-DD) a midnight stands for; null when the date is not a UTC midnight. */
function wholeDay(d: Date): string | null {
  return d.getTime() % 86_400_000 === 0 ? d.toISOString().slice(0, 10) : null;
}
