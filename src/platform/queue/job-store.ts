import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, EntityManager, In, Repository, UpdateResult } from 'typeorm';
import type { JobRecord } from './job-queue';
import { JobEntity } from './job.entity';

/** Which attempt of which job a worker holds; every write of a running job is conditional on it. */
export interface JobLease {
  id: string;
  workerId: string;
  attempt: number;
}

export interface NewJob {
  id: string;
  queue: string;
  appId: string | null;
  payload: string;
  maxAttempts: number;
  runAfter: Date;
}

export type FailOutcome = { kind: 'retry'; runAfter: Date } | { kind: 'failed' } | { kind: 'lost' };

export const DEFAULT_BACKOFF_MS = 5_000;
/** Retry delays double from the queue's backoffMs, up to this. */
export const MAX_BACKOFF_MS = 60 * 60 * 1000;
export const FINISHED_JOB_RETENTION_MS = 7 * 24 * 3600 * 1000;

/**
 * Every database operation on job rows. The row is the truth about a job; claims and the writes of a
 * running attempt are conditional UPDATEs whose affected-row count decides who won, so two workers never
 * both run the same attempt and a worker that lost its lease cannot overwrite the outcome of its successor.
 */
@Injectable()
export class JobStore {
  constructor(@InjectRepository(JobEntity) private readonly repo: Repository<JobEntity>) {}

  /**
   * Inserts a queued job; if a row with this id exists already (an id reused on purpose), leaves it and returns it.
   * With a manager, the row is written in that manager's transaction.
   */
  async create(job: NewJob, manager?: EntityManager): Promise<{ row: JobEntity; created: boolean }> {
    const repo = manager ? manager.getRepository(JobEntity) : this.repo;
    const row = queuedJobRow(job);
    try {
      await repo.insert(row);
    } catch (err) {
      // A duplicate key, whatever the driver calls it: the existing row is the job.
      const existing = await repo.findOneBy({ id: job.id });
      if (existing) return { row: existing, created: false };
      throw err;
    }
    // The row is what was inserted (no generated columns): no read-back, one round trip less per job.
    return { row, created: true };
  }

  find(id: string): Promise<JobEntity | null> {
    return this.repo.findOneBy({ id });
  }

  async get(id: string): Promise<JobRecord | null> {
    const row = await this.find(id);
    return row ? toRecord(row) : null;
  }

  /** Jobs a worker may take now: queued and due, or running on a worker whose lease ran out. */
  findDue(queues: string[], now: Date, limit: number): Promise<JobEntity[]> {
    if (queues.length === 0 || limit <= 0) return Promise.resolve([]);
    return this.repo
      .createQueryBuilder('job')
      .where({ queue: In(queues) })
      .andWhere(
        new Brackets((qb) =>
          qb
            .where('(job.status = :queued AND job.run_after <= :now)', { queued: 'queued', now })
            .orWhere('(job.status = :running AND job.locked_until < :now)', { running: 'running' }),
        ),
      )
      .orderBy('job.run_after', 'ASC')
      .addOrderBy('job.id', 'ASC')
      .limit(limit)
      .getMany();
  }

  /** Jobs that should exist in a transport: every queued job (due or not) and running jobs whose lease ran out. */
  findUnfinished(queues: string[], now: Date, limit: number): Promise<JobEntity[]> {
    if (queues.length === 0 || limit <= 0) return Promise.resolve([]);
    return this.repo
      .createQueryBuilder('job')
      .where({ queue: In(queues) })
      .andWhere(
        new Brackets((qb) =>
          qb
            .where('job.status = :queued', { queued: 'queued' })
            .orWhere('(job.status = :running AND job.locked_until < :now)', { running: 'running', now }),
        ),
      )
      .orderBy('job.run_after', 'ASC')
      .addOrderBy('job.id', 'ASC')
      .limit(limit)
      .getMany();
  }

  /**
   * Starts the next attempt: attempts+1, status running, lease to `workerId` until now+lockMs. Succeeds only
   * for a queued job due by `dueBy`, or a running one whose lease ran out, with attempts left. A running job
   * whose lease ran out on its last attempt is marked failed instead. Returns the claimed row, or null.
   */
  async claim(id: string, workerId: string, lockMs: number, dueBy: Date = new Date()): Promise<JobEntity | null> {
    const now = new Date();
    const claimed = await this.repo
      .createQueryBuilder()
      .update(JobEntity)
      .set({
        status: 'running',
        attempts: () => 'attempts + 1',
        lockedBy: workerId,
        lockedUntil: new Date(now.getTime() + lockMs),
        updatedAt: now,
      })
      .where('id = :id AND attempts < max_attempts', { id })
      .andWhere(
        new Brackets((qb) =>
          qb
            .where('(status = :queued AND run_after <= :dueBy)', { queued: 'queued', dueBy })
            .orWhere('(status = :running AND locked_until < :now)', { running: 'running', now }),
        ),
      )
      .execute();
    if (affected(claimed) === 1) {
      const row = await this.find(id);
      if (row && row.status === 'running' && row.lockedBy === workerId) return row;
      return null;
    }
    await this.abandonExhausted(id, now);
    return null;
  }

  /** A running job whose worker died on its last attempt: nobody will run it again. */
  async abandonExhausted(id: string, now: Date = new Date()): Promise<boolean> {
    const result = await this.repo
      .createQueryBuilder()
      .update(JobEntity)
      .set({
        status: 'failed',
        error: () => `COALESCE(error, 'The worker running the last attempt stopped before it finished')`,
        lockedBy: null,
        lockedUntil: null,
        updatedAt: now,
        finishedAt: now,
      })
      .where('id = :id AND status = :running AND locked_until < :now AND attempts >= max_attempts', { id, running: 'running', now })
      .execute();
    return affected(result) === 1;
  }

  /** Heartbeat of a running attempt. False when the lease is no longer ours. */
  async extendLock(lease: JobLease, lockMs: number): Promise<boolean> {
    const result = await this.leaseUpdate(lease, { lockedUntil: new Date(Date.now() + lockMs) });
    return affected(result) === 1;
  }

  async progress(lease: JobLease, percent: number, lockMs: number): Promise<boolean> {
    const now = new Date();
    const value = Math.max(0, Math.min(100, Math.round(Number.isFinite(percent) ? percent : 0)));
    const result = await this.leaseUpdate(lease, { progress: value, updatedAt: now, lockedUntil: new Date(now.getTime() + lockMs) });
    return affected(result) === 1;
  }

  async complete(lease: JobLease, result: unknown): Promise<boolean> {
    const now = new Date();
    const serialized = result === undefined ? null : JSON.stringify(result);
    const update = await this.leaseUpdate(lease, {
      status: 'completed',
      progress: 100,
      result: serialized ?? null,
      error: null,
      lockedBy: null,
      lockedUntil: null,
      updatedAt: now,
      finishedAt: now,
    });
    return affected(update) === 1;
  }

  /**
   * Records a failed attempt: queued again after backoffMs·2^(attempt−1) while attempts remain (and the
   * error is not permanent), else failed for good.
   */
  async fail(
    lease: JobLease,
    maxAttempts: number,
    message: string,
    options: { backoffMs?: number; permanent?: boolean } = {},
  ): Promise<FailOutcome> {
    const now = new Date();
    const error = message.length > 8000 ? `${message.slice(0, 8000)}…` : message;
    if (!options.permanent && lease.attempt < maxAttempts) {
      const runAfter = new Date(now.getTime() + retryDelayMs(options.backoffMs ?? DEFAULT_BACKOFF_MS, lease.attempt));
      const update = await this.leaseUpdate(lease, { status: 'queued', runAfter, error, lockedBy: null, lockedUntil: null, updatedAt: now });
      return affected(update) === 1 ? { kind: 'retry', runAfter } : { kind: 'lost' };
    }
    const update = await this.leaseUpdate(lease, {
      status: 'failed',
      error,
      lockedBy: null,
      lockedUntil: null,
      updatedAt: now,
      finishedAt: now,
    });
    return affected(update) === 1 ? { kind: 'failed' } : { kind: 'lost' };
  }

  /** Deletes completed and failed jobs that finished before `before` (7 days ago by default). */
  async purgeFinished(before: Date = new Date(Date.now() - FINISHED_JOB_RETENTION_MS)): Promise<number> {
    const result = await this.repo
      .createQueryBuilder()
      .delete()
      .from(JobEntity)
      .where('status IN (:...done) AND finished_at < :before', { done: ['completed', 'failed'], before })
      .execute();
    return result.affected ?? 0;
  }

  private leaseUpdate(lease: JobLease, values: Partial<JobEntity>): Promise<UpdateResult> {
    return this.repo
      .createQueryBuilder()
      .update(JobEntity)
      .set(values)
      .where('id = :id AND status = :running AND locked_by = :workerId AND attempts = :attempt', {
        id: lease.id,
        running: 'running',
        workerId: lease.workerId,
        attempt: lease.attempt,
      })
      .execute();
  }
}

/** The row of a new queued job, as inserted. */
export function queuedJobRow(job: NewJob, now: Date = new Date()): JobEntity {
  return Object.assign(new JobEntity(), {
    ...job,
    status: 'queued' as const,
    attempts: 0,
    progress: 0,
    lockedBy: null,
    lockedUntil: null,
    result: null,
    error: null,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
  });
}

/** The insert of a new job row for writers that run their own SQL (the runtime commit on MySQL), with `insertJobValues`. */
export const INSERT_JOB_SQL =
  'INSERT INTO job (id, queue, app_id, payload, status, attempts, max_attempts, progress, run_after, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

export function insertJobValues(row: JobEntity): unknown[] {
  return [row.id, row.queue, row.appId, row.payload, row.status, row.attempts, row.maxAttempts, row.progress, row.runAfter, row.createdAt, row.updatedAt];
}

export function retryDelayMs(backoffMs: number, attempt: number): number {
  return Math.min(MAX_BACKOFF_MS, backoffMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
}

export function toRecord(row: JobEntity): JobRecord {
  return {
    id: row.id,
    queue: row.queue,
    appId: row.appId,
    status: row.status,
    attempts: row.attempts,
    maxAttempts: row.maxAttempts,
    progress: row.progress,
    result: parseJson(row.result),
    error: row.error,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    finishedAt: row.finishedAt,
  };
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function affected(result: UpdateResult): number {
  return result.affected ?? 0;
}
