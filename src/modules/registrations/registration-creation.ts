import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { inHotTransaction } from '../../platform/database/hot-statement';
import { rowInsert, type LeanStatement } from '../../platform/database/lean-read';
import { EventBus, RegistrationCreated } from '../../platform/events';
import { ForbiddenError, InvalidInputError, NotFoundError } from '../../platform/http/domain-errors';
import { JobEntity } from '../../platform/queue/job.entity';
import { ApplicationsService } from '../applications/applications.service';
import { type CourseRow, type CourseVersion } from '../courses/course-version';
import { CoursesService } from '../courses/courses.service';
import { SettingsService } from '../settings/settings.service';
import { normalizeTags } from '../tags/tag-rules';
import { TagsService } from '../tags/tags.service';
import { isUniqueViolation } from '../xapi/unique-violation';
import { CreateRegistrationDto } from './dto/registration.dto';
import { RegistrationEntity } from './entities/registration.entity';
import { RegistrationInstanceEntity } from './entities/registration-instance.entity';
import { applyInitialState, freshInstance } from './fresh-instance';
import { monthStart, settingCourseRef } from './registration-refs';
import { RegistrationsService } from './registrations.service';

/** Registrations one creation transaction inserts at most (createMany). */
const CREATE_CHUNK = 500;

/** What a caller runs in a creation's transaction before the rows go in (given their ids); throwing refuses the creation. */
export type CreationStep = (m: EntityManager, registrationIds: readonly string[]) => Promise<void>;

/**
 * The creation of registrations (CreateRegistration, invitations, dispatch launches): the checks, the rows of a
 * registration and its first instance, its RegistrationCreated event, and initial settings. RegistrationsService
 * keeps the rest of their life (reads, instances, resets, deletion).
 */
@Injectable()
export class RegistrationCreation {
  constructor(
    @InjectRepository(RegistrationEntity) private readonly rows: Repository<RegistrationEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly registrations: RegistrationsService,
    private readonly courses: CoursesService,
    private readonly tags: TagsService,
    private readonly settings: SettingsService,
    private readonly events: EventBus,
    private readonly applications: ApplicationsService,
  ) {}

  /** Creates one registration (CreateRegistration); see createMany. */
  async create(appId: string, body: CreateRegistrationDto, courseVersion?: number, options: { within?: CreationStep; course?: CourseRow; also?: readonly LeanStatement[] } = {}): Promise<void> {
    await this.createMany(appId, [body], { courseVersion, ...options });
  }

  /**
   * Creates registrations with the checks of CreateRegistration (the course, unique ids, the strict registration limit
   * for all of them, postBack and tags), CREATE_CHUNK at a time: each chunk is one transaction of multi-row inserts
   * (registrations, their first instances, the outbox rows of one RegistrationCreated per registration) and `within`,
   * which the caller runs in it (it sees the chunk's ids; throwing refuses the chunk). Chunks committed before a
   * failure stay. initialSettings are set per registration once its chunk committed; one refused removes that
   * registration and throws, as CreateRegistration does. `also`: statements of the caller's own rows (a dispatch's
   * learner link) run in the transaction, after the registrations' rows; one chunk only.
   */
  async createMany(appId: string, bodies: readonly CreateRegistrationDto[], options: { courseVersion?: number; within?: CreationStep; course?: CourseRow; also?: readonly LeanStatement[] } = {}): Promise<void> {
    if (bodies.length === 0) return;
    const also = options.also ?? [];
    if (also.length && bodies.length > CREATE_CHUNK) throw new Error('createMany: `also` needs the registrations in one chunk');
    const versions = new Map<string, { course: { id: string }; version: CourseVersion }>();
    for (const courseId of new Set(bodies.map((b) => b.courseId))) {
      const known = options.course?.appId === appId && options.course.id === courseId ? options.course : undefined;
      const resolved = await this.courses.resolveVersion(appId, courseId, options.courseVersion, known).catch((err: unknown) => {
        // An unknown course is a bad request here, not a missing resource of the path.
        if (err instanceof NotFoundError) throw new InvalidInputError(err.message);
        throw err;
      });
      versions.set(courseId, resolved);
    }
    const ids = new Set<string>();
    for (const b of bodies) {
      if (ids.has(b.registrationId)) throw this.duplicate(b.registrationId);
      ids.add(b.registrationId);
    }
    // Several chunks: an id taken in a later chunk must refuse the whole call before the first one commits. One chunk
    // is one transaction: a taken id fails its INSERT, reported as the same 409 below, with no read before the write.
    const duplicateOf = async () => {
      const [taken] = await this.registrations.existingIds(appId, [...ids]);
      return taken === undefined ? null : this.duplicate(taken);
    };
    if (bodies.length > CREATE_CHUNK) {
      const duplicate = await duplicateOf();
      if (duplicate) throw duplicate;
    }
    await this.checkRegistrationLimit(appId, bodies.length).catch(async (err: unknown) => {
      // A taken id is what a caller hears first, as before the limit.
      throw (await duplicateOf()) ?? err;
    });
    const now = new Date();
    const prepared = bodies.map((body) => this.prepare(appId, body, versions.get(body.courseId)!.version, now));
    for (let i = 0; i < prepared.length; i += CREATE_CHUNK) {
      const chunk = prepared.slice(i, i + CREATE_CHUNK);
      const staged = chunk.flatMap(({ reg, version }) => {
        const event = this.events.stage(new RegistrationCreated({ appId, registrationId: reg.id, courseId: reg.courseId, courseVersion: version.version, learnerId: reg.learnerId }));
        return event ? [event] : [];
      });
      const hot = this.hotCreation(chunk, staged, options.within, also);
      try {
        if (hot) await inHotTransaction(this.dataSource, (execute) => Promise.all(hot.map((st) => execute(st.sql, st.params))));
        else await this.dataSource.transaction(async (m) => {
          if (options.within) await options.within(m, chunk.map((p) => p.reg.id));
          await m.insert(RegistrationEntity, chunk.map((p) => p.reg));
          // updateEntity(false): the rows' defaulted columns are set already; no read back (a SELECT per chunk).
          await m.createQueryBuilder().insert().into(RegistrationInstanceEntity).values(chunk.map((p) => p.instance)).updateEntity(false).execute();
          for (const { reg, tags } of chunk) {
            if (tags.registration.length) await this.tags.add(appId, 'registration', reg.id, tags.registration, m);
            if (tags.learner.length) await this.tags.add(appId, 'learner', reg.learnerId, tags.learner, m);
            if (tags.course.length) await this.tags.add(appId, 'course', reg.courseId, tags.course, m);
          }
          const jobs = staged.flatMap((e) => e.jobs);
          for (let j = 0; j < jobs.length; j += CREATE_CHUNK) await m.insert(JobEntity, jobs.slice(j, j + CREATE_CHUNK));
          for (const st of also) await m.query(st.sql, st.params);
        });
      } catch (err) {
        // A creation racing for the same id: the loser sees what a sequential caller would.
        if (isUniqueViolation(err)) {
          const [raced] = await this.registrations.existingIds(appId, chunk.map((p) => p.reg.id));
          if (raced !== undefined) throw this.duplicate(raced);
        }
        throw err;
      }
      for (const e of staged) this.events.committed(e);
      for (const { reg, version, body } of chunk) {
        if (!body.initialSettings?.settings?.length) continue;
        try {
          await this.settings.set(appId, { level: 'registration', registrationId: reg.id, course: settingCourseRef(version) }, body.initialSettings.settings);
        } catch (err) {
          // All or nothing: a registration whose initial settings were refused is not created.
          await this.registrations.deleteMany(appId, [reg.id]);
          throw err;
        }
      }
      for (const { stored } of chunk) await stored();
    }
  }

  /**
   * MySQL/MariaDB, one registration with no tags and nothing to run `within`: its rows (registration, first instance,
   * the jobs of its events) as statements of one hot transaction, sent together (one round trip, then COMMIT) instead
   * of TypeORM's transaction of one round trip each. Null: the ordinary transaction.
   */
  private hotCreation(chunk: ReadonlyArray<ReturnType<RegistrationCreation['prepare']>>, staged: ReadonlyArray<{ jobs: readonly JobEntity[] }>, within: CreationStep | undefined, also: readonly LeanStatement[]): LeanStatement[] | null {
    if (this.dataSource.options.type !== 'mysql' || within || chunk.length !== 1) return null;
    const [{ reg, instance, tags }] = chunk;
    if (tags.registration.length || tags.learner.length || tags.course.length) return null;
    return [
      rowInsert(this.rows, reg),
      rowInsert(this.dataSource.getRepository(RegistrationInstanceEntity), instance),
      ...staged.flatMap((e) => e.jobs.map((job) => rowInsert(this.dataSource.getRepository(JobEntity), job))),
      ...also,
    ];
  }

  /** A registration's rows as creation inserts them, checked (postBack, tags, initialRegistrationState). */
  private prepare(appId: string, body: CreateRegistrationDto, version: CourseVersion, now: Date) {
    const tags = {
      learner: normalizeTags(body.learnerTags ?? [], 'learnerTags'),
      course: normalizeTags(body.courseTags ?? [], 'courseTags'),
      registration: normalizeTags(body.registrationTags ?? [], 'registrationTags'),
    };
    const instance = freshInstance(appId, body.registrationId, 0, version, now);
    const stored = this.registrations.initializeInstance(instance, version, now);
    if (body.initialRegistrationState) applyInitialState(instance, body.initialRegistrationState);
    const reg: RegistrationEntity = {
      appId,
      id: body.registrationId,
      courseId: version.courseId,
      learnerId: body.learner.id,
      learnerEmail: body.learner.email ?? null,
      learnerFirstName: body.learner.firstName ?? null,
      learnerLastName: body.learner.lastName ?? null,
      xapiRegistrationId: body.xapiRegistrationId?.toLowerCase() ?? randomUUID(),
      postBack: body.postBack ? this.registrations.sealPostBack(body.postBack) : null,
      latestInstance: 0,
      createdAt: now,
      updatedAt: now,
    };
    return { body, version, reg, instance, stored, tags };
  }

  /** A strict registration limit refuses a creation that would take this calendar month's registrations past it. */
  private async checkRegistrationLimit(appId: string, adding = 1): Promise<void> {
    const account = await this.applications.registrationLimit(appId);
    if (account.regLimit === null || !account.strictLimit) return;
    const created = await this.registrations.countCreatedSince(appId, monthStart(new Date()));
    if (created + adding > account.regLimit) {
      throw new ForbiddenError(`This application has reached its limit of ${account.regLimit} registrations this month; no registration can be created until the limit is raised or the month ends`);
    }
  }

  private duplicate(id: string): InvalidInputError {
    return new InvalidInputError(`A registration with id '${id}' already exists; registration ids must be unique`);
  }
}
