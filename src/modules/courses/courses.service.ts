import { leanRead } from '../../platform/database/lean-read';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { CourseDeleted, EventBus } from '../../platform/events';
import { DataSource, In, Repository } from 'typeorm';
import { NotFoundError } from '../../platform/http/domain-errors';
import { ListQuery } from '../../platform/http/list-query';
import { PageTokens } from '../../platform/http/page-tokens';
import { ContentStore } from '../../platform/storage/content-store';
import { ClusterCache } from '../../platform/redis/cluster-cache';
import { ClusterEvents } from '../../platform/redis/cluster-events.service';
import { RedisService } from '../../platform/redis/redis.service';
import { SettingsService } from '../settings/settings.service';
import { TagsService } from '../tags/tags.service';
import { CourseHooks } from './course-hooks';
import { courseView, CourseView } from './course-view';
import { CourseListQueryDto, CourseVersionsQueryDto } from './dto/course-list-query.dto';
import { CourseEntity, TITLE_KEY_LENGTH, titleFields } from './entities/course.entity';
import { CourseVersionEntity } from './entities/course-version.entity';

interface IncludeOptions {
  includeRegistrationCount?: boolean;
  includeCourseMetadata?: boolean;
}

/**
 * ClusterEvents channel: a course's rows changed (a version imported or deleted, the course renamed or deleted;
 * message: `appId\ncourseId`). The name is the one nodes of earlier versions listen on.
 */
const COURSE_ROWS_CHANNEL = 'course-versions-deleted';

/** Courses and their versions: reading, renaming, deleting. Imports live in CourseImportService. */
@Injectable()
export class CoursesService {
  private readonly logger = new Logger(CoursesService.name);
  private readonly listQuery: ListQuery;
  /** Course version rows read lately (findVersion), dropped on every node when a course or version is deleted. */
  private readonly versionRows: ClusterCache<CourseVersionEntity>;
  /** Course rows read lately by launches (launchCourse), production stack only; dropped on every node when the course changes. */
  private readonly courseRows: ClusterCache<CourseEntity> | null;

  constructor(
    @InjectRepository(CourseEntity) private readonly courses: Repository<CourseEntity>,
    @InjectRepository(CourseVersionEntity) private readonly versions: Repository<CourseVersionEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tags: TagsService,
    private readonly settings: SettingsService,
    private readonly hooks: CourseHooks,
    private readonly store: ContentStore,
    private readonly events: EventBus,
    tokens: PageTokens,
    clusterEvents: ClusterEvents,
    redis: RedisService,
  ) {
    this.courseRows = redis.enabled ? new ClusterCache<CourseEntity>(clusterEvents, COURSE_ROWS_CHANNEL, { ttlMs: 60_000, max: 5_000, copy: (row) => ({ ...row }) }) : null;
    this.versionRows = new ClusterCache<CourseVersionEntity>(clusterEvents, COURSE_ROWS_CHANNEL, {
      ttlMs: 60_000,
      max: 5_000,
      copy: (row) => Object.assign(this.versions.metadata.create() as CourseVersionEntity, structuredClone({ ...row })),
    });
    this.listQuery = new ListQuery(tokens, {
      name: 'courses',
      pageSize: 100,
      datetimeColumns: { created: 'c.createdAt', updated: 'c.updatedAt' },
      filterColumns: { course_id: 'c.id', course_title: 'c.title' },
      // Titles sort by their first 380 characters (titleKey, indexed), then id.
      orderColumns: {
        created_asc: 'c.createdAt',
        created_desc: 'c.createdAt',
        updated_asc: 'c.updatedAt',
        updated_desc: 'c.updatedAt',
        title_asc: 'c.titleKey',
        title_desc: 'c.titleKey',
      },
      idColumn: 'c.id',
      defaults: { datetimeFilter: 'updated', filterBy: 'course_id', orderBy: 'created_desc' },
      filterPrefixes: { course_title: { column: 'c.titleKey', length: TITLE_KEY_LENGTH } },
    });
  }

  async list(appId: string, query: CourseListQueryDto): Promise<{ courses: CourseView[]; more?: string; total?: number }> {
    const resolved = this.listQuery.resolveFilters(appId, {
      ...query,
      extra: {
        tags: query.tags ?? [],
        includeRegistrationCount: query.includeRegistrationCount === true,
        includeCourseMetadata: query.includeCourseMetadata === true,
      },
    });
    const qb = this.courses.createQueryBuilder('c').where('c.appId = :appId', { appId });
    const tags = (resolved.filters.tags as string[] | undefined) ?? [];
    if (tags.length > 0) {
      // Chosen on the first page from how many courses carry the tags, and carried by `more` to the next pages.
      resolved.filters.tagPlan ??= await this.tags.tagFilterPlan(appId, 'course', tags);
      this.tags.applyTagFilter(qb, 'c', 'id', appId, 'course', tags, resolved.filters.tagPlan === 'probe' ? 'probe' : 'join');
    }
    const page = await this.listQuery.page(
      appId,
      qb,
      resolved,
      (row) => [resolved.filters.orderBy.startsWith('title') ? row.titleKey : resolved.filters.orderBy.startsWith('created') ? row.createdAt : row.updatedAt, row.id],
      {
        includeTotalCount: query.includeTotalCount === true && query.more === undefined,
        // The created, updated and title indexes all hold app_id, id and titleKey: a title or id filter, or a tag
        // probe per course, scans an index without reading the rows it drops (see the CourseTitleKey migration).
        idsFirst: resolved.filters.filter !== undefined || resolved.filters.tagPlan === 'probe',
      },
    );
    const include = {
      includeRegistrationCount: query.includeRegistrationCount === true || resolved.filters.includeRegistrationCount === true,
      includeCourseMetadata: query.includeCourseMetadata === true || resolved.filters.includeCourseMetadata === true,
    };
    return { courses: await this.describe(appId, page.items, include), more: page.more, total: page.total };
  }

  async get(appId: string, courseId: string, include: IncludeOptions = {}): Promise<CourseView> {
    const course = await this.requireCourse(appId, courseId);
    const [view] = await this.describe(appId, [course], include);
    return view;
  }

  /** Titles of the application's courses among `courseIds` (unknown ids are left out). */
  async titles(appId: string, courseIds: string[]): Promise<Map<string, string>> {
    if (courseIds.length === 0) return new Map();
    const rows = await this.courses.find({ select: { id: true, title: true }, where: { appId, id: In(courseIds) } });
    return new Map(rows.map((r) => [r.id, r.title]));
  }

  async listVersions(appId: string, courseId: string, query: CourseVersionsQueryDto): Promise<CourseView[]> {
    const course = await this.requireCourse(appId, courseId);
    const qb = this.versions.createQueryBuilder('v').where('v.appId = :appId AND v.courseId = :courseId', { appId, courseId });
    if (query.since) qb.andWhere('v.updatedAt >= :since', { since: query.since });
    if (query.until) qb.andWhere('v.updatedAt <= :until', { until: query.until });
    const rows = await qb.orderBy('v.version', 'ASC').getMany();
    const tags = (await this.tags.tagsFor(appId, 'course', [courseId])).get(courseId) ?? [];
    return Promise.all(rows.map((v) => this.versionView(appId, course, v, tags, query)));
  }

  async getVersion(appId: string, courseId: string, version: number, include: IncludeOptions = {}): Promise<CourseView> {
    const course = await this.requireCourse(appId, courseId);
    const row = await this.requireVersion(appId, courseId, version);
    const tags = (await this.tags.tagsFor(appId, 'course', [courseId])).get(courseId) ?? [];
    return this.versionView(appId, course, row, tags, include);
  }

  async setTitle(appId: string, courseId: string, title: string): Promise<void> {
    await this.requireCourse(appId, courseId);
    await this.courses.update({ appId, id: courseId }, { ...titleFields(title), updatedAt: new Date() });
    await this.courseChanged(appId, courseId);
  }

  /**
   * Drops what every node keeps of a course's rows (its version rows and its course row: both caches listen on
   * COURSE_ROWS_CHANNEL, so one message drops both); call it once a change of them has committed.
   */
  courseChanged(appId: string, courseId: string): Promise<void> {
    return this.versionRows.invalidate(`${appId}\n${courseId}`);
  }

  /** The one deletion path: other modules' data first (hooks), then versions, the course row and the files. */
  async delete(appId: string, courseId: string): Promise<void> {
    await this.requireCourse(appId, courseId);
    await this.hooks.beforeDelete(appId, courseId);
    const rows = await this.versions.find({ where: { appId, courseId }, select: { contentPrefix: true, version: true } });
    await this.dataSource.transaction(async (m) => {
      await m.delete(CourseVersionEntity, { appId, courseId });
      await m.delete(CourseEntity, { appId, id: courseId });
      await this.events.publishIn(m, new CourseDeleted({ appId, courseId, version: null }));
    });
    await this.courseChanged(appId, courseId);
    await this.tags.purge(appId, 'course', courseId);
    await this.settings.purgeTarget(appId, { level: 'course', courseId });
    await this.removeFiles(rows.map((r) => r.contentPrefix));
  }

  /** Deleting the last remaining version deletes the course. */
  async deleteVersion(appId: string, courseId: string, version: number): Promise<void> {
    const course = await this.requireCourse(appId, courseId);
    const row = await this.requireVersion(appId, courseId, version);
    const count = await this.versions.countBy({ appId, courseId });
    if (count <= 1) return this.delete(appId, courseId);
    await this.hooks.beforeDelete(appId, courseId, version);
    await this.dataSource.transaction(async (m) => {
      await m.delete(CourseVersionEntity, { appId, courseId, version });
      if (course.latestVersion === version) {
        const latest = await m.getRepository(CourseVersionEntity).findOne({ where: { appId, courseId }, order: { version: 'DESC' } });
        await m.update(CourseEntity, { appId, id: courseId }, { latestVersion: latest!.version, ...titleFields(latest!.title), updatedAt: new Date() });
      }
      await this.events.publishIn(m, new CourseDeleted({ appId, courseId, version }));
    });
    await this.courseChanged(appId, courseId);
    await this.settings.purgeTarget(appId, { level: 'courseVersion', courseId, version });
    await this.removeFiles([row.contentPrefix]);
  }

  /**
   * A course as a launch needs it (its latest version), or null: from memory when this node read it lately, dropped on
   * every node when the course changes (courseChanged: an import, a rename, a deletion), so that a new version is what
   * the next launch plays. Only where the production stack's ClusterEvents reach every process that changes courses
   * (Redis); the embedded stack reads it each time (the CLI's backup restore is another process).
   */
  async launchCourse(appId: string, courseId: string): Promise<CourseEntity | null> {
    const read = () => this.readCourse(appId, courseId);
    return this.courseRows ? this.courseRows.get(`${appId}\n${courseId}`, `${appId}\n${courseId}`, read) : read();
  }

  private readCourse(appId: string, courseId: string): Promise<CourseEntity | null> {
    return leanRead(this.courses, ['appId', 'id']).one({ appId, id: courseId });
  }

  async requireCourse(appId: string, courseId: string): Promise<CourseEntity> {
    const course = await this.readCourse(appId, courseId);
    if (!course) throw new NotFoundError('Course', courseId);
    return course;
  }

  /**
   * A course version, or null when it does not exist (the player's launches and sessions: no 404 of their own). From
   * memory when this node read it lately: version rows never change once imported (only deleted; the number of a
   * deleted version may come back with the next import, which is why deletions drop a course's versions everywhere).
   */
  async findVersion(appId: string, courseId: string, version: number): Promise<CourseVersionEntity | null> {
    return this.versionRows.get(`${appId}\n${courseId}`, `${appId}\n${courseId}\n${version}`, () => leanRead(this.versions, ['appId', 'courseId', 'version']).one({ appId, courseId, version }));
  }

  /** The titles of course versions, by `${courseId}\n${version}` (a version that does not exist is left out). */
  async titlesOf(appId: string, keys: Array<{ courseId: string; version: number }>): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const rows = await this.versions.find({ where: keys.map((k) => ({ appId, courseId: k.courseId, version: k.version })), select: { courseId: true, version: true, title: true } });
    return new Map(rows.map((v) => [`${v.courseId}\n${v.version}`, v.title]));
  }

  async requireVersion(appId: string, courseId: string, version: number): Promise<CourseVersionEntity> {
    const row = await this.findVersion(appId, courseId, version);
    if (!row) throw new NotFoundError(`Version of course '${courseId}'`, version);
    return row;
  }

  /** The latest version, or the given one. */
  /** A course and one of its versions (the latest by default); `known`: the course as the caller read it already. */
  async resolveVersion(appId: string, courseId: string, version?: number, known?: CourseEntity): Promise<{ course: CourseEntity; version: CourseVersionEntity }> {
    const course = known ?? (await this.requireCourse(appId, courseId));
    return { course, version: await this.requireVersion(appId, courseId, version ?? course.latestVersion) };
  }

  async countByApp(appIds: string[]): Promise<Map<string, number>> {
    const rows = await this.courses
      .createQueryBuilder('c')
      .select('c.appId', 'appId')
      .addSelect('COUNT(*)', 'n')
      .where({ appId: In(appIds) })
      .groupBy('c.appId')
      .getRawMany<{ appId: string; n: string | number }>();
    return new Map(appIds.map((id) => [id, Number(rows.find((r) => r.appId === id)?.n ?? 0)]));
  }

  /** Everything of an application (application deletion). */
  async purgeApplication(appId: string): Promise<void> {
    const ids = (await this.courses.find({ where: { appId }, select: { id: true } })).map((c) => c.id);
    for (const id of ids) await this.delete(appId, id);
  }

  private async removeFiles(prefixes: string[]): Promise<void> {
    for (const prefix of prefixes) {
      await this.store.deletePrefix(prefix).catch((err: unknown) =>
        // The rows are gone; a file left behind is garbage, not an inconsistency a client could see.
        this.logger.warn({ msg: 'could not delete course files', prefix, err: err instanceof Error ? err.message : String(err) }),
      );
    }
  }

  private async versionView(appId: string, course: CourseEntity, row: CourseVersionEntity, tags: string[], include: IncludeOptions): Promise<CourseView> {
    const count = include.includeRegistrationCount ? (await this.hooks.registrationCounts(appId, [course.id], row.version)).get(course.id) ?? 0 : undefined;
    return courseView(course, row, { tags, registrationCount: count, includeMetadata: include.includeCourseMetadata, versionDates: true });
  }

  private async describe(appId: string, rows: CourseEntity[], include: IncludeOptions): Promise<CourseView[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const versions = await this.versions
      .createQueryBuilder('v')
      .innerJoin(CourseEntity, 'c', 'c.appId = v.appId AND c.id = v.courseId AND c.latestVersion = v.version')
      .where('v.appId = :appId', { appId })
      .andWhere('v.courseId IN (:...ids)', { ids })
      .getMany();
    const byCourse = new Map(versions.map((v) => [v.courseId, v]));
    const tags = await this.tags.tagsFor(appId, 'course', ids);
    const counts = include.includeRegistrationCount ? await this.hooks.registrationCounts(appId, ids) : null;
    return rows
      .filter((r) => byCourse.has(r.id))
      .map((r) =>
        courseView(r, byCourse.get(r.id)!, {
          tags: tags.get(r.id) ?? [],
          registrationCount: counts ? (counts.get(r.id) ?? 0) : undefined,
          includeMetadata: include.includeCourseMetadata,
        }),
      );
  }
}
