import { leanRead } from '../../platform/database/lean-read';
import { httpUrlProblem } from '../../platform/http/http-url';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { EventBus, RegistrationDeleted } from '../../platform/events';
import { DataSource, EntityManager, In, Repository, SelectQueryBuilder } from 'typeorm';
import { retryOnLockConflict } from '../../platform/database/hot-statement';
import { KeyRing } from '../../platform/crypto/keyring';
import { InvalidInputError, NotFoundError } from '../../platform/http/domain-errors';
import { ListQuery } from '../../platform/http/list-query';
import { PageTokens } from '../../platform/http/page-tokens';
import { CoursesService } from '../courses/courses.service';
import { type CourseVersion, joinVersionTitle } from '../courses/course-version';
import { SettingsService, SettingTarget } from '../settings/settings.service';
import { TagsService } from '../tags/tags.service';
import type { RegistrationSet, RegistrationSetKey } from '../xapi/xapi-statements.service';
import { PostBackDto } from './dto/registration.dto';
import { RegistrationInstancesQueryDto, RegistrationListQueryDto } from './dto/registration-query.dto';
import { LaunchHistoryEntity } from './entities/launch-history.entity';
import { LaunchHistoryLogEntity } from './entities/launch-history-log.entity';
import { LaunchHistoryLog } from './launch-history-log';
import { RegistrationEntity, StoredPostBack } from './entities/registration.entity';
import { RegistrationSummaries } from './registration-summaries';
import { RegistrationInstanceEntity } from './entities/registration-instance.entity';
import { RegistrationPostbackStateEntity } from './entities/registration-postback-state.entity';
import { IncludeFlags, Objective } from './registration-types';
import { registrationView, RegistrationView } from './registration-view';
import { freshInstance } from './fresh-instance';

/** Ids one `IN (…)` list of existingIds holds at most. */
const ID_CHUNK = 500;

/** LaunchHistorySchema */
export interface LaunchHistoryView {
  id: string;
  instance: number;
  score?: { scaled: number };
  completionStatus: string;
  successStatus: string;
  historyLog?: string;
  totalSecondsTracked: number;
  launchTime: string;
  exitTime?: string;
  lastRuntimeUpdate?: string;
  launchHistoryId: string;
}

const includeOf = (q: IncludeFlags): IncludeFlags => ({
  includeChildResults: q.includeChildResults === true,
  includeInteractionsAndObjectives: q.includeInteractionsAndObjectives === true,
  includeRuntime: q.includeRuntime === true,
});

/** A registration as a list page reads it: with its latest instance and that instance's course version (its title). */
type ListedRegistration = RegistrationEntity & { latest?: RegistrationInstanceEntity; latestVersion?: Pick<CourseVersion, 'title'> | null };

/** Tagged registrations up to which a tags filter lets the tags lead the list query (see applyTagFilter). */
const DENSE_TAG_ROWS = 2000;

import { monthStart, settingCourseRef } from './registration-refs';

export { monthStart, settingCourseRef };

/**
 * What another module adds to a fresh instance of a course version before it is stored (its tree and summary:
 * cmi5 satisfies its NotApplicable AUs at registration), and what it does once the instance is stored (null: nothing).
 */
export type InstanceInitializer = (instance: RegistrationInstanceEntity, version: CourseVersion, now: Date) => (() => Promise<void>) | null;

/**
 * Registrations and their instances: progress reads, instances, resets, deletion, and the hooks by which courses and
 * applications take registrations along when they go. RegistrationCreation creates them; the player writes progress.
 */
@Injectable()
export class RegistrationsService {
  private readonly logger = new Logger(RegistrationsService.name);
  private readonly listQuery: ListQuery;
  private readonly instanceQuery: ListQuery;
  private readonly initializers: InstanceInitializer[] = [];
  private readonly removalHooks: Array<(appId: string, ids: string[]) => Promise<void>> = [];

  constructor(
    @InjectRepository(RegistrationEntity) private readonly registrations: Repository<RegistrationEntity>,
    @InjectRepository(RegistrationInstanceEntity) private readonly instances: Repository<RegistrationInstanceEntity>,
    @InjectRepository(LaunchHistoryEntity) private readonly history: Repository<LaunchHistoryEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly courses: CoursesService,
    private readonly tags: TagsService,
    private readonly settings: SettingsService,
    private readonly keys: KeyRing,
    private readonly historyLogs: LaunchHistoryLog,
    private readonly events: EventBus,
    private readonly summaries: RegistrationSummaries,
    tokens: PageTokens,
  ) {
    this.listQuery = new ListQuery(tokens, {
      name: 'registrations',
      pageSize: 10,
      datetimeColumns: { created: 'r.createdAt', updated: 'r.updatedAt' },
      filterColumns: {
        registration_id: 'r.id',
        course_id: 'r.courseId',
        learner_id: 'r.learnerId',
        learner_email: 'r.learnerEmail',
        learner_first_name: 'r.learnerFirstName',
        learner_last_name: 'r.learnerLastName',
      },
      orderColumns: { created_asc: 'r.createdAt', created_desc: 'r.createdAt', updated_asc: 'r.updatedAt', updated_desc: 'r.updatedAt' },
      idColumn: 'r.id',
      defaults: { datetimeFilter: 'created', filterBy: 'registration_id', orderBy: 'created_desc' },
    });
    this.instanceQuery = new ListQuery(tokens, {
      name: 'registration-instances',
      pageSize: 10,
      datetimeColumns: { updated: 'i.updatedAt' },
      filterColumns: { registration_id: 'i.registrationId' },
      orderColumns: { instance_asc: 'i.instance' },
      idColumn: 'i.instance',
      defaults: { datetimeFilter: 'updated', filterBy: 'registration_id', orderBy: 'instance_asc' },
    });
  }

  // ---- creation's parts (RegistrationCreation creates) ------------------------------------------------------

  /** The player registers what a fresh instance starts with beyond the course's tree (cmi5: moveOn at registration). */
  registerInstanceInitializer(initializer: InstanceInitializer): void {
    this.initializers.push(initializer);
  }

  /** What another module removes with deleted registrations (the player: their launch sessions). */
  registerRemovalHook(hook: (appId: string, ids: string[]) => Promise<void>): void {
    this.removalHooks.push(hook);
  }

  /** Which of these registration ids exist in the application. */
  async existingIds(appId: string, ids: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < ids.length; i += ID_CHUNK) {
      const rows = await this.registrations.find({ where: { appId, id: In(ids.slice(i, i + ID_CHUNK)) }, select: { id: true } });
      out.push(...rows.map((r) => r.id));
    }
    return out;
  }

  /** Registrations of the application created at or after a moment (ix_registration_created). */
  async countCreatedSince(appId: string, since: Date): Promise<number> {
    return this.registrations.createQueryBuilder('r').where('r.appId = :appId AND r.createdAt >= :since', { appId, since }).getCount();
  }

  // ---- reading --------------------------------------------------------------------------------------------

  async list(appId: string, query: RegistrationListQueryDto): Promise<{ registrations: RegistrationView[]; more?: string; total?: number }> {
    const resolved = this.listQuery.resolveFilters(appId, {
      ...query,
      extra: {
        ...(query.courseId !== undefined ? { courseId: query.courseId } : {}),
        ...(query.learnerId !== undefined ? { learnerId: query.learnerId } : {}),
        tags: query.tags ?? [],
        ...includeOf(query),
      },
    });
    const f = resolved.filters;
    const qb = this.registrations.createQueryBuilder('r').where('r.appId = :appId', { appId }) as SelectQueryBuilder<ListedRegistration>;
    if (typeof f.courseId === 'string') qb.andWhere('r.courseId = :courseId', { courseId: f.courseId });
    if (typeof f.learnerId === 'string') qb.andWhere('r.learnerId = :learnerId', { learnerId: f.learnerId });
    const tags = (f.tags as string[] | undefined) ?? [];
    // The plan is chosen on the first page and travels in `more` (the filters), so a later page costs no count.
    if (tags.length > 0) f.tagPlan = await this.applyTagFilter(qb, appId, tags, f.tagPlan === 'lead' || f.tagPlan === 'probe' ? f.tagPlan : undefined);
    const page = await this.listQuery.page(appId, qb, resolved, (row) => [f.orderBy.startsWith('created') ? row.createdAt : row.updatedAt, row.id], {
      includeTotalCount: query.includeTotalCount === true && query.more === undefined,
      // Tags that lead: their registrations are sorted to find the page, then only the page's rows are joined (joined
      // first, MariaDB joins every tagged registration before sorting: 15–120 ms for 1,000 of 1,000,000, not 5).
      idsFirst: f.tagPlan === 'lead',
      // The page's rows come with their latest instance and its course version's title (primary-key lookups in the
      // same query): the page is this query and the one of its tags.
      rows: (rows) => {
        const joined = rows.innerJoinAndMapOne('r.latest', RegistrationInstanceEntity, 'i', 'i.appId = r.appId AND i.registrationId = r.id AND i.instance = r.latestInstance');
        const title = joinVersionTitle(joined, 'r.latestVersion', 'v', 'v.appId = r.appId AND v.courseId = r.courseId AND v.version = i.courseVersion');
        return title.qb.select(['r', 'i', ...title.columns]);
      },
    });
    const include = query.more === undefined ? includeOf(query) : includeOf(f as IncludeFlags);
    const pairs = page.items.flatMap((r) => (r.latest ? [{ reg: r, inst: r.latest, courseTitle: r.latestVersion?.title ?? '' }] : []));
    return { registrations: await this.describe(appId, pairs, include), more: page.more, total: page.total };
  }

  /**
   * The tags filter of a registration list, in the shape that pages fast for how many registrations carry the
   * tags. Few (≤ DENSE_TAG_ROWS): the tags lead (EXISTS, which MySQL/MariaDB turn into a semi-join from the tag
   * index) and the few matches are sorted. Many: the list's own index order leads and each registration is
   * probed for its tags (a correlated subquery the optimizer keeps per row), so a page reads ~pageSize × (all /
   * tagged) index entries instead of sorting every match (2 s a page for a tag on 100,000 of 1,000,000). The plan
   * of the first page (`chosen`) is kept for the pages after it: no count on those.
   */
  private async applyTagFilter(qb: SelectQueryBuilder<ListedRegistration>, appId: string, tags: string[], chosen?: 'lead' | 'probe'): Promise<'lead' | 'probe'> {
    const wanted = [...new Set(tags)];
    let plan = chosen;
    if (plan === undefined) {
      const marks = wanted.map(() => '?').join(', ');
      const [{ n }] = await this.dataSource.query<Array<{ n: number | string }>>(
        `SELECT COUNT(*) AS n FROM (SELECT 1 AS x FROM tag WHERE app_id = ? AND resource_type = 'registration' AND tag IN (${marks}) LIMIT ${DENSE_TAG_ROWS + 1}) dense`,
        [appId, ...wanted],
      );
      plan = Number(n) <= DENSE_TAG_ROWS ? 'lead' : 'probe';
    }
    if (plan === 'lead') {
      this.tags.applyTagFilter(qb, 'r', 'id', appId, 'registration', wanted);
      return plan;
    }
    const condition = this.tags.tagFilterCondition('r.id', appId, 'registration', wanted)!;
    qb.andWhere(`(SELECT COUNT(*) FROM (SELECT 1 AS x) probe WHERE ${condition.sql}) > 0`, condition.parameters);
    return plan;
  }

  async exists(appId: string, registrationId: string): Promise<void> {
    await this.requireRegistration(appId, registrationId);
  }

  async progress(appId: string, registrationId: string, include: IncludeFlags, instance?: number): Promise<RegistrationView> {
    const reg = await this.requireRegistration(appId, registrationId);
    const inst = await this.requireInstance(appId, reg, instance);
    const [view] = await this.describe(appId, [{ reg, inst }], includeOf(include));
    return view;
  }

  async listInstances(appId: string, registrationId: string, query: RegistrationInstancesQueryDto): Promise<{ registrations: RegistrationView[]; more?: string }> {
    const reg = await this.requireRegistration(appId, registrationId);
    const resolved = this.instanceQuery.resolveFilters(appId, { since: query.since, until: query.until, more: query.more, extra: { registrationId, ...includeOf(query) } });
    if (resolved.filters.registrationId !== registrationId) throw new InvalidInputError('more: the token belongs to another registration');
    const qb = this.instances.createQueryBuilder('i').where('i.appId = :appId AND i.registrationId = :registrationId', { appId, registrationId });
    const page = await this.instanceQuery.page(appId, qb, resolved, (row) => [row.instance, row.instance]);
    const include = query.more === undefined ? includeOf(query) : includeOf(resolved.filters as IncludeFlags);
    return { registrations: await this.describe(appId, page.items.map((inst) => ({ reg, inst })), include), more: page.more };
  }

  async launchHistory(appId: string, registrationId: string, includeHistoryLog: boolean, instance?: number): Promise<{ launchHistory: LaunchHistoryView[] }> {
    const reg = await this.requireRegistration(appId, registrationId);
    if (instance !== undefined) await this.requireInstance(appId, reg, instance);
    const rows = await this.history.find({
      where: { appId, registrationId, ...(instance !== undefined ? { instance } : {}) },
      order: { instance: 'ASC', launchTime: 'ASC' },
    });
    // The logs' parts (up to a megabyte a launch) are read only when asked for.
    const logs = includeHistoryLog ? await this.historyLogs.read(appId, rows) : null;
    return {
      launchHistory: rows.map((h) => ({
        id: h.id,
        instance: h.instance,
        ...(h.scoreScaled !== null ? { score: { scaled: h.scoreScaled } } : {}),
        completionStatus: h.completion,
        successStatus: h.success,
        ...(logs ? { historyLog: logs.get(h.id) ?? '' } : {}),
        totalSecondsTracked: h.totalSeconds,
        launchTime: h.launchTime.toISOString(),
        ...(h.exitTime ? { exitTime: h.exitTime.toISOString() } : {}),
        ...(h.lastRuntimeUpdate ? { lastRuntimeUpdate: h.lastRuntimeUpdate.toISOString() } : {}),
        launchHistoryId: h.id,
      })),
    };
  }

  // ---- instances, reset, deletion -------------------------------------------------------------------------

  /** A new instance on the latest version of the course; older instances keep their data. */
  async createInstance(appId: string, registrationId: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const reg = await this.requireRegistration(appId, registrationId);
      const { version } = await this.courses.resolveVersion(appId, reg.courseId);
      const next = reg.latestInstance + 1;
      const now = new Date();
      const instance = freshInstance(appId, registrationId, next, version, now);
      const stored = this.initializeInstance(instance, version, now);
      const won = await this.dataSource.transaction(async (m) => {
        // Compare-and-set on latest_instance: of two concurrent calls, one retries with the next number.
        const res = await m.update(RegistrationEntity, { appId, id: registrationId, latestInstance: reg.latestInstance }, { latestInstance: next, updatedAt: now });
        if (!res.affected) return false;
        await m.insert(RegistrationInstanceEntity, instance);
        return true;
      });
      if (won) return stored();
      if (attempt >= 4) throw new InvalidInputError(`registration '${registrationId}' is being changed concurrently; try again`);
    }
  }

  /** Deleting the only instance deletes the registration. */
  async deleteInstance(appId: string, registrationId: string, instance: number): Promise<void> {
    const reg = await this.requireRegistration(appId, registrationId);
    await this.requireInstance(appId, reg, instance);
    await this.removeInstances(appId, reg.id, [instance]);
  }

  async delete(appId: string, registrationId: string): Promise<void> {
    await this.requireRegistration(appId, registrationId);
    await this.removeRegistrations(appId, [registrationId]);
  }

  /**
   * DeleteRegistrationProgress: "same as delete and recreate" with the same CreateRegistration request. All
   * progress, every instance, their launch history and instance-level settings go; the registration starts again
   * as instance 0 on the latest version of its course. What the creation request gave is kept, since a recreation
   * under the same id would give it again: learner, xAPI registration id, postback, tags and registration-level
   * settings (and createdDate).
   */
  async resetProgress(appId: string, registrationId: string): Promise<void> {
    const reg = await this.requireRegistration(appId, registrationId);
    const { version } = await this.courses.resolveVersion(appId, reg.courseId);
    const now = new Date();
    const old = await this.instances.find({ where: { appId, registrationId }, select: { instance: true } });
    const instance = freshInstance(appId, registrationId, 0, version, now);
    const stored = this.initializeInstance(instance, version, now);
    // The instances first, as runtime commits lock them first (then the registration and launches).
    await retryOnLockConflict(() =>
      this.dataSource.transaction(async (m) => {
        await m.delete(RegistrationInstanceEntity, { appId, registrationId });
        await m.delete(LaunchHistoryEntity, { appId, registrationId });
        await m.delete(LaunchHistoryLogEntity, { appId, registrationId });
        await m.insert(RegistrationInstanceEntity, { ...instance });
        await m.update(RegistrationEntity, { appId, id: registrationId }, { latestInstance: 0, updatedAt: now });
      }),
    );
    for (const { instance: n } of old) {
      await this.settings.purgeTarget(appId, { level: 'registrationInstance', registrationId, instance: n, course: { courseId: reg.courseId, version: 0 } });
    }
    await stored();
  }

  /**
   * DeleteRegistrationGlobalData: the global objectives of every instance are reset, SCORM 2004 sequencing's shared
   * objectives (kept in the instance's sequencing state) included.
   */
  async resetGlobalData(appId: string, registrationId: string): Promise<void> {
    await this.requireRegistration(appId, registrationId);
    const now = new Date();
    await this.instances.update({ appId, registrationId }, { globalObjectives: [] as Objective[], updatedAt: now });
    const rows = await this.instances
      .createQueryBuilder('i')
      .select('i.instance', 'instance')
      .addSelect('i.sequencingState', 'state')
      .where('i.appId = :appId AND i.registrationId = :registrationId AND i.sequencingState IS NOT NULL', { appId, registrationId })
      .getRawMany<{ instance: number | string; state: string }>();
    for (const row of rows) {
      const saved = JSON.parse(row.state) as { state?: { globalObjectives?: Record<string, unknown> } };
      if (!saved.state) continue;
      saved.state.globalObjectives = {};
      await this.instances.update({ appId, registrationId, instance: Number(row.instance) }, { sequencingState: JSON.stringify(saved), updatedAt: now });
    }
  }

  // ---- configuration --------------------------------------------------------------------------------------

  /** The settings target of a registration (instance undefined) or of one of its instances, with its course chain. */
  async settingTarget(appId: string, registrationId: string, instance?: number): Promise<SettingTarget> {
    const reg = await this.requireRegistration(appId, registrationId);
    return this.settingTargetOf(appId, reg, await this.requireInstance(appId, reg, instance), instance !== undefined);
  }

  /** The same, of rows the caller has read: the registration's level, or (`ofInstance`) the instance's. */
  async settingTargetOf(appId: string, reg: RegistrationEntity, inst: RegistrationInstanceEntity, ofInstance: boolean): Promise<SettingTarget> {
    const { version } = await this.courses.resolveVersion(appId, reg.courseId, inst.courseVersion);
    const course = settingCourseRef(version);
    return ofInstance ? { level: 'registrationInstance', registrationId: reg.id, instance: inst.instance, course } : { level: 'registration', registrationId: reg.id, course };
  }

  // ---- tags -----------------------------------------------------------------------------------------------

  async requireRegistration(appId: string, registrationId: string): Promise<RegistrationEntity> {
    const reg = await this.registrations.findOneBy({ appId, id: registrationId });
    if (!reg) throw new NotFoundError('Registration', registrationId);
    return reg;
  }

  async requireInstance(appId: string, reg: RegistrationEntity, instance?: number): Promise<RegistrationInstanceEntity> {
    const n = instance ?? reg.latestInstance;
    const inst = await leanRead(this.instances, ['appId', 'registrationId', 'instance']).one({ appId, registrationId: reg.id, instance: n });
    if (!inst) throw new NotFoundError(`Instance of registration '${reg.id}'`, n);
    return inst;
  }

  // ---- for other modules (invitations, learners) -----------------------------------------------------------

  /** A registration, or null (no 404): for callers that pick the id themselves. */
  async find(appId: string, registrationId: string): Promise<RegistrationEntity | null> {
    return leanRead(this.registrations, ['appId', 'id']).one({ appId, id: registrationId });
  }

  /** Deletes registrations with everything they hold (the learner's erasure); ids of another application are ignored. */
  async deleteMany(appId: string, ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 200) await this.removeRegistrations(appId, ids.slice(i, i + 200));
  }

  /** Checks and seals a PostBackSchema as a registration stores it (invitations pass theirs on to their registrations). */
  sealPostBack(p: PostBackDto): StoredPostBack | null {
    return this.storedPostBack(p);
  }

  // ---- hooks ----------------------------------------------------------------------------------------------

  /** Course deletion: the course's registrations; version deletion: the instances on that version (and registrations left empty). */
  async removeForCourse(appId: string, courseId: string, version?: number): Promise<void> {
    if (version === undefined) {
      const ids = (await this.registrations.find({ where: { appId, courseId }, select: { id: true } })).map((r) => r.id);
      for (let i = 0; i < ids.length; i += 200) await this.removeRegistrations(appId, ids.slice(i, i + 200));
      return;
    }
    const rows = await this.instances
      .createQueryBuilder('i')
      .innerJoin(RegistrationEntity, 'r', 'r.appId = i.appId AND r.id = i.registrationId')
      .select(['i.registrationId', 'i.instance'])
      .where('i.appId = :appId AND r.courseId = :courseId AND i.courseVersion = :version', { appId, courseId, version })
      .getMany();
    const byReg = new Map<string, number[]>();
    for (const r of rows) byReg.set(r.registrationId, [...(byReg.get(r.registrationId) ?? []), r.instance]);
    for (const [registrationId, numbers] of byReg) await this.removeInstances(appId, registrationId, numbers);
  }

  /** Registrations per course; with a version, registrations having an instance on that version. */
  async countForCourses(appId: string, courseIds: string[], version?: number): Promise<Map<string, number>> {
    const qb = this.registrations
      .createQueryBuilder('r')
      .select('r.courseId', 'courseId')
      .where('r.appId = :appId', { appId })
      .andWhere('r.courseId IN (:...courseIds)', { courseIds });
    if (version === undefined) qb.addSelect('COUNT(*)', 'n');
    else {
      qb.addSelect('COUNT(DISTINCT r.id)', 'n').innerJoin(RegistrationInstanceEntity, 'i', 'i.appId = r.appId AND i.registrationId = r.id AND i.courseVersion = :version', { version });
    }
    const rows = await qb.groupBy('r.courseId').getRawMany<{ courseId: string; n: string | number }>();
    return new Map(courseIds.map((id) => [id, Number(rows.find((r) => r.courseId === id)?.n ?? 0)]));
  }

  /**
   * The registrations whose statements are a course's (GetCourseStatements): every registration of the course, or of
   * one learner; with a version, those with an instance on that version. Read by their xapiRegistrationId.
   */
  courseRegistrationSet(appId: string, courseId: string, version: number | undefined, learnerId: string | undefined): RegistrationSet {
    const key: RegistrationSetKey = { course: courseId, version: version ?? 'all', ...(learnerId !== undefined ? { learner: learnerId } : {}) };
    return {
      key,
      select: (k) => {
        const qb = this.registrations.createQueryBuilder('csr').select('csr.xapiRegistrationId').where('csr.appId = :csrApp AND csr.courseId = :csrCourse', { csrApp: appId, csrCourse: k.course });
        if (k.learner !== undefined) qb.andWhere('csr.learnerId = :csrLearner', { csrLearner: k.learner });
        if (k.version !== 'all') {
          qb.andWhere(
            `EXISTS (SELECT 1 FROM registration_instance csri WHERE csri.app_id = csr.app_id AND csri.registration_id = csr.id AND csri.course_version = :csrVersion)`,
            { csrVersion: k.version },
          );
        }
        return { sql: qb.getQuery(), parameters: qb.getParameters() };
      },
    };
  }

  async countByApp(appIds: string[]): Promise<Map<string, number>> {
    const rows = await this.registrations
      .createQueryBuilder('r')
      .select('r.appId', 'appId')
      .addSelect('COUNT(*)', 'n')
      .where({ appId: In(appIds) })
      .groupBy('r.appId')
      .getRawMany<{ appId: string; n: string | number }>();
    return new Map(appIds.map((id) => [id, Number(rows.find((r) => r.appId === id)?.n ?? 0)]));
  }

  /** Application deletion (tags and settings have purgers of their own). */
  async purgeApplication(appId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await m.delete(LaunchHistoryEntity, { appId });
      await m.delete(LaunchHistoryLogEntity, { appId });
      await m.delete(RegistrationPostbackStateEntity, { appId });
      await m.delete(RegistrationInstanceEntity, { appId });
      await m.delete(RegistrationEntity, { appId });
    });
  }

  // ---- internals ------------------------------------------------------------------------------------------

  /** The registration as a postback shows it, opened for sending. */
  openPostBack(stored: StoredPostBack): PostBackDto {
    return { ...stored, ...(stored.sealedPassword ? { password: this.keys.open(stored.sealedPassword) } : {}) };
  }

  private storedPostBack(p: PostBackDto): StoredPostBack | null {
    if (p.url === undefined || p.url === '') {
      if (p.userName || p.password || (p.authType && p.authType !== 'UNDEFINED')) throw new InvalidInputError('postBack.url is required when postBack is given');
      return null;
    }
    const problem = httpUrlProblem(p.url, 'postBack.url');
    if (problem) throw new InvalidInputError(problem);
    return {
      url: p.url,
      authType: p.authType ?? 'UNDEFINED',
      ...(p.userName !== undefined ? { userName: p.userName } : {}),
      ...(p.password !== undefined ? { sealedPassword: this.keys.seal(p.password) } : {}),
      resultsFormat: p.resultsFormat ?? 'UNDEFINED',
      ...(p.legacy !== undefined ? { legacy: p.legacy } : {}),
    };
  }

  /**
   * Runs the registered initializers on a fresh instance; returns what they do once it is stored (their failures are
   * logged: the instance exists by then, and its progress is right without them).
   */
  initializeInstance(instance: RegistrationInstanceEntity, version: CourseVersion, now: Date): () => Promise<void> {
    const after = this.initializers.map((init) => init(instance, version, now)).filter((a): a is () => Promise<void> => a !== null);
    return async () => {
      for (const run of after) {
        await run().catch((err: unknown) => {
          this.logger.error({ msg: 'after storing a fresh registration instance', appId: instance.appId, registrationId: instance.registrationId, err: err instanceof Error ? err.message : String(err) });
        });
      }
    };
  }

  /** RegistrationSchema of each pair; course titles are read unless the pairs bring them. */
  private async describe(appId: string, pairs: Array<{ reg: RegistrationEntity; inst: RegistrationInstanceEntity; courseTitle?: string }>, include: IncludeFlags): Promise<RegistrationView[]> {
    if (pairs.length === 0) return [];
    const tags = await this.tags.tagsFor(appId, 'registration', pairs.map((p) => p.reg.id));
    const untitled = pairs.filter((p) => p.courseTitle === undefined);
    const versionKeys = [...new Map(untitled.map((p) => [`${p.reg.courseId}\n${p.inst.courseVersion}`, { courseId: p.reg.courseId, version: p.inst.courseVersion }])).values()];
    const titles = await this.courses.titlesOf(appId, versionKeys);
    return pairs.map(({ reg, inst, courseTitle }) =>
      registrationView(reg, inst, { courseTitle: courseTitle ?? titles.get(`${reg.courseId}\n${inst.courseVersion}`) ?? '', tags: tags.get(reg.id) ?? [], include }),
    );
  }

  /** Removes some instances of a registration; with none left, the registration goes. */
  private async removeInstances(appId: string, registrationId: string, numbers: number[]): Promise<void> {
    const reg = await this.registrations.findOneBy({ appId, id: registrationId });
    if (!reg) return;
    const remaining = await retryOnLockConflict(() => this.dataSource.transaction(async (m: EntityManager) => {
      await m.delete(RegistrationInstanceEntity, { appId, registrationId, instance: In(numbers) });
      await m.delete(LaunchHistoryEntity, { appId, registrationId, instance: In(numbers) });
      await m.delete(LaunchHistoryLogEntity, { appId, registrationId, instance: In(numbers) });
      const latest = await m.getRepository(RegistrationInstanceEntity).findOne({ where: { appId, registrationId }, order: { instance: 'DESC' }, select: { instance: true } });
      if (latest) await m.update(RegistrationEntity, { appId, id: registrationId }, { latestInstance: latest.instance, updatedAt: new Date() });
      if (latest) for (const instance of numbers) await this.events.publishIn(m, new RegistrationDeleted({ appId, registrationId, instance }));
      return latest !== null;
    }));
    if (!remaining) {
      await this.removeRegistrations(appId, [registrationId]);
      return;
    }
    for (const instance of numbers) {
      await this.settings.purgeTarget(appId, { level: 'registrationInstance', registrationId, instance, course: { courseId: reg.courseId, version: 0 } });
    }
  }

  /**
   * Registrations with every instance (and with it what their launches reported as xAPI statements), launch
   * history, postback sequence, tags and settings. Registration, course and application deletion all come here
   * (the application's purger also clears both state tables by app).
   */
  private async removeRegistrations(appId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    // The instances first, as runtime commits lock them first (then the registration and launches).
    await retryOnLockConflict(() =>
      this.dataSource.transaction(async (m) => {
        await this.summaries.markRemoved(m, appId, ids);
        await m.delete(RegistrationInstanceEntity, { appId, registrationId: In(ids) });
        await m.delete(LaunchHistoryEntity, { appId, registrationId: In(ids) });
        await m.delete(LaunchHistoryLogEntity, { appId, registrationId: In(ids) });
        await m.delete(RegistrationPostbackStateEntity, { appId, registrationId: In(ids) });
        await m.delete(RegistrationEntity, { appId, id: In(ids) });
        for (const id of ids) await this.events.publishIn(m, new RegistrationDeleted({ appId, registrationId: id, instance: null }));
      }),
    );
    await this.tags.purge(appId, 'registration', ids);
    for (const hook of this.removalHooks) await hook(appId, ids);
    for (const id of ids) await this.settings.purgeTarget(appId, { level: 'registration', registrationId: id, course: { courseId: '', version: 0 } });
  }
}
