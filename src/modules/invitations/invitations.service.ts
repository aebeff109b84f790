import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DataSource, EntityManager, In, IsNull, Not, Repository } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import { EventBus, InvitationChanged, InvitationCreated } from '../../platform/events';
import type { AppConfig } from '../../config/app-config';
import { InvalidInputError, NotFoundError } from '../../platform/http/domain-errors';
import { ListQuery } from '../../platform/http/list-query';
import { PageTokens } from '../../platform/http/page-tokens';
import { JobQueue } from '../../platform/queue/job-queue';
import { CoursesService } from '../courses/courses.service';
import type { PostBackDto } from '../registrations/dto/registration.dto';
import type { StoredPostBack } from '../registrations/registration-types';
import { RegistrationsService } from '../registrations/registrations.service';
import { RegistrationCreation } from '../registrations/registration-creation';
import { normalizeTags } from '../tags/tag-rules';
import { TagsService } from '../tags/tags.service';
import { CreatePrivateInvitationDto, CreatePublicInvitationDto, UpdatePrivateInvitationDto, UpdatePublicInvitationDto } from './dto/invitation.dto';
import { InvitationListQueryDto, UserInvitationListQueryDto } from './dto/invitation-query.dto';
import { InvitationEntity } from './entities/invitation.entity';
import { UserInvitationEntity } from './entities/user-invitation.entity';
import { emailKeyOf, invitationEmailQueue } from './invitation-rules';
import { LearnerRegistrations } from '../registrations/learner-registrations';

const CHUNK = 500;

/** A public invitation takes no new visitor (its cap reached, or allowNewRegistrations false). */
class NoPlace extends Error {}

/** InvitationSummarySchema */
export interface InvitationSummaryView {
  id: string;
  courseId: string;
  isPublic: boolean;
  createDate: string;
  updated: string;
}

/** PublicInvitationSchema and PrivateInvitationSchema (the fields of the kind). */
export interface InvitationView {
  id: string;
  courseId: string;
  allowLaunch: boolean;
  invitationEmail?: { subject?: string; body?: string; addresses: string[] };
  allowNewRegistrations?: boolean;
  url?: string;
  createDate: string;
  updated: string;
  postBack?: Omit<PostBackDto, 'password'>;
  expirationDate?: string;
  registrationCap?: number;
  registrationCount?: number;
}

/** UserInvitationSchema */
export interface UserInvitationView {
  email: string;
  url: string;
  isStarted: boolean;
  updated: string;
  registrationId?: string;
  registrationReport?: { complete: string; success: string; totalSecondsTracked: number; score?: { scaled: number } };
}

type Kind = 'public' | 'private';

/**
 * Invitations: public ones (a page anyone can join, one registration per address) and private ones (one registration
 * and one e-mail per address, made by the `invitation-email` job; see InvitationEmails). Registrations are created
 * through RegistrationsService; user invitations keep which registration is whose and the link token of each.
 */
@Injectable()
export class InvitationsService {
  private readonly lists: Record<Kind | 'all', ListQuery>;
  private readonly userList: ListQuery;

  constructor(
    @InjectRepository(InvitationEntity) private readonly invitations: Repository<InvitationEntity>,
    @InjectRepository(UserInvitationEntity) private readonly users: Repository<UserInvitationEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly courses: CoursesService,
    private readonly registrations: RegistrationsService,
    private readonly creation: RegistrationCreation,
    private readonly learnerRegistrations: LearnerRegistrations,
    private readonly tags: TagsService,
    private readonly jobs: JobQueue,
    private readonly events: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    tokens: PageTokens,
  ) {
    const def = (name: string) =>
      new ListQuery(tokens, {
        name,
        pageSize: 100,
        datetimeColumns: { created: 'v.createdAt', updated: 'v.updatedAt' },
        filterColumns: { invitation_id: 'v.id', course_id: 'v.courseId' },
        orderColumns: { created_asc: 'v.createdAt', created_desc: 'v.createdAt', updated_asc: 'v.updatedAt', updated_desc: 'v.updatedAt' },
        idColumn: 'v.id',
        defaults: { datetimeFilter: 'updated', filterBy: 'invitation_id', orderBy: 'updated_asc' },
      });
    this.lists = { all: def('invitations'), public: def('invitations-public'), private: def('invitations-private') };
    this.userList = new ListQuery(tokens, {
      name: 'user-invitations',
      pageSize: 100,
      datetimeColumns: { created: 'u.createdAt', updated: 'u.updatedAt' },
      filterColumns: { registration_id: 'u.registrationId', email: 'u.emailKey' },
      orderColumns: { created_asc: 'u.createdAt', created_desc: 'u.createdAt', updated_asc: 'u.updatedAt', updated_desc: 'u.updatedAt' },
      idColumn: 'u.emailKey',
      defaults: { datetimeFilter: 'updated', filterBy: 'registration_id', orderBy: 'updated_asc' },
    });
  }

  // ---- creation -------------------------------------------------------------------------------------------

  async createPublic(appId: string, body: CreatePublicInvitationDto): Promise<InvitationView> {
    const inv = await this.newInvitation(appId, body, true);
    inv.registrationCap = body.registrationCap ?? 0;
    inv.publicToken = randomBytes(18).toString('base64url');
    const tags = normalizeTags(body.tags ?? []);
    await this.dataSource.transaction(async (m) => {
      await m.insert(InvitationEntity, inv);
      if (tags.length) await this.tags.add(appId, 'invitation', inv.id, tags, m);
      await this.events.publishIn(m, new InvitationCreated({ appId, invitationId: inv.id, courseId: inv.courseId, kind: 'public' }));
    });
    return this.view(inv, new Map([[inv.id, 0]]), new Map());
  }

  /**
   * Answers at once: the invitation and one pending user invitation per distinct address are stored in one
   * transaction; the `invitation-email` job creates the registrations and sends the e-mails.
   */
  async createPrivate(appId: string, body: CreatePrivateInvitationDto): Promise<InvitationSummaryView> {
    const addresses = body.invitationEmail.addresses ?? [];
    if (addresses.length === 0) throw new InvalidInputError('invitationEmail.addresses must list at least one address');
    const inv = await this.newInvitation(appId, body, false);
    inv.emailSubject = body.invitationEmail.subject ?? null;
    inv.emailBody = body.invitationEmail.body ?? null;
    inv.duplicateOption = body.duplicateRegistrationOption ?? 'SEND_EXISTING';
    inv.jobStatus = 'STARTED';
    const rows = new Map<string, UserInvitationEntity>();
    for (const raw of addresses) {
      const key = emailKeyOf(raw);
      if (rows.has(key)) continue;
      rows.set(key, {
        appId,
        invitationId: inv.id,
        emailKey: key,
        email: raw.trim().slice(0, 320),
        firstName: null,
        lastName: null,
        registrationId: null,
        token: randomBytes(24).toString('base64url'),
        status: 'pending',
        error: null,
        createdAt: inv.createdAt,
        updatedAt: inv.createdAt,
      });
    }
    inv.jobTotal = rows.size;
    const tags = normalizeTags(body.tags ?? []);
    const list = [...rows.values()];
    await this.dataSource.transaction(async (m) => {
      await m.insert(InvitationEntity, inv);
      for (let i = 0; i < list.length; i += CHUNK) await m.insert(UserInvitationEntity, list.slice(i, i + CHUNK));
      if (tags.length) await this.tags.add(appId, 'invitation', inv.id, tags, m);
      await this.events.publishIn(m, new InvitationCreated({ appId, invitationId: inv.id, courseId: inv.courseId, kind: 'private' }));
    });
    await this.jobs.enqueue(invitationEmailQueue(this.config.mail.emailBackoffMs), { appId, invitationId: inv.id }, { appId });
    return summaryOf(inv);
  }

  private async newInvitation(appId: string, body: CreatePublicInvitationDto | CreatePrivateInvitationDto, isPublic: boolean): Promise<InvitationEntity> {
    await this.courses.requireCourse(appId, body.courseId);
    const now = new Date();
    return {
      appId,
      id: randomUUID(),
      courseId: body.courseId,
      isPublic,
      allowLaunch: true,
      allowNewRegistrations: true,
      registrationCap: 0,
      joinedCount: 0,
      expirationDate: body.expirationDate ? new Date(body.expirationDate) : null,
      postBack: body.postBack ? this.registrations.sealPostBack(body.postBack) : null,
      emailSubject: null,
      emailBody: null,
      creatingUserEmail: body.creatingUserEmail,
      duplicateOption: 'SEND_EXISTING',
      publicToken: null,
      jobStatus: null,
      jobTotal: 0,
      createdAt: now,
      updatedAt: now,
    };
  }

  // ---- reading --------------------------------------------------------------------------------------------

  async list(appId: string, kind: Kind | 'all', query: InvitationListQueryDto): Promise<{ invitations: Array<InvitationView | InvitationSummaryView>; more?: string; total?: number }> {
    const listQuery = this.lists[kind];
    const resolved = listQuery.resolveFilters(appId, {
      ...query,
      extra: { ...(query.courseId !== undefined ? { courseId: query.courseId } : {}), tags: query.tags ?? [] },
    });
    const f = resolved.filters;
    const qb = this.invitations.createQueryBuilder('v').where('v.appId = :appId', { appId });
    if (kind !== 'all') qb.andWhere('v.isPublic = :pub', { pub: kind === 'public' });
    if (typeof f.courseId === 'string') qb.andWhere('v.courseId = :courseId', { courseId: f.courseId });
    this.tags.applyTagFilter(qb, 'v', 'id', appId, 'invitation', (f.tags as string[] | undefined) ?? []);
    const page = await listQuery.page(appId, qb, resolved, (row) => [f.datetimeFilter === 'created' || f.orderBy.startsWith('created') ? row.createdAt : row.updatedAt, row.id], {
      includeTotalCount: query.includeTotalCount === true && query.more === undefined,
    });
    if (kind === 'all') return { invitations: page.items.map(summaryOf), more: page.more, total: page.total };
    const ids = page.items.map((i) => i.id);
    const addresses = kind === 'private' ? await this.addressesOf(appId, ids) : new Map<string, string[]>();
    const counts = query.includeRegistrationCount === true && ids.length > 0 ? await this.registrationCounts(appId, ids) : null;
    return { invitations: page.items.map((i) => this.view(i, counts, addresses)), more: page.more, total: page.total };
  }

  async get(appId: string, kind: Kind, id: string, includeRegistrationCount: boolean): Promise<InvitationView> {
    const inv = await this.require(appId, kind, id);
    const counts = includeRegistrationCount ? await this.registrationCounts(appId, [id]) : null;
    const addresses = kind === 'private' ? await this.addressesOf(appId, [id]) : new Map<string, string[]>();
    return this.view(inv, counts, addresses);
  }

  async require(appId: string, kind: Kind | 'any', id: string): Promise<InvitationEntity> {
    const inv = await this.invitations.findOneBy({ appId, id });
    if (!inv || (kind !== 'any' && inv.isPublic !== (kind === 'public'))) throw new NotFoundError(kind === 'any' ? 'Invitation' : kind === 'public' ? 'Public invitation' : 'Private invitation', id);
    return inv;
  }

  /** InvitationJobStatusSchema: progress counted from the user invitations (nothing to keep in step). */
  async jobStatus(appId: string, id: string): Promise<{ status: string; errors: string[]; total: number; processed: number }> {
    const inv = await this.require(appId, 'private', id);
    const counts = await this.users
      .createQueryBuilder('u')
      .select('u.status', 'status')
      .addSelect('COUNT(*)', 'n')
      .where('u.appId = :appId AND u.invitationId = :id', { appId, id })
      .groupBy('u.status')
      .getRawMany<{ status: string; n: string | number }>();
    const pending = Number(counts.find((c) => c.status === 'pending')?.n ?? 0);
    const total = counts.reduce((sum, c) => sum + Number(c.n), 0);
    const failed = await this.users.find({ where: { appId, invitationId: id, status: 'failed' }, select: { email: true, error: true }, order: { emailKey: 'ASC' } });
    return {
      status: inv.jobStatus ?? 'COMPLETE',
      errors: failed.map((r) => `${r.email}: ${r.error ?? 'failed'}`),
      total,
      processed: total - pending,
    };
  }

  async userInvitations(appId: string, kind: Kind, id: string, query: UserInvitationListQueryDto): Promise<{ userInvitations: UserInvitationView[]; more?: string; total?: number }> {
    await this.require(appId, kind, id);
    const resolved = this.userList.resolveFilters(appId, { ...query, extra: { invitationId: id, includeRegistrationReport: query.includeRegistrationReport === true } });
    const f = resolved.filters;
    if (f.invitationId !== id) throw new InvalidInputError('more: the token belongs to another invitation');
    const qb = this.users.createQueryBuilder('u').where('u.appId = :appId AND u.invitationId = :id', { appId, id });
    const page = await this.userList.page(appId, qb, resolved, (row) => [f.orderBy.startsWith('created') ? row.createdAt : row.updatedAt, row.emailKey], {
      includeTotalCount: query.includeTotalCount === true && query.more === undefined,
    });
    const reports = await this.learnerRegistrations.reports(appId, page.items.flatMap((u) => (u.registrationId ? [u.registrationId] : [])));
    const withReport = f.includeRegistrationReport === true;
    return {
      userInvitations: page.items.map((u) => {
        const report = u.registrationId ? reports.get(u.registrationId) : undefined;
        return {
          email: u.email,
          url: this.userUrl(u.token),
          isStarted: report?.started ?? false,
          updated: u.updatedAt.toISOString(),
          ...(u.registrationId ? { registrationId: u.registrationId } : {}),
          ...(withReport && report
            ? { registrationReport: { complete: report.complete, success: report.success, totalSecondsTracked: report.totalSecondsTracked, ...(report.score ? { score: report.score } : {}) } }
            : {}),
        };
      }),
      more: page.more,
      total: page.total,
    };
  }

  // ---- updates --------------------------------------------------------------------------------------------

  async updatePrivate(appId: string, id: string, body: UpdatePrivateInvitationDto): Promise<InvitationView> {
    const inv = await this.require(appId, 'private', id);
    const before = { ...inv };
    if (body.allowLaunch !== undefined) inv.allowLaunch = body.allowLaunch;
    if (body.invitationEmail) {
      if (body.invitationEmail.subject !== undefined) inv.emailSubject = body.invitationEmail.subject;
      if (body.invitationEmail.body !== undefined) inv.emailBody = body.invitationEmail.body;
    }
    this.applyCommon(inv, body);
    await this.invitations.save(inv);
    await this.events.publish(new InvitationChanged({ appId, invitationId: id, kind: 'private', changed: changedNames(before, inv) }));
    return this.get(appId, 'private', id, true);
  }

  async updatePublic(appId: string, id: string, body: UpdatePublicInvitationDto): Promise<InvitationView> {
    const inv = await this.require(appId, 'public', id);
    const before = { ...inv };
    if (body.allowLaunch !== undefined) inv.allowLaunch = body.allowLaunch;
    if (body.allowNewRegistrations !== undefined) inv.allowNewRegistrations = body.allowNewRegistrations;
    if (body.registrationCap !== undefined) inv.registrationCap = body.registrationCap;
    this.applyCommon(inv, body);
    await this.invitations.save(inv);
    await this.events.publish(
      new InvitationChanged({ appId, invitationId: id, kind: 'public', changed: changedNames(before, inv) }),
    );
    return this.get(appId, 'public', id, true);
  }

  private applyCommon(inv: InvitationEntity, body: { postBack?: PostBackDto; expirationDate?: string | null }): void {
    if (body.postBack !== undefined) inv.postBack = this.registrations.sealPostBack(body.postBack);
    if (body.expirationDate !== undefined) inv.expirationDate = body.expirationDate === null ? null : new Date(body.expirationDate);
    inv.updatedAt = new Date();
  }

  // ---- tags -----------------------------------------------------------------------------------------------

  async requireAll(appId: string, ids: readonly string[]): Promise<void> {
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += CHUNK) {
      const part = unique.slice(i, i + CHUNK);
      const found = new Set((await this.invitations.find({ where: { appId, id: In(part) }, select: { id: true } })).map((r) => r.id));
      const missing = part.find((p) => !found.has(p));
      if (missing !== undefined) throw new NotFoundError('Invitation', missing);
    }
  }

  // ---- user invitations (the job and the pages) ------------------------------------------------------------

  userUrl(token: string): string {
    return `${this.config.publicUrl}/invite/u/${token}`;
  }

  publicUrl(token: string): string {
    return `${this.config.publicUrl}/invite/p/${token}`;
  }

  async byPublicToken(token: string): Promise<InvitationEntity | null> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(token)) return null;
    return this.invitations.findOneBy({ publicToken: token, isPublic: true });
  }

  async byUserToken(token: string): Promise<{ inv: InvitationEntity; user: UserInvitationEntity } | null> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(token)) return null;
    const user = await this.users.findOneBy({ token });
    const inv = user ? await this.invitations.findOneBy({ appId: user.appId, id: user.invitationId }) : null;
    return inv && user ? { inv, user } : null;
  }

  /** Whether the invitation's links launch: `closed` (allowLaunch false) or `expired` say why not. */
  openness(inv: InvitationEntity, now = new Date()): 'open' | 'closed' | 'expired' {
    if (!inv.allowLaunch) return 'closed';
    if (inv.expirationDate && inv.expirationDate.getTime() <= now.getTime()) return 'expired';
    return 'open';
  }

  async courseTitle(inv: InvitationEntity): Promise<string> {
    try {
      return (await this.courses.resolveVersion(inv.appId, inv.courseId)).version.title;
    } catch {
      return '';
    }
  }

  /**
   * A visitor of a public invitation: the same address resumes its registration; a new one gets a registration while
   * the invitation takes new ones and its cap is not reached. The invitation must be open (see openness).
   */
  async joinPublic(inv: InvitationEntity, person: { firstName: string; lastName: string; email: string }): Promise<{ registrationId: string } | { refused: 'full' | 'noNew' }> {
    const emailKey = emailKeyOf(person.email);
    const existing = await this.users.findOneBy({ appId: inv.appId, invitationId: inv.id, emailKey });
    if (existing?.registrationId && (await this.registrations.find(inv.appId, existing.registrationId))) return { registrationId: existing.registrationId };
    const registrationId = registrationIdFor(inv.appId, inv.id, emailKey, existing ? existing.token : '');
    const body = {
      courseId: inv.courseId,
      registrationId,
      learner: { id: emailKey, email: person.email.trim(), firstName: person.firstName, lastName: person.lastName },
      ...(inv.postBack ? { postBack: this.registrations.openPostBack(inv.postBack) } : {}),
    };
    const now = new Date();
    if (existing) {
      // A visitor whose registration was deleted comes back: a new registration, in the place already taken.
      if (!(await this.registrations.find(inv.appId, registrationId))) await this.creation.create(inv.appId, body).catch(async (err: unknown) => this.madeByTwin(inv, registrationId, err));
      await this.users.update({ appId: inv.appId, invitationId: inv.id, emailKey }, { registrationId, updatedAt: now });
      return { registrationId };
    }
    // A new visitor takes a place (one conditional update of the invitation row: it holds the row until the
    // transaction ends, so simultaneous visitors take places one after the other) in the transaction that makes
    // the user invitation and the registration: all three or none.
    const user: UserInvitationEntity = {
      appId: inv.appId,
      invitationId: inv.id,
      emailKey,
      email: person.email.trim(),
      firstName: person.firstName,
      lastName: person.lastName,
      registrationId,
      token: randomBytes(24).toString('base64url'),
      status: 'joined',
      error: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.creation.create(inv.appId, body, undefined, {
        within: async (m) => {
          const taken = await m.queryRunner!.query(
            'UPDATE invitation SET joined_count = joined_count + 1 WHERE app_id = ? AND id = ? AND allow_new_registrations = 1 AND (registration_cap = 0 OR joined_count < registration_cap)',
            [inv.appId, inv.id],
            true,
          );
          if (!taken.affected) throw new NoPlace();
          await m.insert(UserInvitationEntity, user);
        },
      });
    } catch (err) {
      if (err instanceof NoPlace) {
        const current = await this.invitations.findOneBy({ appId: inv.appId, id: inv.id });
        return { refused: current?.allowNewRegistrations === false ? 'noNew' : 'full' };
      }
      await this.madeByTwin(inv, registrationId, err);
    }
    await this.events.publish(new InvitationChanged({ appId: inv.appId, invitationId: inv.id, kind: 'public', changed: ['registrationCount'] }));
    return { registrationId };
  }

  /** The same address sent twice at once: the other request made the registration (else the error stands). */
  private async madeByTwin(inv: InvitationEntity, registrationId: string, err: unknown): Promise<void> {
    if (!(await this.registrations.find(inv.appId, registrationId))) throw err;
  }

  // ---- deletion -------------------------------------------------------------------------------------------

  /** Course deletion takes the course's invitations along (their registrations go with the course). */
  async removeForCourse(appId: string, courseId: string): Promise<void> {
    const ids = (await this.invitations.find({ where: { appId, courseId }, select: { id: true } })).map((r) => r.id);
    if (ids.length === 0) return;
    await this.dataSource.transaction(async (m: EntityManager) => {
      await m.delete(UserInvitationEntity, { appId, invitationId: In(ids) });
      await m.delete(InvitationEntity, { appId, id: In(ids) });
    });
    await this.tags.purge(appId, 'invitation', ids);
  }

  async purgeApplication(appId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await m.delete(UserInvitationEntity, { appId });
      await m.delete(InvitationEntity, { appId });
    });
  }

  /** A deleted registration (RegistrationDeleted) no longer belongs to its user invitation; a visitor who comes back gets a new one. */
  async registrationDeleted(appId: string, registrationId: string): Promise<void> {
    await this.users.update({ appId, registrationId }, { registrationId: null });
  }

  /** The learner's erasure: every user invitation of these addresses or registrations. */
  async forgetLearner(appId: string, emailKeys: string[], registrationIds: string[]): Promise<void> {
    const touched = new Set<string>();
    const forget = async (where: { emailKey: ReturnType<typeof In<string>> } | { registrationId: ReturnType<typeof In<string>> }) => {
      for (const r of await this.users.find({ where: { appId, ...where }, select: { invitationId: true } })) touched.add(r.invitationId);
      await this.users.delete({ appId, ...where });
    };
    for (let i = 0; i < emailKeys.length; i += CHUNK) await forget({ emailKey: In(emailKeys.slice(i, i + CHUNK)) });
    for (let i = 0; i < registrationIds.length; i += CHUNK) await forget({ registrationId: In(registrationIds.slice(i, i + CHUNK)) });
    // Their places under the invitations' caps are free again.
    for (const id of touched) {
      await this.dataSource.query('UPDATE invitation SET joined_count = (SELECT COUNT(*) FROM user_invitation u WHERE u.app_id = ? AND u.invitation_id = ?) WHERE app_id = ? AND id = ?', [appId, id, appId, id]);
    }
  }

  // ---- views ----------------------------------------------------------------------------------------------

  private async registrationCounts(appId: string, ids: string[]): Promise<Map<string, number>> {
    const rows = await this.users
      .createQueryBuilder('u')
      .select('u.invitationId', 'id')
      .addSelect('COUNT(*)', 'n')
      .where({ appId, invitationId: In(ids), registrationId: Not(IsNull()) })
      .groupBy('u.invitationId')
      .getRawMany<{ id: string; n: string | number }>();
    return new Map(ids.map((id) => [id, Number(rows.find((r) => r.id === id)?.n ?? 0)]));
  }

  private async addressesOf(appId: string, ids: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return out;
    const rows = await this.users.find({ where: { appId, invitationId: In(ids) }, select: { invitationId: true, email: true }, order: { createdAt: 'ASC', emailKey: 'ASC' } });
    for (const r of rows) out.get(r.invitationId)?.push(r.email);
    return out;
  }

  private view(inv: InvitationEntity, counts: Map<string, number> | null, addresses: Map<string, string[]>): InvitationView {
    return {
      id: inv.id,
      courseId: inv.courseId,
      allowLaunch: inv.allowLaunch,
      ...(inv.isPublic
        ? { allowNewRegistrations: inv.allowNewRegistrations, url: this.publicUrl(inv.publicToken ?? '') }
        : { invitationEmail: { ...(inv.emailSubject !== null ? { subject: inv.emailSubject } : {}), ...(inv.emailBody !== null ? { body: inv.emailBody } : {}), addresses: addresses.get(inv.id) ?? [] } }),
      createDate: inv.createdAt.toISOString(),
      updated: inv.updatedAt.toISOString(),
      ...(inv.postBack ? { postBack: postBackView(inv.postBack) } : {}),
      ...(inv.expirationDate ? { expirationDate: inv.expirationDate.toISOString() } : {}),
      ...(inv.isPublic ? { registrationCap: inv.registrationCap } : {}),
      ...(counts ? { registrationCount: counts.get(inv.id) ?? 0 } : {}),
    };
  }
}

/** The API V2 names of the updatable attributes whose values an update changed. */
function changedNames(before: InvitationEntity, after: InvitationEntity): string[] {
  const differs = (a: unknown, b: unknown) => JSON.stringify(a) !== JSON.stringify(b);
  const names: Array<[string, boolean]> = [
    ['allowLaunch', before.allowLaunch !== after.allowLaunch],
    ['allowNewRegistrations', before.allowNewRegistrations !== after.allowNewRegistrations],
    ['invitationEmail', before.emailSubject !== after.emailSubject || before.emailBody !== after.emailBody],
    ['postBack', differs(before.postBack, after.postBack)],
    ['expirationDate', differs(before.expirationDate, after.expirationDate)],
    ['registrationCap', before.registrationCap !== after.registrationCap],
  ];
  return names.filter(([, changed]) => changed).map(([name]) => name);
}

export function summaryOf(inv: InvitationEntity): InvitationSummaryView {
  return { id: inv.id, courseId: inv.courseId, isPublic: inv.isPublic, createDate: inv.createdAt.toISOString(), updated: inv.updatedAt.toISOString() };
}

/** PostBackSchema as shown: never the password. */
function postBackView(p: StoredPostBack): Omit<PostBackDto, 'password'> {
  return { url: p.url, authType: p.authType, ...(p.userName !== undefined ? { userName: p.userName } : {}), resultsFormat: p.resultsFormat, ...(p.legacy !== undefined ? { legacy: p.legacy } : {}) };
}

/** A registration id that is the same each time it is worked out for this address (a retried job finds its own). */
export function registrationIdFor(appId: string, invitationId: string, emailKey: string, salt = ''): string {
  const h = createHash('sha256').update(`${appId}\n${invitationId}\n${emailKey}\n${salt}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

