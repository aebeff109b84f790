import { lrsStatementsStored } from '../../platform/metrics/metrics';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { EventBus, StatementsStored } from '../../platform/events';
import { randomUUID } from 'node:crypto';
import { Brackets, DataSource, EntityManager, In, QueryFailedError, Repository } from 'typeorm';
import { ConflictError, InvalidInputError, NotFoundError } from '../../platform/http/domain-errors';
import { PageTokens } from '../../platform/http/page-tokens';
import { HotExecute, paddedChunks, pipeline, powerOfTwoChunks, runsOf, sqlOf } from '../../platform/database/hot-statement';
import { XapiAttachmentEntity } from './entities/xapi-document.entity';
import { XapiStatementEntity, XapiStatementLinkEntity } from './entities/xapi-statement.entity';
import { AttachmentContent, attachmentsOf } from './lrs/attachments';
import { agentKey, canonicalContent, hashContent, idsFormat, indexKey, Json, objectActivityId, objectAgentKey, relatedKeys, storedJson } from './lrs/statement-keys';
import { isUuid, StatementRuleError, validateStatement, VOIDED_VERB } from './lrs/statement-rules';
import { onceMoreIfRaced } from './unique-violation';

/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return -- statements are free-form JSON; statement-rules.ts checks their shape */

export const DEFAULT_STATEMENT_LIMIT = 100;
export const MAX_STATEMENT_LIMIT = 500;

/** The filters of a statement query (the LRS's GET /statements parameters, already parsed). */
export interface StatementFilters {
  /** An Agent or Group object, matched by its inverse functional identifier. */
  agent?: Json;
  verb?: string;
  activity?: string;
  registration?: string;
  relatedActivities?: boolean;
  relatedAgents?: boolean;
  /** Stored strictly after. */
  since?: Date;
  /** Stored at or before. */
  until?: Date;
  /** 0 = the maximum. */
  limit?: number;
  ascending?: boolean;
  format?: 'ids' | 'exact' | 'canonical';
  /** Only statements stored with this xAPI credential (credentials whose permissions cover only their own statements). */
  storedBy?: string;
  /** Only statements of one of these registrations (e.g. a course's); see RegistrationSet. */
  registrationSet?: RegistrationSet;
}

/** Which registrations a set holds, e.g. `{ course: 'c1', version: 'all' }`; travels in `more` tokens. */
export type RegistrationSetKey = Record<string, string | number>;

/**
 * A set of registrations, resolved to SQL by the module that knows them. A `more` token carries the key it was
 * issued for and is refused with a set whose key differs on a field the caller gives (fields the caller leaves out,
 * such as an optional learner, come from the token); the rows come from `select(key of the token)`.
 */
export interface RegistrationSet {
  key: RegistrationSetKey;
  /** SQL selecting the registration ids (as in context.registration, lower-case) of the set with this key. */
  select(key: RegistrationSetKey): { sql: string; parameters: Record<string, unknown> };
}

interface QueryState {
  agent?: string;
  verb?: string;
  activity?: string;
  registration?: string;
  relatedActivities?: boolean;
  relatedAgents?: boolean;
  since?: string;
  until?: string;
  limit: number;
  ascending: boolean;
  format: 'ids' | 'exact' | 'canonical';
  storedBy?: string;
  registrationSet?: RegistrationSetKey;
}

type StatementQuery = ReturnType<Repository<XapiStatementEntity>['createQueryBuilder']>;

export interface StatementPage {
  statements: Json[];
  /** A signed token for the next page (pass it back as `more`), absent on the last page. */
  more?: string;
}

export interface StoreOptions {
  /** The xAPI credential storing them, for credentials that may read only their own statements. */
  credentialId?: string | null;
  /** Contents of attachments sent as multipart/mixed parts, stored with the statements. */
  attachments?: AttachmentContent[];
  /** The version the client speaks (X-Experience-API-Version); statements without one get `1.0.0` (`2.0.0` for 2.0 clients). */
  version?: string;
}

/** Told of statements carrying a context.registration once they are stored (must not throw or wait). */
export type RegistrationStatementsListener = (appId: string, statements: ReadonlyArray<Record<string, Json>>) => void;

export interface StatementLookup {
  statement: Json;
  stored: Date;
}

/**
 * The statement store of the applications' LRSs. The LRS controller, the registrations' xAPIStatements endpoints and
 * the player all come through here; every method is scoped to one application.
 */
@Injectable()
export class XapiStatementsService {
  private readonly registrationListeners: RegistrationStatementsListener[] = [];
  private consecutiveSeqs: Promise<boolean> | null = null;
  /** What consecutiveSeqs answered (MySQL/MariaDB), once it has. */
  private consecutiveKnown: boolean | undefined;

  constructor(
    @InjectRepository(XapiStatementEntity) private readonly statements: Repository<XapiStatementEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tokens: PageTokens,
    private readonly events: EventBus,
  ) {}

  /**
   * Validates and stores statements, all or nothing; returns their ids in order. A statement whose id is already
   * stored with the same content is not stored again; with a different content it is a 409.
   */
  async storeStatements(appId: string, input: unknown[], authority: Json, options: StoreOptions = {}): Promise<string[]> {
    if (input.length === 0) throw new InvalidInputError('No statements: send a statement or a non-empty array of statements');
    const checked = input.map((s, i) => validateStatement(s, input.length > 1 ? `statements[${i}]` : 'statement'));
    const seen = new Set<string>();
    for (const s of checked) {
      if (s.id === undefined) continue;
      if (seen.has(s.id)) throw new InvalidInputError(`The batch contains the statement id ${s.id} more than once`);
      seen.add(s.id);
    }
    const defaultVersion = options.version?.startsWith('2.') ? '2.0.0' : '1.0.0';
    const ids = await this.store(appId, checked, authority, options, defaultVersion);
    const withRegistration = checked.filter((s) => typeof s.context?.registration === 'string');
    if (withRegistration.length > 0) for (const listener of this.registrationListeners) listener(appId, withRegistration);
    return ids;
  }

  /** Registers a listener of stored statements that carry a context.registration (e.g. xAPI course progress). */
  onRegistrationStatements(listener: RegistrationStatementsListener): void {
    this.registrationListeners.push(listener);
  }

  private store(appId: string, checked: Array<Record<string, Json>>, authority: Json, options: StoreOptions, defaultVersion: string): Promise<string[]> {
    // Two requests storing the same id at once: the loser's second run finds it stored (same content: nothing to do).
    // Nothing here changes `checked`: a second run starts again from what was sent (new ids for those without).
    let stored = 0;
    return onceMoreIfRaced(() => this.dataSource.transaction(async (m) => {
      const ids = checked.filter((s) => s.id !== undefined).map((s) => s.id as string);
      const existing = ids.length > 0 ? await selectWhereIdIn<{ id: string; content_hash: string }>(m, 'id, content_hash', 'id', appId, ids) : [];
      const existingHash = new Map(existing.map((e) => [e.id, e.content_hash]));
      const out: string[] = [];
      const fresh: PendingStatement[] = [];
      for (const s of checked) {
        const id = (s.id as string | undefined) ?? randomUUID();
        out.push(id);
        const canonical = canonicalContent(s, id);
        const hash = hashContent(canonical);
        const known = existingHash.get(id);
        if (known !== undefined) {
          if (known !== hash) throw new ConflictError(`A different statement with id ${id} is already stored; statements are immutable`);
          continue;
        }
        fresh.push({ s, id, canonical, hash, clientId: s.id !== undefined });
      }
      await this.checkVoiding(m, appId, fresh);
      if (fresh.length > 0) await this.insertAll(m, appId, fresh, authority, new Date(), defaultVersion, options.credentialId ?? null);
      if (fresh.length > 0 && this.events.hasListeners(StatementsStored)) await this.events.publishIn(m, statementsStored(appId, fresh));
      for (const a of options.attachments ?? []) {
        if (!(await m.existsBy(XapiAttachmentEntity, { appId, sha2: a.sha2 }))) await m.insert(XapiAttachmentEntity, { appId, ...a });
      }
      stored = fresh.length;
      return out;
    })).then((out) => {
      // Counted once committed (a raced first run that rolled back is not).
      if (stored > 0) lrsStatementsStored.inc(stored);
      return out;
    });
  }

  /** A statement by id; voided ones only with `voided: true`, non-voided ones only without it. */
  async getStatement(appId: string, id: string, opts: { voided: boolean; format?: StatementFilters['format']; storedBy?: string; registration?: string }): Promise<StatementLookup> {
    const what = opts.voided ? 'Voided statement' : 'Statement';
    if (!isUuid(id)) throw new InvalidInputError(`${opts.voided ? 'voidedStatementId' : 'statementId'} must be a UUID`);
    const row = await this.statements.findOneBy({ appId, id: id.toLowerCase() });
    if (!row || row.voided !== opts.voided || (opts.storedBy !== undefined && row.credentialId !== opts.storedBy)) throw new NotFoundError(what, id);
    // A launch token reads only the statements of its registration; others are as absent to it as unknown ids.
    if (opts.registration !== undefined && row.registration?.toLowerCase() !== opts.registration.toLowerCase()) throw new NotFoundError(what, id);
    return { statement: this.render(row, opts.format ?? 'exact'), stored: row.stored };
  }

  /** One page of an application's statements, newest first unless ascending; voided statements left out. */
  async query(appId: string, filters: StatementFilters = {}, more?: string): Promise<StatementPage> {
    let state: QueryState;
    let after: number | null = null;
    if (more !== undefined) {
      const decoded = this.tokens.decode<QueryState>('lrs-statements', appId, more);
      state = decoded.filters;
      after = Number(decoded.after[0]);
      // A token carries the reader's restriction; another reader of the same application cannot widen it.
      if (state.storedBy !== filters.storedBy) throw new InvalidInputError('more: the token was issued to other credentials');
      if (!sameSet(state.registrationSet, filters.registrationSet?.key)) throw new InvalidInputError('more: the token belongs to another list');
    } else {
      state = this.stateOf(filters);
    }
    // An agent that is the object of no statement (most learners) is matched on the actor index alone.
    const agentAsObject =
      state.agent !== undefined && state.relatedAgents !== true && (await this.dataSource.getRepository(XapiStatementLinkEntity).existsBy({ appId, kind: 'objagent', value: state.agent }));
    const page = (refs: boolean) => {
      const qb = this.statements.createQueryBuilder('s').where('s.appId = :appId', { appId }).andWhere('s.voided = :no', { no: false });
      if (refs) {
        // Statements whose StatementRef targets a statement that meets the filters (voided or not) meet them too
        // (Communication 2.1.3 "Filter Conditions for StatementRefs"); time, order and limit apply to the referrer.
        // Driven by the referring statements (few, through ix_xapi_statement_ref), each joined to its one target.
        qb.innerJoin(XapiStatementEntity, 't', 't.appId = s.appId AND t.id = s.refTarget').andWhere('s.refTarget IS NOT NULL');
        this.matchFilters(qb, 't', appId, state, agentAsObject);
      } else {
        this.matchFilters(qb, 's', appId, state, agentAsObject);
      }
      if (state.storedBy !== undefined) qb.andWhere('s.credentialId = :storedBy', { storedBy: state.storedBy });
      if (state.registrationSet !== undefined && filters.registrationSet) {
        const set = filters.registrationSet.select(state.registrationSet);
        qb.andWhere(`s.registration IN (${set.sql})`, set.parameters);
      }
      if (state.since !== undefined) qb.andWhere('s.stored > :since', { since: new Date(state.since) });
      if (state.until !== undefined) qb.andWhere('s.stored <= :until', { until: new Date(state.until) });
      if (after !== null) qb.andWhere(`s.seq ${state.ascending ? '>' : '<'} :after`, { after });
      return qb
        .orderBy('s.seq', state.ascending ? 'ASC' : 'DESC')
        .limit(state.limit + 1)
        .getMany();
    };
    const filtered = state.verb !== undefined || state.registration !== undefined || state.agent !== undefined || state.activity !== undefined;
    // Two index-friendly queries merged by seq rather than one OR, which would cost the plain filters their indexes.
    const [direct, referring] = await Promise.all([page(false), filtered ? page(true) : Promise.resolve([])]);
    const bySeq = new Map([...direct, ...referring].map((r) => [Number(r.seq), r]));
    const rows = [...bySeq.values()].sort((a, b) => (state.ascending ? 1 : -1) * (Number(a.seq) - Number(b.seq))).slice(0, state.limit + 1);
    let token: string | undefined;
    if (rows.length > state.limit) {
      rows.length = state.limit;
      token = this.tokens.encode('lrs-statements', appId, { filters: state, after: [Number(rows[rows.length - 1].seq)] });
    }
    return { statements: rows.map((r) => this.render(r, state.format)), more: token };
  }

  /**
   * The Activity object of the Activities resource: the definitions of every statement whose object is this activity,
   * merged oldest to newest (language maps merged, other properties the latest wins).
   */
  async activity(appId: string, activityId: string): Promise<Json> {
    const rows = await this.statements.find({ where: { appId, activityId: indexKey(activityId) }, select: { statement: true }, order: { seq: 'DESC' }, take: 200 });
    let definition: Record<string, Json> | undefined;
    for (const row of rows.reverse()) {
      const d = JSON.parse(row.statement).object?.definition;
      if (d === undefined || d === null || typeof d !== 'object') continue;
      const merged: Record<string, Json> = { ...(definition ?? {}), ...d };
      for (const map of ['name', 'description']) if (definition?.[map] && d[map]) merged[map] = { ...definition[map], ...d[map] };
      definition = merged;
    }
    return { objectType: 'Activity', id: activityId, ...(definition !== undefined ? { definition } : {}) };
  }

  /** The stored contents of the attachments of statements (attachments=true), those sent as parts. */
  async attachmentContents(appId: string, statements: Json[]): Promise<AttachmentContent[]> {
    const sha2s = [...new Set(attachmentsOf(statements).map((a) => String(a.sha2).toLowerCase()))];
    if (sha2s.length === 0) return [];
    const rows = await this.dataSource.manager.find(XapiAttachmentEntity, { where: { appId, sha2: In(sha2s) } });
    return rows.map((r) => ({ sha2: r.sha2, contentType: r.contentType, content: Buffer.from(r.content) }));
  }

  /** Everything of an application (application deletion). */
  /**
   * A learner's erasure: every statement that mentions one of these agents (as actor, object, in context or a
   * sub-statement: the `agent` links) or belongs to one of these xAPI registrations, with its links. Returns how many.
   */
  async eraseAgents(appId: string, agents: Json[], registrations: string[]): Promise<number> {
    const keys = [...new Set(agents.map((a) => agentKey(a)).filter((k): k is string => k !== null))];
    const seqs = new Set<number>();
    const links = this.dataSource.getRepository(XapiStatementLinkEntity);
    for (let i = 0; i < keys.length; i += 200) {
      const rows = await links.find({ where: { appId, kind: In(['agent', 'objagent']), value: In(keys.slice(i, i + 200)) }, select: { seq: true } });
      for (const r of rows) seqs.add(Number(r.seq));
    }
    const regs = [...new Set(registrations.map((r) => r.toLowerCase()))];
    for (let i = 0; i < regs.length; i += 200) {
      const rows = await this.statements.find({ where: { appId, registration: In(regs.slice(i, i + 200)) }, select: { seq: true } });
      for (const r of rows) seqs.add(Number(r.seq));
    }
    const list = [...seqs];
    for (let i = 0; i < list.length; i += 200) {
      const part = list.slice(i, i + 200);
      await this.dataSource.transaction(async (m) => {
        await m.delete(XapiStatementLinkEntity, { appId, seq: In(part) });
        await m.delete(XapiStatementEntity, { appId, seq: In(part) });
      });
    }
    return list.length;
  }

  async purgeApplication(appId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await m.delete(XapiStatementLinkEntity, { appId });
      await m.delete(XapiAttachmentEntity, { appId });
      await m.delete(XapiStatementEntity, { appId });
    });
  }

  private stateOf(f: StatementFilters): QueryState {
    const limit = f.limit === undefined ? DEFAULT_STATEMENT_LIMIT : f.limit === 0 ? MAX_STATEMENT_LIMIT : Math.min(f.limit, MAX_STATEMENT_LIMIT);
    if (!Number.isInteger(limit) || limit < 0) throw new InvalidInputError('limit must be a non-negative integer');
    let agent: string | undefined;
    if (f.agent !== undefined) {
      const key = agentKey(f.agent);
      if (key === null) throw new InvalidInputError('agent must be an Agent or identified Group with one inverse functional identifier');
      agent = key;
    }
    if (f.registration !== undefined && !isUuid(f.registration)) throw new InvalidInputError('registration must be a UUID');
    if (f.since && f.until && f.since > f.until) throw new InvalidInputError('since must not be later than until');
    return {
      ...(agent !== undefined ? { agent } : {}),
      ...(f.verb !== undefined ? { verb: f.verb } : {}),
      ...(f.activity !== undefined ? { activity: f.activity } : {}),
      ...(f.registration !== undefined ? { registration: f.registration.toLowerCase() } : {}),
      ...(f.relatedActivities ? { relatedActivities: true } : {}),
      ...(f.relatedAgents ? { relatedAgents: true } : {}),
      ...(f.since ? { since: f.since.toISOString() } : {}),
      ...(f.until ? { until: f.until.toISOString() } : {}),
      ...(f.storedBy !== undefined ? { storedBy: f.storedBy } : {}),
      ...(f.registrationSet ? { registrationSet: f.registrationSet.key } : {}),
      limit,
      ascending: f.ascending === true,
      format: f.format ?? 'exact',
    };
  }

  /**
   * agent: the actor, or the object when it is an agent (link kind 'objagent'); activity: the object. With related_*,
   * any agent or activity the statement mentions (link kinds 'agent' / 'activity').
   */
  /** The non-time filters (verb, registration, agent, activity) on the statements of alias `a`. */
  private matchFilters(qb: StatementQuery, a: string, appId: string, state: QueryState, agentAsObject: boolean): void {
    if (state.verb !== undefined) qb.andWhere(`${a}.verbId = :verb`, { verb: indexKey(state.verb) });
    if (state.registration !== undefined) qb.andWhere(`${a}.registration = :registration`, { registration: state.registration });
    if (state.agent !== undefined) this.linkFilter(qb, a, appId, 'agent', state.agent, state.relatedAgents === true, agentAsObject);
    if (state.activity !== undefined) this.linkFilter(qb, a, appId, 'activity', indexKey(state.activity), state.relatedActivities === true, false);
  }

  /**
   * One agent / activity filter on the statements of alias `a`. With related_*: a join on the link key (app, kind,
   * value, seq) — every agent / activity a statement mentions has a link row — which reads the matches newest first
   * without collecting and sorting them all. Without: the actor / object column, or for an agent that is also the
   * object of some statement (`viaObject`) that column or an 'objagent' link.
   */
  private linkFilter(qb: StatementQuery, a: string, appId: string, kind: 'agent' | 'activity', value: string, related: boolean, viaObject: boolean): void {
    const p = `${kind}Key`;
    if (related) {
      const alias = `${a}_${kind}Link`;
      qb.innerJoin(XapiStatementLinkEntity, alias, `${alias}.appId = ${a}.appId AND ${alias}.seq = ${a}.seq AND ${alias}.kind = :${p}Kind AND ${alias}.value = :${p}`, {
        [`${p}Kind`]: kind,
        [p]: value,
      });
      return;
    }
    const column = `${a}.${kind === 'agent' ? 'agent' : 'activityId'}`;
    if (!viaObject) {
      qb.andWhere(`${column} = :${p}`, { [p]: value });
      return;
    }
    qb.andWhere(
      new Brackets((w) => {
        w.where(`${column} = :${p}`, { [p]: value }).orWhere(
          `${a}.seq IN (SELECT l.seq FROM xapi_statement_link l WHERE l.app_id = :${p}App AND l.kind = :${p}Kind AND l.value = :${p})`,
          { [`${p}App`]: appId, [`${p}Kind`]: 'objagent' },
        );
      }),
    );
  }

  /** Voiding: the target must not be a voiding statement; it is marked voided (now, or when it arrives later). */
  private async checkVoiding(m: EntityManager, appId: string, batch: PendingStatement[]): Promise<void> {
    const targets = batch.filter((p) => p.s.verb.id === VOIDED_VERB).map((p) => (p.s.object.id as string).toLowerCase());
    if (targets.length === 0) return;
    const inBatch = new Map(batch.map((p) => [p.id, p.s]));
    const stored = await m.find(XapiStatementEntity, { where: { appId, id: In(targets) }, select: { id: true, verbId: true } });
    for (const target of targets) {
      const isVoiding = inBatch.get(target)?.verb.id === VOIDED_VERB || stored.some((r) => r.id === target && r.verbId === VOIDED_VERB);
      if (isVoiding) throw new StatementRuleError(`statement ${target}`, 'is itself a voiding statement and cannot be voided');
    }
  }

  /**
   * Inserts a batch in a constant number of SQL statements whatever its size: which of them were voided before they
   * arrived (only for ids the client chose: an id the LRS just made up cannot have been voided), the statements and
   * their links (writeRows), one UPDATE for the statements they void.
   */
  private async insertAll(m: EntityManager, appId: string, batch: PendingStatement[], authority: Json, stored: Date, defaultVersion: string, credentialId: string | null): Promise<void> {
    const clientIds = batch.filter((p) => p.clientId).map((p) => p.id);
    // A statement that arrives after the statement voiding it is voided from the start.
    const voidedEarlier = new Set(
      clientIds.length > 0 ? (await selectWhereIdIn<{ voiding_target: string }>(m, 'voiding_target', 'ref_target', appId, clientIds)).filter((r) => r.voiding_target !== null).map((r) => r.voiding_target) : [],
    );
    const rows = batch.map((p) => statementRow(appId, p, authority, defaultVersion, credentialId, voidedEarlier.has(p.id)));
    await this.writeRows(entityManagerWriter(m), rows, stored);
    const voidingTargets = batch.filter((p) => p.s.verb.id === VOIDED_VERB).map((p) => (p.s.object.id as string).toLowerCase());
    if (voidingTargets.length > 0) await m.update(XapiStatementEntity, { appId, id: In(voidingTargets) }, { voided: true });
  }

  /**
   * Statements this service's own modules make (the player's SCORM profile statements: valid by construction, new
   * ids, nothing they void), prepared for writeOwn in the caller's transaction, so that they are stored if and only if
   * what they report is. Registration listeners are not told (they follow xAPI content's own statements).
   */
  prepareOwn(appId: string, statements: Array<Record<string, Json>>, authority: Json): OwnStatements {
    return statements.map((s) => {
      const id = s.id as string;
      const canonical = canonicalContent(s, id);
      return statementRow(appId, { s, id, canonical, hash: hashContent(canonical), clientId: false }, authority, '1.0.0', null, false);
    });
  }

  /**
   * Stores prepared statements (prepareOwn, of any applications) with the writer's connection, in the order given,
   * stored now (in the transaction, as a client's are: not when they were prepared, before it waited for a writer).
   */
  async writeOwn(writer: StatementWriter, statements: OwnStatements): Promise<void> {
    if (statements.length > 0) await this.writeRows(writer, statements, new Date(), true);
  }

  /**
   * One multi-row INSERT of the statements, their seqs (from its insertId on MySQL/MariaDB when they are
   * consecutive, else read back), one multi-row INSERT of their links. Plain SQL with positional parameters (the
   * same for MySQL/MariaDB and SQLite): the query builder's per-parameter bookkeeping cost more CPU than everything
   * else of a request.
   */
  private async writeRows(writer: StatementWriter, rows: StatementRow[], stored: Date, own = false): Promise<void> {
    // Runs of power-of-two lengths (≤ 64 statements, ≤ 256 links): on MySQL each distinct length is a prepared
    // statement cached on every connection, with an object per parameter (padToPowerOfTwo in hot-statement.ts).
    // SQLite (no such cache) takes runs of any length; it allows 32,766 variables a statement (14 a statement row, 4 a
    // link row). Our own statements (new ids: no duplicate can be sent) and links (a duplicate means the same) are padded to one
    // statement a run, the repeated row a no-op on its key; a client's statements are not, so that a duplicate id
    // still fails the insert (see onceMoreIfRaced).
    // Known after the first time: no wait, so that a hot transaction's inserts go with the statements sent before them.
    const consecutive = writer.mysql && (this.consecutiveKnown ?? (await this.consecutiveAutoIncrement(writer)));
    const pad = writer.mysql && own;
    if (pad && consecutive && writer.pipelined) return this.writeOwnPipelined(writer, rows, stored);
    const seqs = new Map<StatementRow, number>();
    for (const chunk of pad ? paddedChunks(rows, 64) : writer.mysql ? powerOfTwoChunks(rows, 64) : runsOf(rows, 64)) {
      const first = await writer.insert(
        statementsSql(chunk.length, pad),
        chunk.flatMap((r) => r.valuesAt(stored)),
      );
      // One multi-row INSERT takes consecutive seqs from the first one (MySQL/MariaDB with a "consecutive" lock mode),
      // the repeated last row of a padded one, a no-op, last.
      if (consecutive && first !== null) [...new Set(chunk)].forEach((r, j) => seqs.set(r, first + j));
    }
    if (seqs.size < rows.length) {
      for (const [appId, ofApp] of groupBy(rows.filter((r) => !seqs.has(r)), (r) => r.appId)) {
        const ids = ofApp.map((r) => r.id);
        const found = new Map(
          (await writer.query<{ id: string; seq: number | string }>(`SELECT id, seq FROM xapi_statement WHERE app_id = ? AND id IN (${ids.map(() => '?').join(', ')})`, [appId, ...ids])).map((x) => [x.id, Number(x.seq)]),
        );
        for (const r of ofApp) seqs.set(r, found.get(r.id)!);
      }
    }
    const links: unknown[][] = [];
    for (const r of rows) {
      const seq = seqs.get(r)!;
      for (const [kind, value] of r.links) links.push([r.appId, kind, value, seq]);
    }
    for (const chunk of writer.mysql ? paddedChunks(links, 256) : runsOf(links, 256)) {
      const sql = sqlOf(`links ${chunk.length} ${writer.mysql}`, () => `INSERT INTO xapi_statement_link (app_id, kind, value, seq) VALUES ${placeholders(chunk.length, 4)}${writer.mysql ? ' ON DUPLICATE KEY UPDATE seq = seq' : ''}`);
      await writer.insert(sql, chunk.flat());
    }
  }

  /**
   * Our own statements in a hot transaction (autocommit off, so a failure anywhere rolls back everything sent), with
   * consecutive seqs: each padded insert of statements is followed at once by the inserts of their links, whose seqs
   * the server works out from LAST_INSERT_ID() (the insert's first seq; the link table has no auto-increment of its
   * own). Nothing waits for the statements' answer: one wait of the event loop instead of two.
   */
  private async writeOwnPipelined(writer: StatementWriter, rows: StatementRow[], stored: Date): Promise<void> {
    const sent = pipeline();
    for (const chunk of paddedChunks(rows, 64)) {
      sent.send(writer.insert(statementsSql(chunk.length, true), chunk.flatMap((r) => r.valuesAt(stored))));
      const links: unknown[][] = [];
      [...new Set(chunk)].forEach((r, j) => {
        for (const [kind, value] of r.links) links.push([r.appId, kind, value, j]);
      });
      for (const part of paddedChunks(links, 256)) {
        const row = '(?, ?, ?, LAST_INSERT_ID() + ?)';
        sent.send(writer.insert(sqlOf(`links after ${part.length}`, () => `INSERT INTO xapi_statement_link (app_id, kind, value, seq) VALUES ${new Array<string>(part.length).fill(row).join(', ')} ON DUPLICATE KEY UPDATE seq = seq`), part.flat()));
      }
    }
    await sent.all();
  }

  /**
   * Whether a multi-row INSERT of statements gets consecutive seqs, the first being its insertId: MySQL/MariaDB with
   * innodb_autoinc_lock_mode 0 or 1 (MariaDB's default; MySQL 8 defaults to 2, "interleaved") and an
   * auto_increment_increment of 1 (Galera sets more). Elsewhere the seqs are read back by id.
   */
  private consecutiveAutoIncrement(writer: StatementWriter): Promise<boolean> {
    if (!writer.mysql) return Promise.resolve(false);
    // On the writer's own connection: with every pooled connection in a storing transaction, asking the pool for
    // another one would wait for ever.
    this.consecutiveSeqs ??= writer
      .query<{ mode: unknown; inc: unknown }>('SELECT @@innodb_autoinc_lock_mode AS mode, @@auto_increment_increment AS inc', [])
      .then((rows) => Number(rows[0]?.mode) <= 1 && Number(rows[0]?.inc) === 1)
      .catch(() => false)
      .then((consecutive) => (this.consecutiveKnown = consecutive));
    return this.consecutiveSeqs;
  }

  private render(row: XapiStatementEntity, format: 'ids' | 'exact' | 'canonical'): Json {
    const statement: Json = JSON.parse(row.statement);
    return format === 'ids' ? idsFormat(statement) : statement;
  }
}

/** A statement of a batch being stored: as validated, its id (sent or made up), canonical content and its hash. */
interface PendingStatement {
  s: Record<string, Json>;
  id: string;
  canonical: string;
  hash: string;
  /** The id came with the statement (it may be stored already, or voided before it arrived). */
  clientId: boolean;
}

/** A statement's xapi_statement values (STATEMENT_COLUMNS) once stored at a time, and its link rows' kind and value. */
interface StatementRow {
  appId: string;
  id: string;
  valuesAt(stored: Date): unknown[];
  links: Array<[kind: string, value: string]>;
}

/** Statements prepared by XapiStatementsService.prepareOwn, for writeOwn. */
export type OwnStatements = StatementRow[];

/** Where the LRS's inserts run: a TypeORM transaction's connection, or a hot transaction's (see hotStatementWriter). */
export interface StatementWriter {
  readonly mysql: boolean;
  /** Statements may be sent without waiting for the ones before: a hot transaction's, autocommit off (inHotTransaction). */
  readonly pipelined: boolean;
  /** Runs an INSERT; its first auto-increment id on MySQL/MariaDB, else null. */
  insert(sql: string, values: unknown[]): Promise<number | null>;
  query<T>(sql: string, values: unknown[]): Promise<T[]>;
}

/** The writer of a hot transaction's connection (MySQL: prepared statements, see inHotTransaction). */
export function hotStatementWriter(execute: HotExecute): StatementWriter {
  return {
    mysql: true,
    pipelined: true,
    insert: async (sql, values) => {
      const res = await execute<{ insertId?: number }>(sql, values);
      return typeof res.insertId === 'number' && res.insertId > 0 ? res.insertId : null;
    },
    query: <T>(sql: string, values: unknown[]) => execute<T[]>(sql, values),
  };
}

/** The writer of a TypeORM transaction (its entity manager). */
export function entityManagerWriter(m: EntityManager): StatementWriter {
  return { mysql: m.connection.options.type === 'mysql', pipelined: false, insert: (sql, values) => insertRows(m, sql, values), query: <T>(sql: string, values: unknown[]) => m.query<T[]>(sql, values) };
}

/** A statement's row and links (the LRS sets stored, authority, version and a missing timestamp). */
function statementRow(appId: string, p: PendingStatement, authority: Json, defaultVersion: string, credentialId: string | null, voidedEarlier: boolean): StatementRow {
  const { s, id, canonical, hash } = p;
  const timestamp = s.timestamp as string | undefined;
  const voidingTarget = s.verb.id === VOIDED_VERB ? (s.object.id as string).toLowerCase() : null;
  const activityId = objectActivityId(s);
  const version = (s.version as string | undefined) ?? defaultVersion;
  const keys = [
    hash,
    indexKey(s.verb.id as string),
    agentKey(s.actor),
    activityId === null ? null : indexKey(activityId),
    typeof s.context?.registration === 'string' ? (s.context.registration as string).toLowerCase() : null,
    voidingTarget === null && voidedEarlier ? 1 : 0,
    voidingTarget,
    s.object.objectType === 'StatementRef' ? (s.object.id as string).toLowerCase() : null,
    credentialId,
  ];
  const timestampDb = timestamp === undefined ? null : dbDatetime(new Date(timestamp).toISOString());
  const valuesAt = (stored: Date): unknown[] => {
    const storedIso = stored.toISOString();
    const storedDb = dbDatetime(storedIso);
    const json = storedJson(canonical, { authority, stored: storedIso, version, ...(timestamp === undefined ? { timestamp: storedIso } : {}) });
    return [appId, id, json, ...keys, timestampDb ?? storedDb, storedDb];
  };
  const links: Array<[string, string]> = [];
  const { agents, activities } = relatedKeys({ ...s, authority });
  for (const value of agents) links.push(['agent', value]);
  for (const value of activities) links.push(['activity', value]);
  const objectAgent = objectAgentKey(s);
  if (objectAgent !== null) links.push(['objagent', objectAgent]);
  return { appId, id, valuesAt, links };
}

function groupBy<T>(list: T[], key: (x: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of list) {
    const k = key(x);
    const group = out.get(k);
    if (group) group.push(x);
    else out.set(k, [x]);
  }
  return out;
}

const STATEMENT_COLUMNS = ['app_id', 'id', 'statement', 'content_hash', 'verb_id', 'agent', 'activity_id', 'registration', 'voided', 'voiding_target', 'ref_target', 'credential_id', 'timestamp', 'stored'];

/** The INSERT of `rows` statements; `own`: padded, the repeated row a no-op on its key (see writeRows). */
const statementsSql = (rows: number, own: boolean): string =>
  sqlOf(`statements ${rows} ${own}`, () => `INSERT INTO xapi_statement (${STATEMENT_COLUMNS.join(', ')}) VALUES ${placeholders(rows, STATEMENT_COLUMNS.length)}${own ? ' ON DUPLICATE KEY UPDATE seq = seq' : ''}`);

/** `(?, ?), (?, ?)` for `rows` rows of `columns` values. */
function placeholders(rows: number, columns: number): string {
  const row = `(${new Array<string>(columns).fill('?').join(', ')})`;
  return new Array<string>(rows).fill(row).join(', ');
}

/** An ISO timestamp as the datetime(3) text both databases store (UTC; TypeORM writes the same). */
function dbDatetime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
}

interface MysqlConnection {
  execute(sql: string, values: unknown[], callback: (err: Error | null, result?: { insertId?: number }) => void): void;
}

/**
 * A multi-row INSERT. On MySQL/MariaDB as a prepared statement (binary protocol): the values travel as they are,
 * where a text query would escape every quote of every statement's JSON on the way (most of the driver's CPU).
 */
async function insertRows(m: EntityManager, sql: string, values: unknown[]): Promise<number | null> {
  if (m.connection.options.type !== 'mysql' || !m.queryRunner) {
    await m.query(sql, values);
    return null;
  }
  const connection = (await m.queryRunner.connect()) as MysqlConnection;
  return new Promise<number | null>((resolve, reject) => {
    connection.execute(sql, values, (err, result) => (err ? reject(new QueryFailedError(sql, values, err)) : resolve(typeof result?.insertId === 'number' && result.insertId > 0 ? result.insertId : null)));
  });
}

/** Rows of an application's statements whose `column` is one of `values` (both columns are indexed). */
function selectWhereIdIn<T>(m: EntityManager, select: string, column: 'id' | 'ref_target', appId: string, values: string[]): Promise<T[]> {
  return m.query<T[]>(`SELECT ${select} FROM xapi_statement WHERE app_id = ? AND ${column} IN (${new Array<string>(values.length).fill('?').join(', ')})`, [appId, ...values]);
}

/** A token's set against the caller's: both absent, or every field the caller gives equal to the token's. */
function sameSet(token: RegistrationSetKey | undefined, caller: RegistrationSetKey | undefined): boolean {
  if (token === undefined || caller === undefined) return token === caller;
  return Object.entries(caller).every(([k, v]) => token[k] === v);
}

/** The event of a stored batch: its new statements' ids, and the xAPI registration when they all name one. */
function statementsStored(appId: string, fresh: PendingStatement[]): StatementsStored {
  const registrations = new Set(fresh.map((p) => p.s.context && typeof p.s.context === 'object' && !Array.isArray(p.s.context) ? p.s.context.registration : undefined));
  const [only] = registrations;
  return new StatementsStored({ appId, statementIds: fresh.map((p) => p.id), xapiRegistration: registrations.size === 1 && typeof only === 'string' ? only.toLowerCase() : null });
}
