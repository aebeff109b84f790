import { BeforeApplicationShutdown, Logger, OnApplicationBootstrap } from '@nestjs/common';
import Bull from 'bull';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/app-config';
import type { RedisService } from '../redis/redis.service';
import { RegisteredQueue, sleep, withDeadline } from './job-executor';
import { EnqueueOptions, QueueDefinition } from './job-queue';
import { JobStore } from './job-store';
import type { JobEntity } from './job.entity';
import { StoredJobQueue } from './stored-job-queue';

/** What a Bull job carries: nothing but the id of the job row (which is also the Bull job id). */
interface BullJobData {
  jobId: string;
}

/** Thrown to Bull to have it run the job again after `delayMs` (a retry the database already scheduled). */
class RunAgainLater extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
    this.name = 'RunAgainLater';
  }
}

const BACKOFF_STRATEGY = 'lcds-db';
/** Bull never gives up on its own: the row decides when a job has failed for good (attempts live in the database). */
const BULL_ATTEMPTS = 1_000_000;
/** Bull delivers a delayed job when its timer fires; allow that much clock slack before the row says "not yet". */
const DUE_TOLERANCE_MS = 1_000;
const RECONCILE_BATCH = 500;

/**
 * Jobs on Redis through Bull, one Bull queue per queue name, under `${REDIS_PREFIX}:bull`. Job state lives
 * in the row; the Bull job only carries the row's id and is keyed by it, so adding it twice is harmless.
 *
 * - Retries: the row records the failed attempt and schedules the next (backoff doubling from backoffMs);
 *   the processor then throws to Bull with exactly that delay (custom backoff strategy). When the row says
 *   failed for good, the processor returns normally and Bull forgets the job.
 * - Crashed workers: Bull's stalled-job check (lockDuration = LCDS_JOB_LOCK_MS) moves the job of a dead
 *   worker back to wait for another worker; the row's lease (same length, renewed by the executor) lets that
 *   worker claim the next attempt. The attempt count in the row bounds crash loops.
 * - Lost Redis writes (crash between row insert and Redis add, Redis flushed): worker processes re-add queued
 *   rows and running rows with an expired lease at start and every few minutes.
 */
export class BullJobQueue extends StoredJobQueue implements OnApplicationBootstrap, BeforeApplicationShutdown {
  protected readonly logger = new Logger(BullJobQueue.name);
  private readonly bullQueues = new Map<string, Bull.Queue<BullJobData>>();
  private readonly workers = new Set<string>();
  private readonly deliveries = new Set<Promise<unknown>>();
  private client?: Redis;
  private subscriber?: Redis;
  private readonly blockingClients = new Map<string, Redis>();
  private processing = false;
  private reconcileTimer?: NodeJS.Timeout;
  private reconciling: Promise<void> | null = null;

  constructor(
    config: AppConfig,
    store: JobStore,
    private readonly redis: RedisService,
  ) {
    super(config, store);
  }

  private get lockMs(): number {
    return this.config.jobs.lockMs;
  }

  async enqueue<P extends object>(queue: QueueDefinition<P>, payload: P, options: EnqueueOptions = {}): Promise<string> {
    const { row } = await this.insert(queue, payload, options);
    if (row.status === 'queued') {
      try {
        await this.addToBull(row);
      } catch (err) {
        // The row is stored: a worker's reconciliation will put it on Redis once Redis is back.
        this.logger.error({ msg: 'job stored but not put on Redis', jobId: row.id, queue: row.queue, err: (err as Error).message });
      }
    }
    return row.id;
  }

  async announce(queue: QueueDefinition<object>, jobId: string): Promise<void> {
    try {
      // The delivery reads the row: a job not due yet is put back with its delay, a finished one dropped.
      await this.bull(queue.name).add({ jobId }, { jobId });
    } catch (err) {
      this.logger.error({ msg: 'job stored but not put on Redis', jobId, queue: queue.name, err: (err as Error).message });
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.runsJobs) return;
    this.processing = true;
    for (const name of this.queues.keys()) this.startWorker(name);
    this.logger.log({
      msg: 'job processing started',
      transport: 'bull',
      queues: [...this.queues.keys()],
      concurrency: this.config.jobs.concurrency,
      lockMs: this.lockMs,
    });
    await this.reconcile();
    const every = Math.max(60_000, this.lockMs * 4);
    this.reconcileTimer = setInterval(() => void this.reconcile(), every);
    this.reconcileTimer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.processing = false;
    clearInterval(this.reconcileTimer);
    await this.reconciling;
    const timeoutMs = this.config.http.shutdownTimeoutMs;
    // Stop fetching new jobs at once, then give the running ones the shutdown budget.
    await Promise.all([...this.workers].map((name) => this.bull(name).pause(true, true).catch(() => undefined)));
    if (this.deliveries.size > 0) this.logger.log({ msg: 'waiting for running jobs', count: this.deliveries.size });
    const finished =
      (await this.executor.drain(timeoutMs)) && (await withDeadline(Promise.allSettled([...this.deliveries]), Math.min(timeoutMs, 5_000)));
    await Promise.all(
      [...this.bullQueues.values()].map((queue) =>
        withDeadline(
          queue.close(!finished).catch((err: Error) => this.logger.warn({ msg: 'bull queue close failed', queue: queue.name, err: err.message })),
          5_000,
        ),
      ),
    );
    for (const client of this.blockingClients.values()) client.disconnect();
    this.blockingClients.clear();
    this.bullQueues.clear();
    this.workers.clear();
  }

  protected override onRegister(name: string): void {
    if (this.processing) this.startWorker(name);
  }

  /** The Bull queue of a name; connections: one shared command client, one shared subscriber, a blocking client per queue. */
  private bull(name: string): Bull.Queue<BullJobData> {
    let queue = this.bullQueues.get(name);
    if (queue) return queue;
    queue = new Bull<BullJobData>(name, {
      prefix: `${this.redis.prefix}:bull`,
      createClient: (type) => this.connection(type, name),
      settings: {
        lockDuration: this.lockMs,
        lockRenewTime: Math.max(100, Math.floor(this.lockMs / 2)),
        // A dead worker's job is back in wait between lockMs and lockMs + 2·stalledInterval after its last renewal.
        stalledInterval: Math.max(250, Math.floor(this.lockMs / 2)),
        // Stalls are not failures to Bull; the row counts every run (a claim is an attempt) and ends crash loops.
        maxStalledCount: BULL_ATTEMPTS,
        backoffStrategies: {
          [BACKOFF_STRATEGY]: (_attemptsMade: number, err: Error) => (err instanceof RunAgainLater ? Math.max(1, err.delayMs) : 1_000),
        },
      },
      defaultJobOptions: {
        attempts: BULL_ATTEMPTS,
        backoff: { type: BACKOFF_STRATEGY },
        removeOnComplete: true,
        removeOnFail: true,
        stackTraceLimit: 1,
      },
    });
    queue.on('error', (err: Error) => this.logger.warn({ msg: 'bull queue error', queue: name, err: err.message }));
    this.bullQueues.set(name, queue);
    return queue;
  }

  private connection(type: 'client' | 'subscriber' | 'bclient', queue: string): Redis {
    // Bull's subscriber and blocking connections must not retry commands or wait for a ready check.
    const streaming = { maxRetriesPerRequest: null, enableReadyCheck: false };
    if (type === 'client') {
      if (!this.client) {
        this.client = this.redis.connect('bull');
        // Every Bull queue adds its listeners to the shared connections.
        this.client.setMaxListeners(0);
      }
      return this.client;
    }
    if (type === 'subscriber') {
      if (!this.subscriber) {
        this.subscriber = this.redis.connect('bull-events', streaming);
        this.subscriber.setMaxListeners(0);
      }
      return this.subscriber;
    }
    this.blockingClients.get(queue)?.disconnect();
    const client = this.redis.connect(`bull-worker-${queue}`, streaming);
    this.blockingClients.set(queue, client);
    return client;
  }

  private async addToBull(row: JobEntity): Promise<void> {
    await this.bull(row.queue).add({ jobId: row.id }, { jobId: row.id, delay: Math.max(0, row.runAfter.getTime() - Date.now()) });
  }

  private startWorker(name: string): void {
    if (this.workers.has(name)) return;
    const registered = this.queues.get(name);
    if (!registered) return;
    this.workers.add(name);
    const queue = this.bull(name);
    queue.on('stalled', (job: Bull.Job<BullJobData>) =>
      this.logger.warn({ msg: 'job stalled (its worker stopped renewing the lock); handed to a worker again', jobId: job.data?.jobId ?? job.id, queue: name }),
    );
    queue
      .process(this.config.jobs.concurrency, (job: Bull.Job<BullJobData>) => this.track(this.deliver(registered, job)))
      .catch((err: Error) => this.logger.error({ msg: 'bull worker stopped', queue: name, err: err.message }));
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.deliveries.add(work);
    const forget = () => this.deliveries.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** One delivery of a Bull job: claim the row's next attempt and run it, or explain to Bull why not. */
  private async deliver(queue: RegisteredQueue, job: Bull.Job<BullJobData>): Promise<void> {
    const id = job.data?.jobId ?? String(job.id);
    const waitUntil = Date.now() + 2 * this.lockMs + 1_000;
    for (let round = 0; round < 20; round++) {
      const row = await this.store.find(id);
      if (!row) {
        this.logger.warn({ msg: 'job row not found; dropping the Redis job', jobId: id, queue: queue.definition.name });
        return;
      }
      if (row.queue !== queue.definition.name) {
        this.logger.warn({ msg: 'job row belongs to another queue; dropping the Redis job', jobId: id, queue: queue.definition.name, rowQueue: row.queue });
        return;
      }
      if (row.status === 'completed' || row.status === 'failed') return;
      const now = Date.now();
      if (row.status === 'queued' && row.runAfter.getTime() > now + DUE_TOLERANCE_MS) {
        throw new RunAgainLater('not due yet', row.runAfter.getTime() - now);
      }
      if (row.status === 'running' && row.lockedUntil && row.lockedUntil.getTime() >= now) {
        if (this.executor.isActive(id)) return;
        // Bull saw the previous worker's lock expire; the row's lease runs out about the same time.
        if (now >= waitUntil) {
          this.logger.warn({ msg: 'job is held by a live worker; dropping the duplicate delivery', jobId: id, lockedBy: row.lockedBy });
          return;
        }
        await sleep(Math.min(row.lockedUntil.getTime() - now + 50, waitUntil - now));
        continue;
      }
      const claimed = await this.store.claim(id, this.executor.workerId, this.lockMs, new Date(now + DUE_TOLERANCE_MS));
      if (!claimed) continue;
      const outcome = await this.executor.run(claimed, queue);
      if (outcome.kind === 'retry') throw new RunAgainLater(outcome.error, outcome.runAfter.getTime() - Date.now());
      return;
    }
    this.logger.warn({ msg: 'job could not be claimed; dropping the Redis job', jobId: id });
  }

  /** Puts rows that should be on Redis but are not back on it (lost adds, flushed Redis). */
  private reconcile(): Promise<void> {
    if (this.reconciling) return this.reconciling;
    this.reconciling = this.reconcileOnce()
      .catch((err: Error) => this.logger.error({ msg: 'job reconciliation failed', err: err.message }))
      .finally(() => {
        this.reconciling = null;
      });
    return this.reconciling;
  }

  private async reconcileOnce(): Promise<void> {
    let added = 0;
    for (const name of this.workers) {
      if (!this.processing) return;
      const rows = await this.store.findUnfinished([name], new Date(), RECONCILE_BATCH);
      const queue = this.bull(name);
      for (const row of rows) {
        if (!this.processing) return;
        const existing = await queue.getJob(row.id);
        if (existing) {
          const state = await existing.getState();
          if (state !== 'completed' && state !== 'failed') continue;
          await existing.remove().catch(() => undefined);
        }
        await this.addToBull(row);
        added++;
      }
    }
    if (added > 0) this.logger.log({ msg: 'jobs put back on Redis from the database', count: added });
  }
}
