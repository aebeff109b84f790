import { Injectable } from '@nestjs/common';
import type { Principal } from '../../platform/auth/principal';
import { ForbiddenError } from '../../platform/http/domain-errors';
import { CoursesService } from '../courses/courses.service';
import { RegistrationStatistics, StatisticsFilter } from '../registrations/registration-statistics';
import { RegistrationsService } from '../registrations/registrations.service';
import { SUMMARY_TIME_BOUNDS } from '../registrations/registration-summaries';
import { XapiStatementsService } from '../xapi/xapi-statements.service';
import { toApiStatement } from '../xapi/xapi-statement-result';
import { ReportQueryDto } from './dto/report-query.dto';
import { navAllows, PageAncestry, parseViewerPath, ViewerPage } from './viewer-pages';

/** Lower bounds (seconds) of the time-spent buckets (those the summaries keep): under 1 min, 1–5, 5–15, 15–30, 30–60 min, 1–2 h, over 2 h. */
export const TIME_BUCKETS = SUMMARY_TIME_BOUNDS;
/** Instances (attempts) a registration's report shows. */
export const MAX_ATTEMPTS = 100;
/** Rows a report table shows (and exports). */
export const TABLE_ROWS = 500;

/** The data of the report viewer's pages; each checks that the caller may see the page (a viewer link's navPermission). */
@Injectable()
export class ReportsService {
  constructor(
    private readonly stats: RegistrationStatistics,
    private readonly courses: CoursesService,
    private readonly registrations: RegistrationsService,
    private readonly statements: XapiStatementsService,
  ) {}

  async application(principal: Principal, query: ReportQueryDto) {
    this.allow(principal, { kind: 'application' });
    const filter = this.filter(query);
    const [totals, perDay, perCourse] = await Promise.all([this.stats.totals(principal.appId, filter), this.stats.perDay(principal.appId, filter), this.stats.perCourse(principal.appId, filter)]);
    const titles = await this.courses.titles(principal.appId, perCourse.map((c) => c.courseId));
    const courses = perCourse
      .map((c) => ({ ...c, title: titles.get(c.courseId) ?? c.courseId, completionRate: c.registrations ? c.completed / c.registrations : 0 }))
      .sort((a, b) => b.completionRate - a.completionRate || b.registrations - a.registrations || a.courseId.localeCompare(b.courseId));
    return { totals, perDay, courses };
  }

  async course(principal: Principal, courseId: string, query: ReportQueryDto) {
    this.allow(principal, { kind: 'course', id: courseId });
    const course = await this.courses.get(principal.appId, courseId);
    const filter = { ...this.filter(query), courseId };
    const [totals, scores, times, analysis, registrations] = await Promise.all([
      this.stats.totals(principal.appId, filter),
      this.stats.scoreHistogram(principal.appId, filter),
      this.stats.timeHistogram(principal.appId, filter, TIME_BUCKETS),
      this.stats.activityAnalysis(principal.appId, filter),
      this.stats.rows(principal.appId, filter, TABLE_ROWS),
    ]);
    return { course: { id: course.id, title: course.title, learningStandard: course.courseLearningStandard }, totals, scores, times: { bounds: TIME_BUCKETS, counts: times }, ...analysis, registrations };
  }

  async learner(principal: Principal, learnerId: string, query: ReportQueryDto) {
    this.allow(principal, { kind: 'learner', id: learnerId });
    const filter = { ...this.filter(query), learnerId };
    const registrations = await this.stats.rows(principal.appId, filter, TABLE_ROWS);
    const titles = await this.courses.titles(principal.appId, [...new Set(registrations.map((r) => r.courseId))]);
    const learnerName = registrations.find((r) => r.learnerName)?.learnerName ?? '';
    return { learner: { id: learnerId, name: learnerName }, registrations: registrations.map((r) => ({ ...r, courseTitle: titles.get(r.courseId) ?? r.courseId })) };
  }

  async registration(principal: Principal, registrationId: string) {
    const reg = await this.registrations.requireRegistration(principal.appId, registrationId);
    this.allow(principal, { kind: 'registration', id: registrationId }, { courseId: reg.courseId, learnerId: reg.learnerId });
    const [progress, attempts, history, statements] = await Promise.all([
      this.registrations.progress(principal.appId, registrationId, { includeChildResults: true, includeInteractionsAndObjectives: true, includeRuntime: true }),
      this.attempts(principal.appId, registrationId),
      this.registrations.launchHistory(principal.appId, registrationId, false),
      this.statements.query(principal.appId, { registration: reg.xapiRegistrationId, ascending: true }),
    ]);
    return {
      registration: progress,
      attempts: attempts.instances,
      moreAttempts: attempts.more,
      launchHistory: history.launchHistory,
      statements: statements.statements.map(toApiStatement),
      moreStatements: statements.more !== undefined,
    };
  }

  /** Every instance (attempt) of the registration with its activity tree and runtime data, newest first (at most MAX_ATTEMPTS). */
  private async attempts(appId: string, registrationId: string) {
    const instances = [];
    let more: string | undefined;
    do {
      const page = await this.registrations.listInstances(appId, registrationId, { includeChildResults: true, includeInteractionsAndObjectives: true, includeRuntime: true, ...(more ? { more } : {}) });
      instances.push(...page.registrations);
      more = page.more;
    } while (more && instances.length < MAX_ATTEMPTS);
    instances.sort((a, b) => b.instance - a.instance);
    return { instances: instances.slice(0, MAX_ATTEMPTS), more: more !== undefined || instances.length > MAX_ATTEMPTS };
  }

  /** A viewer link shows only what its navPermission allows from its page; an application's own credentials, everything. */
  private allow(principal: Principal, page: ViewerPage, ancestry: PageAncestry = {}): void {
    const viewer = principal.viewer;
    if (!viewer) return;
    const root = parseViewerPath(viewer.root);
    if (!root || !navAllows(viewer.nav, root, page, ancestry)) {
      throw new ForbiddenError(`This report link (${viewer.nav}) does not open this page`);
    }
  }

  private filter(query: ReportQueryDto): StatisticsFilter {
    return {
      ...(query.from ? { from: query.from } : {}),
      // A date alone means up to the end of that day.
      ...(query.to ? { to: query.to.getUTCHours() === 0 && query.to.getUTCMinutes() === 0 && query.to.getUTCSeconds() === 0 && query.to.getUTCMilliseconds() === 0 ? new Date(query.to.getTime() + 86_400_000) : query.to } : {}),
      ...(query.courseId ? { courseId: query.courseId } : {}),
      ...(query.learnerId ? { learnerId: query.learnerId } : {}),
      ...(query.tags?.length ? { tags: query.tags } : {}),
    };
  }
}
