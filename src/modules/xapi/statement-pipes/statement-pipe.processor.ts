import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { IsInt, IsNotEmpty, IsString, Min } from 'class-validator';
import { createHash } from 'node:crypto';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/app-config';
import { defineQueue, JobContext, JobQueue } from '../../../platform/queue/job-queue';
import { retryDelayMs } from '../../../platform/queue/job-store';
import { PipeLease, XapiStatementPipesService } from './xapi-statement-pipes.service';
import { StatementPipeEndpoints } from './statement-pipe-endpoints';

/** One run of a pipe, due at `at` (ms since the epoch); runs of an earlier `generation` (before an edit) do nothing. */
export class StatementPipeRunPayload {
  @IsString() @IsNotEmpty() appId!: string;
  @IsString() @IsNotEmpty() pipeId!: string;
  @IsInt() @Min(1) generation!: number;
  @IsInt() @Min(0) at!: number;
}

export const STATEMENT_PIPE_QUEUE = defineQueue<StatementPipeRunPayload>({
  name: 'xapi-statement-pipe',
  payloadClass: StatementPipeRunPayload,
  // The pipe keeps its own retry state (attempts, visibleAfter); a crashed run is picked up by the sweep.
  maxAttempts: 1,
  timeoutMs: 90_000,
});

/** A run stops after this long and continues in a new job, so one busy pipe does not hold a worker slot for ever. */
const RUN_BUDGET_MS = 20_000;
const SWEEP_BATCH = 200;

/**
 * Runs statement pipes: each run (a job of queue `xapi-statement-pipe`) takes the pipe's lease, reads the source
 * from its position (`moreUrl`, else `since=lastForwardedStatementDate`, ascending), posts each page to the target,
 * and records the position after every page. A caught-up pipe is due again after LCDS_XAPI_PIPE_INTERVAL_MS; a failed
 * run counts `attempts` and makes the pipe due after a doubling backoff. Every run schedules the next one; a sweep on
 * worker processes enqueues pipes that are due without a job (after a crash, or scheduled by another node).
 */
@Injectable()
export class StatementPipeProcessor implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(StatementPipeProcessor.name);
  private sweepTimer?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly pipes: XapiStatementPipesService,
    private readonly endpoints: StatementPipeEndpoints,
    private readonly jobs: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register(STATEMENT_PIPE_QUEUE, (payload, ctx) => this.run(payload, ctx));
  }

  onApplicationBootstrap(): void {
    if (this.config.role === 'api') return;
    const every = Math.max(1_000, Math.min(60_000, this.config.xapiPipes.intervalMs));
    this.sweepTimer = setInterval(() => void this.sweep(), every);
    this.sweepTimer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweepTimer);
  }

  /** Queues a run of the pipe at `at` (now by default); the job id is derived from it, so asking twice is harmless. */
  async schedule(appId: string, pipeId: string, generation: number, at = new Date()): Promise<void> {
    const time = at.getTime();
    const hash = createHash('sha256').update(`${appId}\n${pipeId}\n${generation}\n${time}`).digest('hex');
    const jobId = `${hash.slice(0, 8)}-${hash.slice(8, 12)}-5${hash.slice(13, 16)}-8${hash.slice(17, 20)}-${hash.slice(20, 32)}`;
    await this.jobs.enqueue(STATEMENT_PIPE_QUEUE, { appId, pipeId, generation, at: time }, { appId, jobId, delayMs: time - Date.now() });
  }

  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      for (const p of await this.pipes.due(SWEEP_BATCH)) await this.schedule(p.appId, p.id, p.generation, p.visibleAfter);
    } catch (err) {
      this.logger.error({ msg: 'statement pipe sweep failed', err: err instanceof Error ? err.message : String(err) });
    } finally {
      this.sweeping = false;
    }
  }

  private async run(payload: StatementPipeRunPayload, ctx: JobContext): Promise<unknown> {
    const lease = await this.pipes.claim(payload.appId, payload.pipeId, payload.generation);
    if (!lease) return { skipped: 'not due, edited, deleted or held by another run' };
    const deadline = Date.now() + RUN_BUDGET_MS;
    // Ids forwarded in this run: a source that repeats a statement across pages does not get it sent twice.
    const forwarded = new Set<string>();
    let url = lease.moreUrl;
    let last = lease.lastForwardedStatementDate;
    let resumed = url !== null;
    try {
      for (;;) {
        let page: { statements: unknown[]; more: string | null };
        try {
          page = await this.endpoints.read(lease, url, last);
        } catch (err) {
          // A `more` URL kept from an earlier run may have expired at the source: fall back to `since`.
          if (!resumed) throw err;
          page = await this.endpoints.read(lease, null, last);
        }
        resumed = false;
        const list = page.statements as Array<{ id?: unknown; stored?: unknown } | null>;
        const fresh = list.filter((s): s is { id: string } => typeof s?.id === 'string' && !forwarded.has(s.id));
        if (fresh.length > 0) await this.endpoints.write(lease, fresh);
        for (const s of fresh) forwarded.add(s.id);
        for (const s of list) {
          const stored = typeof s?.stored === 'string' ? new Date(s.stored) : null;
          if (stored && !Number.isNaN(stored.getTime()) && (last === null || stored > last)) last = stored;
        }
        url = page.more;
        if (!(await this.pipes.progress(lease, { moreUrl: url, lastForwardedStatementDate: last }))) return { forwarded: forwarded.size, stopped: 'pipe deleted' };
        if (url === null) return { forwarded: forwarded.size, ...(await this.finish(lease, payload, new Date(Date.now() + this.config.xapiPipes.intervalMs))) };
        if (Date.now() > deadline || ctx.signal?.aborted) return { forwarded: forwarded.size, ...(await this.finish(lease, payload, new Date())) };
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const visibleAfter = new Date(Date.now() + retryDelayMs(this.config.xapiPipes.backoffMs, lease.attempts + 1));
      this.logger.warn({ msg: 'statement pipe run failed', appId: lease.appId, pipeId: lease.id, attempts: lease.attempts + 1, visibleAfter, err: message });
      return { forwarded: forwarded.size, failed: message, ...(await this.finish(lease, payload, visibleAfter, message)) };
    }
  }

  private async finish(lease: PipeLease, payload: StatementPipeRunPayload, visibleAfter: Date, failed?: string): Promise<{ next?: string }> {
    // Never the id of the job running now.
    const at = new Date(Math.max(visibleAfter.getTime(), payload.at + 1));
    if (!(await this.pipes.release(lease, { visibleAfter: at, ...(failed !== undefined ? { failed } : {}) }))) return {};
    await this.schedule(lease.appId, lease.id, lease.generation, at);
    return { next: at.toISOString() };
  }
}
