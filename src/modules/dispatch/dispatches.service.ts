import { leanColumns } from '../../platform/database/lean-read';
import { setBounded } from '../../platform/bounded-map';
import { runLeanStatement, sqlOf } from '../../platform/database/hot-statement';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager, In, Repository, SelectQueryBuilder } from 'typeorm';
import { KeyRing } from '../../platform/crypto/keyring';
import { isSealedValue } from '../../platform/crypto/secret-reseal';
import { ConflictError, InvalidInputError, NotFoundError } from '../../platform/http/domain-errors';
import { ListQuery } from '../../platform/http/list-query';
import { PageTokens } from '../../platform/http/page-tokens';
import { datedCursor, dispatchServiceList } from './dispatch-lists';
import { CoursesService } from '../courses/courses.service';
import { RegistrationsService } from '../registrations/registrations.service';
import { normalizeTags } from '../tags/tag-rules';
import { TagsService } from '../tags/tags.service';
import { DestinationsService } from './destinations.service';
import { CreateDispatchIdDto, UpdateDispatchDto } from './dto/dispatch.dto';
import { DispatchListQueryDto, DispatchSelectionQueryDto } from './dto/dispatch-query.dto';
import { DispatchEntity } from './entities/dispatch.entity';
import { DestinationEntity } from './entities/destination.entity';
import { DispatchRegistrationEntity } from './entities/dispatch-registration.entity';

const CHUNK = 500;

/** DispatchSchema */
export interface DispatchView {
  destinationId: string;
  destinationName: string;
  courseId: string;
  courseTitle: string;
  updated: string;
  created: string;
  allowNewRegistrations: boolean;
  enabled: boolean;
  instanced: boolean;
  registrationCap: number;
  registrationCount: number;
  expirationDate?: string;
  tags: string[];
  email?: string;
  notes?: string;
}

/** The dispatch flags a destination sets on all its dispatches at once. */
export type DestinationWideFlag = 'enabled' | 'instanced' | 'hashUserInfo';

/** A dispatch as its launches read it: with its destination's launchAuth (null: none, or no destination). */
export type LaunchedDispatch = DispatchEntity & { destinationLaunchAuth: DestinationEntity['launchAuth'] };

/** Dispatches: a course delivered to a destination, with its caps and switches. Launches are DispatchLaunches'. */
@Injectable()
export class DispatchesService implements OnApplicationBootstrap {
  private readonly logger = new Logger(DispatchesService.name);
  private readonly listQuery: ListQuery;

  constructor(
    @InjectRepository(DispatchEntity) private readonly dispatches: Repository<DispatchEntity>,
    @InjectRepository(DispatchRegistrationEntity) private readonly learners: Repository<DispatchRegistrationEntity>,
    @InjectRepository(DestinationEntity) private readonly destinationRows: Repository<DestinationEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly destinations: DestinationsService,
    private readonly courses: CoursesService,
    private readonly registrations: RegistrationsService,
    private readonly tags: TagsService,
    private readonly keys: KeyRing,
    tokens: PageTokens,
  ) {
    this.listQuery = dispatchServiceList(tokens, 'dispatches', 'x', { dispatch_id: 'x.id', course_id: 'x.courseId', destination_id: 'x.destinationId' }, 'dispatch_id');
  }

  // ---- creation -------------------------------------------------------------------------------------------

  /** CreateDispatches: all or nothing; an unknown destination or course is a bad request, a used id a conflict. */
  async create(appId: string, list: CreateDispatchIdDto[]): Promise<void> {
    const ids = list.map((d) => d.id);
    if (new Set(ids).size !== ids.length) throw new InvalidInputError('dispatches: an id is listed twice');
    const destinationIds = [...new Set(list.map((d) => d.data.destinationId))];
    const known = await this.destinations.names(appId, destinationIds);
    const unknown = destinationIds.find((id) => !known.has(id));
    if (unknown !== undefined) throw new InvalidInputError(`destinationId: destination '${unknown}' not found`);
    const courseIds = [...new Set(list.map((d) => d.data.courseId))];
    const titles = await this.courses.titles(appId, courseIds);
    const noCourse = courseIds.find((id) => !titles.has(id));
    if (noCourse !== undefined) throw new InvalidInputError(`courseId: course '${noCourse}' not found`);
    const now = new Date();
    const rows: DispatchEntity[] = list.map(({ id, data }) => ({
      appId,
      id,
      destinationId: data.destinationId,
      courseId: data.courseId,
      enabled: data.enabled ?? true,
      allowNewRegistrations: data.allowNewRegistrations ?? true,
      instanced: data.instanced ?? true,
      hashUserInfo: false,
      registrationCap: data.registrationCap ?? 0,
      registrationCount: 0,
      lastResetAt: null,
      expirationDate: data.expirationDate ? new Date(data.expirationDate) : null,
      email: data.email ?? null,
      notes: data.notes ?? null,
      postBack: data.postBack ? this.registrations.sealPostBack(data.postBack) : null,
      packageKey: randomBytes(18).toString('base64url'),
      secret: this.keys.seal(randomBytes(32).toString('base64url')),
      createdAt: now,
      updatedAt: now,
    }));
    const tagSets = list.map((d) => normalizeTags(d.data.tags ?? []));
    await this.dataSource.transaction(async (m) => {
      const taken = await m.find(DispatchEntity, { where: { appId, id: In(ids) }, select: { id: true } });
      if (taken.length) throw new ConflictError(`Dispatch '${taken[0].id}' already exists`);
      for (let i = 0; i < rows.length; i += CHUNK) await m.insert(DispatchEntity, rows.slice(i, i + CHUNK));
      for (const [i, row] of rows.entries()) if (tagSets[i].length) await this.tags.add(appId, 'dispatch', row.id, tagSets[i], m);
    });
  }

  // ---- reading --------------------------------------------------------------------------------------------

  async require(appId: string, id: string): Promise<DispatchEntity> {
    const row = await this.dispatches.findOneBy({ appId, id });
    if (!row) throw new NotFoundError('Dispatch', id);
    return row;
  }

  async requireAll(appId: string, ids: readonly string[]): Promise<void> {
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += CHUNK) {
      const part = unique.slice(i, i + CHUNK);
      const found = new Set((await this.dispatches.find({ where: { appId, id: In(part) }, select: { id: true } })).map((r) => r.id));
      const missing = part.find((p) => !found.has(p));
      if (missing !== undefined) throw new NotFoundError('Dispatch', missing);
    }
  }

  /** The dispatches of a destination (carrying any of `tags`, when given), oldest first. */
  async ofDestination(appId: string, destinationId: string, tags: string[]): Promise<DispatchEntity[]> {
    await this.destinations.require(appId, destinationId);
    const qb = this.selection(appId, { destinationId, tags }).orderBy('x.createdAt', 'ASC').addOrderBy('x.id', 'ASC');
    return qb.getMany();
  }

  /**
   * The dispatch's secret in clear. It is stored sealed with the KeyRing (and re-sealed by `lcds secrets reseal`);
   * a row written before secrets were sealed holds it in clear until the boot seals it (sealPlainSecrets).
   */
  secretOf(d: DispatchEntity): string {
    if (!isSealedValue(d.secret)) return d.secret;
    // Opened once per sealed value (an AES-GCM decryption on every launch otherwise); a re-sealed or new secret is
    // another value.
    let clear = this.openedSecrets.get(d.secret);
    if (clear === undefined) {
      clear = this.keys.open(d.secret);
      setBounded(this.openedSecrets, d.secret, clear, 10_000);
    }
    return clear;
  }

  /** Sealed dispatch secrets opened lately, by their sealed form (secretOf). */
  private readonly openedSecrets = new Map<string, string>();

  onApplicationBootstrap(): Promise<void> {
    return this.sealPlainSecrets().then(
      (n) => void (n && this.logger.log(`${n} dispatch secret(s) stored in clear are now sealed`)),
      (err: unknown) => this.logger.error(`sealing the dispatch secrets stored in clear failed: ${String(err)}`),
    );
  }

  /**
   * Seals the secrets stored in clear by versions before secrets were sealed (a migration has no KeyRing). Each row is
   * written only if it still holds the value read (compare-and-set), so nodes that start together do not seal twice;
   * until then secretOf reads both forms. Returns how many it sealed.
   */
  async sealPlainSecrets(): Promise<number> {
    const plain = await this.dispatches
      .createQueryBuilder('d')
      .select(['d.appId', 'd.id', 'd.secret'])
      .where("d.secret NOT LIKE 'v1.%'")
      .getMany();
    let sealed = 0;
    for (const row of plain) {
      const result = await this.dispatches.update({ appId: row.appId, id: row.id, secret: row.secret }, { secret: this.keys.seal(row.secret) });
      sealed += result.affected ?? 0;
    }
    return sealed;
  }

  async byPackageKey(key: string): Promise<LaunchedDispatch | null> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(key)) return null;
    // With its destination's launchAuth (what the launch binds its player session with): one statement, a join.
    const d = leanColumns(this.dispatches, 'd');
    const t = leanColumns(this.destinationRows, 't');
    const sql = sqlOf(`dispatch by package key ${this.dataSource.options.type}`, () => `SELECT ${d.select}, ${t.column('id')} AS dest_id, ${t.column('launchAuth')} AS dest_launch_auth FROM ${d.table} d LEFT JOIN ${t.table} t ON ${t.column('appId')} = ${d.column('appId')} AND ${t.column('id')} = ${d.column('destinationId')} WHERE ${d.column('packageKey')} = ? LIMIT 1`);
    const [row] = await runLeanStatement(this.dataSource, sql, [key], true);
    const dispatch = row ? d.of(row) : null;
    if (!row || !dispatch) return null;
    return Object.assign(dispatch, { destinationLaunchAuth: row.dest_id === null || row.dest_id === undefined ? null : t.hydrate('launchAuth', row.dest_launch_auth) });
  }

  async get(appId: string, id: string): Promise<DispatchView> {
    const [view] = await this.views(appId, [await this.require(appId, id)]);
    return view;
  }

  async list(appId: string, query: DispatchListQueryDto, destinationId?: string): Promise<{ dispatches: Array<{ id: string; data: DispatchView }>; more?: string; total?: number }> {
    if (destinationId !== undefined) await this.destinations.require(appId, destinationId);
    const resolved = this.listQuery.resolveFilters(appId, { ...query, extra: this.extraOf(query, destinationId) });
    const f = resolved.filters;
    if ((f.destinationId ?? undefined) !== destinationId) throw new InvalidInputError('more: the token belongs to another list');
    const page = await this.listQuery.page(appId, this.selection(appId, f), resolved, datedCursor(f), {
      includeTotalCount: query.includeTotalCount === true && query.more === undefined,
    });
    const views = await this.views(appId, page.items);
    return { dispatches: page.items.map((d, i) => ({ id: d.id, data: views[i] })), more: page.more, total: page.total };
  }

  private extraOf(query: DispatchSelectionQueryDto, destinationId?: string): Record<string, unknown> {
    return { ...(query.courseId !== undefined ? { courseId: query.courseId } : {}), ...(destinationId !== undefined ? { destinationId } : {}), tags: query.tags ?? [] };
  }

  /** The dispatches a list's or a bulk operation's filters select (the filters' dates and text are applied by ListQuery). */
  private selection(appId: string, f: Record<string, unknown>): SelectQueryBuilder<DispatchEntity> {
    const qb = this.dispatches.createQueryBuilder('x').where('x.appId = :appId', { appId });
    if (typeof f.courseId === 'string') qb.andWhere('x.courseId = :courseId', { courseId: f.courseId });
    if (typeof f.destinationId === 'string') qb.andWhere('x.destinationId = :destinationId', { destinationId: f.destinationId });
    this.tags.applyTagFilter(qb, 'x', 'id', appId, 'dispatch', (f.tags as string[] | undefined) ?? []);
    return qb;
  }

  /** The ids DeleteDispatches and UpdateDispatches act on; a call that selects nothing in particular is refused. */
  private async selectedIds(appId: string, query: DispatchSelectionQueryDto): Promise<string[]> {
    if (query.courseId === undefined && query.since === undefined && query.until === undefined && !query.tags?.length && !query.filter) {
      throw new InvalidInputError('Select the dispatches with courseId, since, until, tags or filter');
    }
    const resolved = this.listQuery.resolveFilters(appId, { ...query, extra: this.extraOf(query) });
    const rows = await this.listQuery.applyFilters(this.selection(appId, resolved.filters), resolved.filters).select('x.id', 'id').getRawMany<{ id: string }>();
    return rows.map((r) => r.id);
  }

  // ---- updates --------------------------------------------------------------------------------------------

  async update(appId: string, id: string, body: UpdateDispatchDto): Promise<void> {
    const row = await this.require(appId, id);
    await this.dispatches.update({ appId, id }, this.changesOf(body, row));
  }

  async updateSelected(appId: string, query: DispatchSelectionQueryDto, body: UpdateDispatchDto): Promise<void> {
    const ids = await this.selectedIds(appId, query);
    const changes = this.changesOf(body, null);
    for (let i = 0; i < ids.length; i += CHUNK) await this.dispatches.update({ appId, id: In(ids.slice(i, i + CHUNK)) }, changes);
  }

  private changesOf(body: UpdateDispatchDto, row: DispatchEntity | null): Partial<DispatchEntity> {
    const c: Partial<DispatchEntity> = { updatedAt: new Date() };
    if (body.allowNewRegistrations !== undefined) c.allowNewRegistrations = body.allowNewRegistrations;
    if (body.instanced !== undefined) c.instanced = body.instanced;
    if (body.registrationCap !== undefined) c.registrationCap = body.registrationCap;
    if (body.registrationCount !== undefined && body.registrationCount !== row?.registrationCount) c.registrationCount = body.registrationCount;
    if (body.expirationDate !== undefined) c.expirationDate = body.expirationDate === null ? null : new Date(body.expirationDate);
    if (body.enabled !== undefined) c.enabled = body.enabled;
    if (body.email !== undefined) c.email = body.email;
    if (body.notes !== undefined) c.notes = body.notes;
    if (body.postBack !== undefined) c.postBack = this.registrations.sealPostBack(body.postBack);
    return c;
  }

  async setFlag(appId: string, id: string, flag: DestinationWideFlag, value: boolean): Promise<void> {
    await this.require(appId, id);
    await this.dispatches.update({ appId, id }, { [flag]: value, updatedAt: new Date() });
  }

  /** SetDestinationDispatchEnabled, EnableRegistrationInstancing, UpdateDestinationHashUserInfo. */
  async setFlagForDestination(appId: string, destinationId: string, flag: DestinationWideFlag, value: boolean): Promise<void> {
    await this.destinations.require(appId, destinationId);
    await this.dataSource.transaction(async (m) => {
      await m.update(DispatchEntity, { appId, destinationId }, { [flag]: value, updatedAt: new Date() });
      if (flag === 'hashUserInfo') await this.destinations.setHashUserInfo(appId, destinationId, value, m);
    });
  }

  async deletePostBack(appId: string, id: string): Promise<void> {
    await this.require(appId, id);
    await this.dispatches.update({ appId, id }, { postBack: null, updatedAt: new Date() });
  }

  // ---- registration counts --------------------------------------------------------------------------------

  async registrationCount(appId: string, id: string): Promise<{ registrationCount: number; lastResetDate?: string }> {
    const row = await this.require(appId, id);
    return { registrationCount: row.registrationCount, ...(row.lastResetAt ? { lastResetDate: row.lastResetAt.toISOString() } : {}) };
  }

  async resetRegistrationCount(appId: string, id: string): Promise<void> {
    await this.require(appId, id);
    await this.dispatches.update({ appId, id }, { registrationCount: 0, lastResetAt: new Date() });
  }

  async destinationRegistrationCount(appId: string, destinationId: string): Promise<number> {
    await this.destinations.require(appId, destinationId);
    const row = await this.dispatches.createQueryBuilder('x').select('COALESCE(SUM(x.registrationCount), 0)', 'n').where({ appId, destinationId }).getRawOne<{ n: string | number }>();
    return Number(row?.n ?? 0);
  }

  async resetDestinationRegistrationCount(appId: string, destinationId: string): Promise<void> {
    await this.destinations.require(appId, destinationId);
    await this.dispatches.update({ appId, destinationId }, { registrationCount: 0, lastResetAt: new Date() });
  }

  // ---- deletion -------------------------------------------------------------------------------------------

  async delete(appId: string, id: string): Promise<void> {
    await this.require(appId, id);
    await this.removeIds(appId, [id]);
  }

  async deleteSelected(appId: string, query: DispatchSelectionQueryDto): Promise<void> {
    await this.removeIds(appId, await this.selectedIds(appId, query));
  }

  async deleteForDestination(appId: string, destinationId: string): Promise<void> {
    await this.destinations.require(appId, destinationId);
    await this.removeIds(appId, await this.idsWhere(appId, { destinationId }));
  }

  /** DeleteDestination: the destination and its dispatches. */
  async deleteDestination(appId: string, destinationId: string): Promise<void> {
    await this.destinations.require(appId, destinationId);
    await this.removeIds(appId, await this.idsWhere(appId, { destinationId }), (m) => this.destinations.remove(appId, destinationId, m));
    await this.tags.purge(appId, 'destination', [destinationId]);
  }

  /** Course deletion takes the course's dispatches along (their registrations go with the course). */
  async removeForCourse(appId: string, courseId: string): Promise<void> {
    await this.removeIds(appId, await this.idsWhere(appId, { courseId }));
  }

  async purgeApplication(appId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await m.delete(DispatchRegistrationEntity, { appId });
      await m.delete(DispatchEntity, { appId });
    });
    await this.destinations.purgeApplication(appId);
  }

  /** A deleted registration is no longer its learner's: the next launch makes a new one. */
  async registrationDeleted(appId: string, registrationId: string): Promise<void> {
    await this.learners.delete({ appId, registrationId });
  }

  async forgetLearner(appId: string, learnerKey: string): Promise<void> {
    await this.learners.delete({ appId, learnerKey });
  }

  private async idsWhere(appId: string, where: { destinationId?: string; courseId?: string }): Promise<string[]> {
    return (await this.dispatches.find({ where: { appId, ...where }, select: { id: true } })).map((r) => r.id);
  }

  /** The dispatches' rows and their learners' links; the registrations stay (they are the application's records). */
  private async removeIds(appId: string, ids: string[], also?: (m: EntityManager) => Promise<void>): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      for (let i = 0; i < ids.length; i += CHUNK) {
        const part = ids.slice(i, i + CHUNK);
        await m.delete(DispatchRegistrationEntity, { appId, dispatchId: In(part) });
        await m.delete(DispatchEntity, { appId, id: In(part) });
      }
      if (also) await also(m);
    });
    if (ids.length) await this.tags.purge(appId, 'dispatch', ids);
  }

  // ---- views ----------------------------------------------------------------------------------------------

  private async views(appId: string, rows: DispatchEntity[]): Promise<DispatchView[]> {
    const ids = rows.map((r) => r.id);
    const [tags, names, titles] = await Promise.all([
      this.tags.tagsFor(appId, 'dispatch', ids),
      this.destinations.names(appId, rows.map((r) => r.destinationId)),
      this.courses.titles(appId, [...new Set(rows.map((r) => r.courseId))]),
    ]);
    return rows.map((d) => ({
      destinationId: d.destinationId,
      destinationName: names.get(d.destinationId) ?? '',
      courseId: d.courseId,
      courseTitle: titles.get(d.courseId) ?? '',
      updated: d.updatedAt.toISOString(),
      created: d.createdAt.toISOString(),
      allowNewRegistrations: d.allowNewRegistrations,
      enabled: d.enabled,
      instanced: d.instanced,
      registrationCap: d.registrationCap,
      registrationCount: d.registrationCount,
      ...(d.expirationDate ? { expirationDate: d.expirationDate.toISOString() } : {}),
      tags: tags.get(d.id) ?? [],
      ...(d.email !== null ? { email: d.email } : {}),
      ...(d.notes !== null ? { notes: d.notes } : {}),
    }));
  }
}
