import { jobDuration, jobRuns } from '../metrics/metrics';
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AppConfig } from '../../config/app-config';
import { parseStoredPayload } from './job-payload';
import { JobContext, JobHandler, QueueDefinition, UnrecoverableJobError } from './job-queue';
import { DEFAULT_BACKOFF_MS, JobLease, JobStore } from './job-store';
import type { JobEntity } from './job.entity';

export interface RegisteredQueue {
  definition: QueueDefinition<object>;
  handler: JobHandler<object>;
}

export type RunOutcome =
  | { kind: 'completed' }
  | { kind: 'retry'; runAfter: Date; error: string }
  | { kind: 'failed'; error: string }
  /** Another worker took the job over (our lease ran out); its outcome is theirs to record. */
  | { kind: 'lost' };

/** Names this process in `job.locked_by`. */
export function newWorkerId(): string {
  return `${hostname().slice(0, 80)}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

export const MAX_QUEUE_NAME_LENGTH = 64;

export function checkQueueName(name: string): void {
  if (!/^[\w.:-]+$/.test(name) || name.length > MAX_QUEUE_NAME_LENGTH) {
    throw new Error(`Job queue name "${name}" must be 1 to ${MAX_QUEUE_NAME_LENGTH} letters, digits, '_', '.', ':' or '-'`);
  }
}

class ShutdownError extends Error {
  constructor() {
    super('The worker is shutting down');
    this.name = 'ShutdownError';
  }
}

class LeaseLostError extends Error {
  constructor() {
    super('Another worker took the job over');
    this.name = 'LeaseLostError';
  }
}

class JobTimeoutError extends Error {
  constructor(ms: number) {
    super(`The job timed out after ${ms} ms`);
    this.name = 'JobTimeoutError';
  }
}

interface ActiveRun {
  controller: AbortController;
  done: Promise<unknown>;
}

/**
 * Runs one claimed attempt of a job, whatever the transport: validates the stored payload, keeps the lease
 * alive while the handler runs, enforces the queue's timeout, and records the outcome on the row.
 */
export class JobExecutor {
  private readonly logger = new Logger(JobExecutor.name);
  private readonly active = new Map<string, ActiveRun>();

  constructor(
    private readonly store: JobStore,
    private readonly config: AppConfig,
    readonly workerId: string,
  ) {}

  get activeCount(): number {
    return this.active.size;
  }

  isActive(jobId: string): boolean {
    return this.active.has(jobId);
  }

  run(row: JobEntity, queue: RegisteredQueue): Promise<RunOutcome> {
    const controller = new AbortController();
    const timer = jobDuration.startTimer({ queue: row.queue });
    const done = this.execute(row, queue, controller).then((outcome) => {
      jobRuns.inc({ queue: row.queue, outcome: outcome.kind });
      timer({ outcome: outcome.kind });
      return outcome;
    }).finally(() => {
      if (this.active.get(row.id)?.controller === controller) this.active.delete(row.id);
    });
    this.active.set(row.id, { controller, done });
    return done;
  }

  /**
   * Waits up to timeoutMs for running attempts to finish, then aborts the rest (their leases simply run
   * out, so another worker or the next start takes them over). Returns true if everything finished.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    if (this.active.size === 0) return true;
    const all = () => Promise.allSettled([...this.active.values()].map((r) => r.done));
    if (await withDeadline(all(), timeoutMs)) return true;
    const left = [...this.active.keys()];
    this.logger.warn({ msg: 'jobs still running at shutdown; they will be taken over once their lease runs out', jobIds: left });
    for (const run of this.active.values()) run.controller.abort(new ShutdownError());
    await withDeadline(all(), 500);
    return false;
  }

  private async execute(row: JobEntity, queue: RegisteredQueue, controller: AbortController): Promise<RunOutcome> {
    const { definition, handler } = queue;
    const lease: JobLease = { id: row.id, workerId: this.workerId, attempt: row.attempts };
    const lockMs = this.config.jobs.lockMs;
    const started = Date.now();
    const log = { jobId: row.id, queue: row.queue, attempt: row.attempts };
    let leaseLost = false;

    const heartbeat = setInterval(
      () => {
        this.store
          .extendLock(lease, lockMs)
          .then((ours) => {
            if (!ours && !leaseLost) {
              leaseLost = true;
              this.logger.warn({ msg: 'job lease lost', ...log });
              controller.abort(new LeaseLostError());
            }
          })
          .catch((err: Error) => this.logger.warn({ msg: 'job lease could not be extended', ...log, err: err.message }));
      },
      Math.max(100, Math.floor(lockMs / 3)),
    );
    heartbeat.unref();

    const context: JobContext = {
      jobId: row.id,
      attempt: row.attempts,
      signal: controller.signal,
      reportProgress: async (percent: number) => {
        if (controller.signal.aborted) return;
        await this.store.progress(lease, percent, lockMs);
      },
    };

    if (row.attempts > 1) this.logger.log({ msg: 'job attempt started', ...log, maxAttempts: row.maxAttempts });
    else this.logger.debug({ msg: 'job started', ...log });
    try {
      const payload = await parseStoredPayload(definition, row.payload);
      const result = await withTimeout(
        Promise.resolve().then(() => handler(payload, context)),
        definition.timeoutMs,
        controller,
      );
      if (await this.store.complete(lease, result)) {
        this.logger.log({ msg: 'job completed', ...log, ms: Date.now() - started });
        return { kind: 'completed' };
      }
      this.logger.warn({ msg: 'job finished after another worker took it over; its result is dropped', ...log, ms: Date.now() - started });
      return { kind: 'lost' };
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      const message = error.message || error.name;
      const outcome = await this.store.fail(lease, row.maxAttempts, message, {
        backoffMs: definition.backoffMs ?? DEFAULT_BACKOFF_MS,
        permanent: error instanceof UnrecoverableJobError,
      });
      const ms = Date.now() - started;
      if (outcome.kind === 'retry') {
        this.logger.warn({ msg: 'job failed; will retry', ...log, ms, err: message, retryAt: outcome.runAfter.toISOString() });
        return { kind: 'retry', runAfter: outcome.runAfter, error: message };
      }
      if (outcome.kind === 'failed') {
        this.logger.error({ msg: 'job failed', ...log, ms, err: message, stack: error.stack });
        return { kind: 'failed', error: message };
      }
      this.logger.warn({ msg: 'job failed after another worker took it over', ...log, ms, err: message });
      return { kind: 'lost' };
    } finally {
      clearInterval(heartbeat);
    }
  }
}

/** Resolves or rejects with the handler, or rejects when timeoutMs passes first (and aborts the signal). */
function withTimeout<T>(work: Promise<T>, timeoutMs: number | undefined, controller: AbortController): Promise<T> {
  if (!timeoutMs || timeoutMs <= 0) return work;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = new JobTimeoutError(timeoutMs);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** True if `work` settled within ms. */
export async function withDeadline(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([work.then(() => true as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
