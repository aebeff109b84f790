import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Brackets, DataSource, EntityManager, In, Repository } from 'typeorm';
import { ConflictError, InvalidInputError, NotFoundError } from '../../platform/http/domain-errors';
import { PageTokens } from '../../platform/http/page-tokens';
import { XapiStatementEntity, XapiStatementLinkEntity } from './entities/xapi-statement.entity';
import { agentKey, contentHash, idsFormat, indexKey, Json, objectActivityId, objectAgentKey, relatedKeys } from './lrs/statement-keys';
import { isUuid, StatementRuleError, validateStatement, VOIDED_VERB } from './lrs/statement-rules';

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
}

export interface StatementPage {
  statements: Json[];
  /** A signed token for the next page (pass it back as `more`), absent on the last page. */
  more?: string;
}

export interface StoreOptions {
  /** The xAPI credential storing them, for credentials that may read only their own statements. */
  credentialId?: string | null;
  /** The version the client speaks (X-Experience-API-Version); statements without one get `1.0.0` (`2.0.0` for 2.0 clients). */
  version?: string;
}

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
  constructor(
    @InjectRepository(XapiStatementEntity) private readonly statements: Repository<XapiStatementEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tokens: PageTokens,
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
    return this.dataSource.transaction(async (m) => {
      const ids = checked.filter((s) => s.id !== undefined).map((s) => s.id as string);
      const existing = ids.length > 0 ? await m.find(XapiStatementEntity, { where: { appId, id: In(ids) }, select: { id: true, contentHash: true } }) : [];
      const existingHash = new Map(existing.map((e) => [e.id, e.contentHash]));
      const out: string[] = [];
      const fresh: Array<Record<string, Json>> = [];
      const hashes = new Map<string, string>();
      for (const s of checked) {
        s.id ??= randomUUID();
        out.push(s.id);
        const hash = contentHash(s);
        hashes.set(s.id, hash);
        const known = existingHash.get(s.id);
        if (known !== undefined) {
          if (known !== hash) throw new ConflictError(`A different statement with id ${s.id} is already stored; statements are immutable`);
          continue;
        }
        fresh.push(s);
      }
      await this.checkVoiding(m, appId, fresh);
      if (fresh.length > 0) await this.insertAll(m, appId, fresh, hashes, authority, new Date(), defaultVersion, options.credentialId ?? null);
      return out;
    });
  }

  /** A statement by id; voided ones only with `voided: true`, non-voided ones only without it. */
  async getStatement(appId: string, id: string, opts: { voided: boolean; format?: StatementFilters['format']; storedBy?: string }): Promise<StatementLookup> {
    const what = opts.voided ? 'Voided statement' : 'Statement';
    if (!isUuid(id)) throw new InvalidInputError(`${opts.voided ? 'voidedStatementId' : 'statementId'} must be a UUID`);
    const row = await this.statements.findOneBy({ appId, id: id.toLowerCase() });
    if (!row || row.voided !== opts.voided || (opts.storedBy !== undefined && row.credentialId !== opts.storedBy)) throw new NotFoundError(what, id);
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
    } else {
      state = this.stateOf(filters);
    }
    const qb = this.statements.createQueryBuilder('s').where('s.appId = :appId', { appId }).andWhere('s.voided = :no', { no: false });
    if (state.verb !== undefined) qb.andWhere('s.verbId = :verb', { verb: indexKey(state.verb) });
    if (state.registration !== undefined) qb.andWhere('s.registration = :registration', { registration: state.registration });
    if (state.storedBy !== undefined) qb.andWhere('s.credentialId = :storedBy', { storedBy: state.storedBy });
    if (state.agent !== undefined) {
      // An agent that is the object of no statement (most learners) is matched on the actor index alone.
      const isObject = state.relatedAgents !== true && (await this.dataSource.getRepository(XapiStatementLinkEntity).existsBy({ appId, kind: 'objagent', value: state.agent }));
      if (state.relatedAgents !== true && !isObject) qb.andWhere('s.agent = :agentKey', { agentKey: state.agent });
      else this.linkFilter(qb, appId, 'agent', state.agent, state.relatedAgents === true, 's.agent');
    }
    if (state.activity !== undefined) this.linkFilter(qb, appId, 'activity', indexKey(state.activity), state.relatedActivities === true, 's.activityId');
    if (state.since !== undefined) qb.andWhere('s.stored > :since', { since: new Date(state.since) });
    if (state.until !== undefined) qb.andWhere('s.stored <= :until', { until: new Date(state.until) });
    if (after !== null) qb.andWhere(`s.seq ${state.ascending ? '>' : '<'} :after`, { after });
    const rows = await qb
      .orderBy('s.seq', state.ascending ? 'ASC' : 'DESC')
      .limit(state.limit + 1)
      .getMany();
    let token: string | undefined;
    if (rows.length > state.limit) {
      rows.length = state.limit;
      token = this.tokens.encode('lrs-statements', appId, { filters: state, after: [Number(rows[rows.length - 1].seq)] });
    }
    return { statements: rows.map((r) => this.render(r, state.format)), more: token };
  }

  /** When the LRS last stored anything (for X-Experience-API-Consistent-Through): now, as every write is committed before it answers. */
  consistentThrough(): Date {
    return new Date();
  }

  /** Everything of an application (application deletion). */
  async purgeApplication(appId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await m.delete(XapiStatementLinkEntity, { appId });
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
      limit,
      ascending: f.ascending === true,
      format: f.format ?? 'exact',
    };
  }

  /**
   * agent: the actor, or the object when it is an agent (link kind 'objagent'); activity: the object. With related_*,
   * any agent or activity the statement mentions (link kinds 'agent' / 'activity').
   */
  private linkFilter(qb: ReturnType<Repository<XapiStatementEntity>['createQueryBuilder']>, appId: string, kind: 'agent' | 'activity', value: string, related: boolean, column: string): void {
    const p = `${kind}Key`;
    if (related) {
      // Every agent / activity a statement mentions has a link row (its actor and object included): a join on the
      // link key (app, kind, value, seq) reads the matches newest first, without collecting and sorting them all.
      const alias = `${kind}Link`;
      qb.innerJoin(XapiStatementLinkEntity, alias, `${alias}.appId = s.appId AND ${alias}.seq = s.seq AND ${alias}.kind = :${p}Kind AND ${alias}.value = :${p}`, {
        [`${p}Kind`]: kind,
        [p]: value,
      });
      return;
    }
    if (kind === 'activity') {
      qb.andWhere(`${column} = :${p}`, { [p]: value });
      return;
    }
    const linkKind = 'objagent';
    qb.andWhere(
      new Brackets((w) => {
        w.where(`${column} = :${p}`, { [p]: value }).orWhere(
          `s.seq IN (SELECT l.seq FROM xapi_statement_link l WHERE l.app_id = :${p}App AND l.kind = :${p}Kind AND l.value = :${p})`,
          { [`${p}App`]: appId, [`${p}Kind`]: linkKind },
        );
      }),
    );
  }

  /** Voiding: the target must not be a voiding statement; it is marked voided (now, or when it arrives later). */
  private async checkVoiding(m: EntityManager, appId: string, batch: Array<Record<string, Json>>): Promise<void> {
    const targets = batch.filter((s) => s.verb.id === VOIDED_VERB).map((s) => (s.object.id as string).toLowerCase());
    if (targets.length === 0) return;
    const inBatch = new Map(batch.map((s) => [s.id as string, s]));
    const stored = await m.find(XapiStatementEntity, { where: { appId, id: In(targets) }, select: { id: true, verbId: true } });
    for (const target of targets) {
      const isVoiding = inBatch.get(target)?.verb.id === VOIDED_VERB || stored.some((r) => r.id === target && r.verbId === VOIDED_VERB);
      if (isVoiding) throw new StatementRuleError(`statement ${target}`, 'is itself a voiding statement and cannot be voided');
    }
  }

  /**
   * Inserts a batch in a constant number of statements whatever its size: which of them were voided before they
   * arrived, one multi-row INSERT of the statements, their seqs, one multi-row INSERT of their links, one UPDATE for
   * the statements they void.
   */
  private async insertAll(m: EntityManager, appId: string, batch: Array<Record<string, Json>>, hashes: Map<string, string>, authority: Json, stored: Date, defaultVersion: string, credentialId: string | null): Promise<void> {
    const storedIso = stored.toISOString();
    const ids = batch.map((s) => s.id as string);
    // A statement that arrives after the statement voiding it is voided from the start.
    const voidedEarlier = new Set(
      (await m.find(XapiStatementEntity, { where: { appId, voidingTarget: In(ids) }, select: { voidingTarget: true } })).map((r) => r.voidingTarget),
    );
    const rows = batch.map((s) => {
      const hash = hashes.get(s.id as string)!;
      s.timestamp ??= storedIso;
      s.stored = storedIso;
      s.authority = authority;
      s.version ??= defaultVersion;
      const voidingTarget = s.verb.id === VOIDED_VERB ? (s.object.id as string).toLowerCase() : null;
      const activityId = objectActivityId(s);
      return {
        appId,
        id: s.id as string,
        statement: JSON.stringify(s),
        contentHash: hash,
        verbId: indexKey(s.verb.id as string),
        agent: agentKey(s.actor),
        activityId: activityId === null ? null : indexKey(activityId),
        registration: typeof s.context?.registration === 'string' ? (s.context.registration as string).toLowerCase() : null,
        voided: voidingTarget === null && voidedEarlier.has(s.id as string),
        voidingTarget,
        credentialId,
        timestamp: new Date(s.timestamp as string),
        stored,
      };
    });
    // SQLite allows 32,766 variables a statement (13 a statement row, 4 a link row).
    for (let i = 0; i < rows.length; i += 1000) await m.createQueryBuilder().insert().into(XapiStatementEntity).values(rows.slice(i, i + 1000)).updateEntity(false).execute();
    const seqs = new Map((await m.find(XapiStatementEntity, { where: { appId, id: In(ids) }, select: { id: true, seq: true } })).map((r) => [r.id, Number(r.seq)]));
    const links: Array<Pick<XapiStatementLinkEntity, 'appId' | 'kind' | 'value' | 'seq'>> = [];
    for (const s of batch) {
      const seq = seqs.get(s.id as string)!;
      const { agents, activities } = relatedKeys(s);
      for (const value of agents) links.push({ appId, kind: 'agent', value, seq });
      for (const value of activities) links.push({ appId, kind: 'activity', value, seq });
      const objectAgent = objectAgentKey(s);
      if (objectAgent !== null) links.push({ appId, kind: 'objagent', value: objectAgent, seq });
    }
    for (let i = 0; i < links.length; i += 5000) await m.createQueryBuilder().insert().into(XapiStatementLinkEntity).values(links.slice(i, i + 5000)).updateEntity(false).execute();
    const targets = rows.filter((r) => r.voidingTarget !== null).map((r) => r.voidingTarget as string);
    if (targets.length > 0) await m.update(XapiStatementEntity, { appId, id: In(targets) }, { voided: true });
  }

  private render(row: XapiStatementEntity, format: 'ids' | 'exact' | 'canonical'): Json {
    const statement: Json = JSON.parse(row.statement);
    return format === 'ids' ? idsFormat(statement) : statement;
  }
}
