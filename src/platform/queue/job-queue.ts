import type { ClassConstructor } from 'class-transformer';
import type { EntityManager } from 'typeorm';
import type { JobEntity } from './job.entity';

/** A named queue and the type of its payload. Queue names are constants next to their processor. */
export interface QueueDefinition<P extends object> {
  readonly name: string;
  /** Validates payloads on enqueue and again before processing (class-validator DTO). */
  readonly payloadClass?: ClassConstructor<P>;
  /**
   * 'run': validate only before processing, not on enqueue. For payloads the service builds itself (typed code) at
   * request rates, where class-validator would cost more than storing the job (runtime commits' launch statements).
   */
  readonly validate?: 'enqueue-and-run' | 'run';
  /**
   * A hand-written check used instead of payloadClass (its problems, none when valid), for payloads processed at
   * runtime-commit rates, where class-transformer and class-validator over a batch of items cost ~5 % of a commit.
   */
  readonly check?: (payload: Record<string, unknown>) => string[];
  readonly maxAttempts?: number;
  /** First retry delay; doubles on each attempt. */
  readonly backoffMs?: number;
  /** Upper bound for one run; the job fails (and is retried) when it takes longer. */
  readonly timeoutMs?: number;
}

export function defineQueue<P extends object>(definition: QueueDefinition<P>): QueueDefinition<P> {
  return definition;
}

export interface JobContext {
  jobId: string;
  /** 1 on the first run, 2 on the first retry, … */
  attempt: number;
  /** Stores progress (0–100) on the job row, readable by status endpoints. */
  reportProgress(percent: number): Promise<void>;
  /**
   * Aborted when this run should stop: its timeout passed, another worker took the job over (lease lost),
   * or the process is shutting down. Long handlers should pass it on or check it between steps.
   */
  readonly signal?: AbortSignal;
}

/** Thrown by a handler when retrying cannot help: the job fails at once, whatever attempts remain. */
export class UnrecoverableJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnrecoverableJobError';
  }
}

/** The payload does not satisfy the queue's payloadClass: thrown by enqueue; fails the job without retry when processing. */
export class JobPayloadError extends UnrecoverableJobError {
  constructor(
    readonly queue: string,
    readonly problems: string[],
  ) {
    super(`Invalid payload for job queue "${queue}": ${problems.join('; ')}`);
    this.name = 'JobPayloadError';
  }
}

/** A handler must be idempotent: after a crash it may run again for the same job. */
export type JobHandler<P extends object> = (payload: P, context: JobContext) => Promise<unknown>;

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface JobRecord {
  id: string;
  queue: string;
  appId: string | null;
  status: JobStatus;
  attempts: number;
  maxAttempts: number;
  progress: number;
  result: unknown;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

export interface EnqueueOptions {
  appId?: string;
  /** Start no sooner than this many ms from now. */
  delayMs?: number;
  /** Reuse an id (e.g. an import job id handed to the client before the job is queued). */
  jobId?: string;
}

/**
 * The job platform. Job state lives in the database (table `job`); the queue transport only carries ids.
 * Two adapters: Bull on Redis when REDIS_URL is set, in-process otherwise.
 */
export abstract class JobQueue {
  abstract enqueue<P extends object>(queue: QueueDefinition<P>, payload: P, options?: EnqueueOptions): Promise<string>;
  abstract register<P extends object>(queue: QueueDefinition<P>, handler: JobHandler<P>): void;
  abstract get(jobId: string): Promise<JobRecord | null>;
  /**
   * Stores a job with the caller's EntityManager, inside its transaction (an outbox row): the job exists if and only
   * if the transaction commits. Call `announce` once it committed; without it the job still runs, found later by the
   * workers' poll (in-process) or reconciliation (Bull).
   */
  abstract enqueueIn<P extends object>(manager: EntityManager, queue: QueueDefinition<P>, payload: P, options?: EnqueueOptions): Promise<string>;
  /**
   * The row of a new job for a writer that inserts it with its own SQL in its own transaction (the runtime commit),
   * then calls `announce`. The payload is checked when the job runs.
   */
  abstract outboxRow<P extends object>(queue: QueueDefinition<P>, payload: P, options?: EnqueueOptions): JobEntity;
  /** Hands a job stored by `enqueueIn` to the transport, once its transaction committed. */
  abstract announce(queue: QueueDefinition<object>, jobId: string): Promise<void>;
}
