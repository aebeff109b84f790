import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Brackets, IsNull, LessThan, LessThanOrEqual, Repository } from 'typeorm';
import { KeyRing, newSecret } from '../../../platform/crypto/keyring';
import { ConflictError, InvalidInputError, NotFoundError } from '../../../platform/http/domain-errors';
import { OutboundError, OutboundHttp } from '../../../platform/outbound/outbound-http';
import { XapiEndpointDto, XapiStatementPipePostDto, XapiStatementPipePutDto } from '../dto/xapi-statement-pipe.dto';
import { XapiStatementPipeEntity } from '../entities/xapi-statement-pipe.entity';
import { XapiCredentialsService } from '../xapi-credentials.service';

/** XapiEndpointSchema as answered. */
export interface XapiEndpointView {
  url: string;
  userName?: string;
  password?: string;
}

/** XapiStatementPipeSchema. */
export interface XapiStatementPipeView {
  id: string;
  lastForwardedStatementDate?: string;
  moreUrl?: string;
  attempts: number;
  visibleAfter: string;
  source: XapiEndpointView;
  target: XapiEndpointView;
}

/** A pipe's endpoint with its password opened; `url: null` is the application's own LRS. */
export interface PipeEndpoint {
  url: string | null;
  userName: string | null;
  password: string | null;
}

/** A run's hold on a pipe. */
export interface PipeLease {
  appId: string;
  id: string;
  generation: number;
  token: string;
  source: PipeEndpoint;
  target: PipeEndpoint;
  moreUrl: string | null;
  lastForwardedStatementDate: Date | null;
  attempts: number;
}

/** How long a run may hold a pipe before another worker may take it over (a run stops itself well before). */
export const PIPE_LEASE_MS = 120_000;
const MAX_PIPES_PER_APP = 1000;

/**
 * Statement pipes of API V2 (/xapi/statementPipes) and the bookkeeping of their runs. Runs take a lease on the
 * pipe with a conditional UPDATE, so one pipe is processed by one worker at a time; an edit is refused (409) while
 * a lease is held, and otherwise resets the position and bumps `generation`.
 */
@Injectable()
export class XapiStatementPipesService {
  constructor(
    @InjectRepository(XapiStatementPipeEntity) private readonly pipes: Repository<XapiStatementPipeEntity>,
    private readonly keys: KeyRing,
    private readonly outbound: OutboundHttp,
    private readonly credentials: XapiCredentialsService,
  ) {}

  async create(appId: string, body: XapiStatementPipePostDto): Promise<XapiStatementPipeEntity> {
    const source = body.source ? this.endpoint('source', body.source) : null;
    const target = this.endpoint('target', body.target);
    if ((await this.pipes.countBy({ appId })) >= MAX_PIPES_PER_APP) throw new InvalidInputError(`An application may have at most ${MAX_PIPES_PER_APP} statement pipes`);
    const now = new Date();
    const row: XapiStatementPipeEntity = {
      appId,
      id: newSecret(15),
      ...this.sourceColumns(source),
      ...this.targetColumns(target),
      generation: 1,
      lastForwardedStatementDate: null,
      moreUrl: null,
      attempts: 0,
      visibleAfter: now,
      lastError: null,
      processingUntil: null,
      processingToken: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.pipes.insert(row);
    return row;
  }

  /** Replaces the endpoints given and starts over from the source's first statement; 409 while a run holds the pipe. */
  async update(appId: string, id: string, body: XapiStatementPipePutDto): Promise<XapiStatementPipeEntity> {
    const current = await this.require(appId, id);
    const source = body.source ? this.sourceColumns(this.endpoint('source', body.source)) : {};
    const target = body.target ? this.targetColumns(this.endpoint('target', body.target)) : {};
    const now = new Date();
    const result = await this.pipes
      .createQueryBuilder()
      .update()
      .set({ ...source, ...target, generation: current.generation + 1, lastForwardedStatementDate: null, moreUrl: null, attempts: 0, visibleAfter: now, lastError: null, updatedAt: now })
      .where('app_id = :appId AND id = :id AND generation = :generation', { appId, id, generation: current.generation })
      .andWhere(new Brackets((w) => w.where('processing_until IS NULL').orWhere('processing_until < :now', { now })))
      .execute();
    if (!result.affected) {
      if (!(await this.pipes.existsBy({ appId, id }))) throw new NotFoundError('Statement pipe', id);
      throw new ConflictError(`Statement pipe '${id}' is being processed; try again when the run has finished`);
    }
    return this.require(appId, id);
  }

  async get(appId: string, id: string): Promise<XapiStatementPipeView> {
    return this.view(await this.require(appId, id));
  }

  async list(appId: string): Promise<XapiStatementPipeView[]> {
    const rows = await this.pipes.find({ where: { appId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return rows.map((r) => this.view(r));
  }

  /** A run still in progress notices at its next step (its writes name the lease) and stops. */
  async delete(appId: string, id: string): Promise<void> {
    const result = await this.pipes.delete({ appId, id });
    if (!result.affected) throw new NotFoundError('Statement pipe', id);
  }

  async purgeApplication(appId: string): Promise<void> {
    await this.pipes.delete({ appId });
  }

  /** Pipes whose time has come and that no run holds (for the periodic sweep). */
  async due(limit: number): Promise<Array<Pick<XapiStatementPipeEntity, 'appId' | 'id' | 'generation' | 'visibleAfter'>>> {
    const now = new Date();
    return this.pipes.find({
      where: [
        { visibleAfter: LessThanOrEqual(now), processingUntil: IsNull() },
        { visibleAfter: LessThanOrEqual(now), processingUntil: LessThan(now) },
      ],
      select: { appId: true, id: true, generation: true, visibleAfter: true },
      order: { visibleAfter: 'ASC' },
      take: limit,
    });
  }

  /** Takes the pipe for a run if it is this generation's, due and free; null otherwise. */
  async claim(appId: string, id: string, generation: number): Promise<PipeLease | null> {
    const now = new Date();
    const token = randomUUID();
    const result = await this.pipes
      .createQueryBuilder()
      .update()
      .set({ processingUntil: new Date(now.getTime() + PIPE_LEASE_MS), processingToken: token })
      .where('app_id = :appId AND id = :id AND generation = :generation AND visible_after <= :now', { appId, id, generation, now })
      .andWhere(new Brackets((w) => w.where('processing_until IS NULL').orWhere('processing_until < :now', { now })))
      .execute();
    if (!result.affected) return null;
    const row = await this.pipes.findOneBy({ appId, id, processingToken: token });
    if (!row) return null;
    return {
      appId,
      id,
      generation,
      token,
      source: { url: row.sourceUrl, userName: row.sourceUser, password: row.sourcePasswordSealed ? this.keys.open(row.sourcePasswordSealed) : null },
      target: { url: row.targetUrl, userName: row.targetUser, password: row.targetPasswordSealed ? this.keys.open(row.targetPasswordSealed) : null },
      moreUrl: row.moreUrl,
      lastForwardedStatementDate: row.lastForwardedStatementDate,
      attempts: row.attempts,
    };
  }

  /** Records the position after a page was forwarded and extends the lease; false when the lease was lost (pipe deleted). */
  async progress(lease: PipeLease, position: { moreUrl: string | null; lastForwardedStatementDate: Date | null }): Promise<boolean> {
    const now = Date.now();
    const result = await this.pipes.update(
      { appId: lease.appId, id: lease.id, processingToken: lease.token },
      { ...position, attempts: 0, lastError: null, processingUntil: new Date(now + PIPE_LEASE_MS) },
    );
    if (!result.affected) return false;
    lease.attempts = 0;
    return true;
  }

  /** Ends the run: the pipe is due again at `visibleAfter`; after a failure `attempts` counts it. */
  async release(lease: PipeLease, outcome: { visibleAfter: Date; failed?: string }): Promise<boolean> {
    const result = await this.pipes.update(
      { appId: lease.appId, id: lease.id, processingToken: lease.token },
      {
        visibleAfter: outcome.visibleAfter,
        processingUntil: null,
        processingToken: null,
        ...(outcome.failed !== undefined ? { attempts: lease.attempts + 1, lastError: outcome.failed.slice(0, 2000) } : { attempts: 0, lastError: null }),
      },
    );
    return (result.affected ?? 0) > 0;
  }

  /** The application's own LRS, as pipes without a source read it. */
  ownEndpoint(appId: string): string {
    return this.credentials.endpoint(appId);
  }

  private endpoint(which: 'source' | 'target', e: XapiEndpointDto): PipeEndpoint {
    try {
      this.outbound.checkUrl(e.url);
    } catch (err) {
      if (err instanceof OutboundError) throw new InvalidInputError(`${which}.url: ${err.message}`);
      throw err;
    }
    return { url: e.url, userName: e.userName ?? null, password: e.password ?? null };
  }

  private sourceColumns(e: PipeEndpoint | null): Pick<XapiStatementPipeEntity, 'sourceUrl' | 'sourceUser' | 'sourcePasswordSealed'> {
    return { sourceUrl: e?.url ?? null, sourceUser: e?.userName ?? null, sourcePasswordSealed: e?.password ? this.keys.seal(e.password) : null };
  }

  private targetColumns(e: PipeEndpoint): Pick<XapiStatementPipeEntity, 'targetUrl' | 'targetUser' | 'targetPasswordSealed'> {
    return { targetUrl: e.url!, targetUser: e.userName, targetPasswordSealed: e.password ? this.keys.seal(e.password) : null };
  }

  private async require(appId: string, id: string): Promise<XapiStatementPipeEntity> {
    const row = await this.pipes.findOneBy({ appId, id });
    if (!row) throw new NotFoundError('Statement pipe', id);
    return row;
  }

  private endpointView(url: string, user: string | null, sealed: string | null): XapiEndpointView {
    return { url, ...(user !== null ? { userName: user } : {}), ...(sealed !== null ? { password: this.keys.open(sealed) } : {}) };
  }

  private view(row: XapiStatementPipeEntity): XapiStatementPipeView {
    return {
      id: row.id,
      ...(row.lastForwardedStatementDate ? { lastForwardedStatementDate: row.lastForwardedStatementDate.toISOString() } : {}),
      ...(row.moreUrl ? { moreUrl: row.moreUrl } : {}),
      attempts: row.attempts,
      visibleAfter: row.visibleAfter.toISOString(),
      source: row.sourceUrl === null ? { url: `${this.ownEndpoint(row.appId)}statements` } : this.endpointView(row.sourceUrl, row.sourceUser, row.sourcePasswordSealed),
      target: this.endpointView(row.targetUrl, row.targetUser, row.targetPasswordSealed),
    };
  }
}
