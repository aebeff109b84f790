import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ConflictError, NotFoundError } from '../http/domain-errors';
import { PageTokens } from '../http/page-tokens';
import { JobQueue, JobStatus } from './job-queue';
import { JobEntity } from './job.entity';

/** Whose jobs a caller sees: one application's, or every job (a management application, the CLI). */
export type JobScope = { appId: string } | { all: true; viewer: string };

export interface QueueCounts {
  queue: string;
  queued: number;
  running: number;
  completed: number;
  failed: number;
}

export interface FailedJobView {
  id: string;
  queue: string;
  appId: string | null;
  attempts: number;
  maxAttempts: number;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export const FAILED_JOBS_PAGE_SIZE = 50;
const STATUSES: readonly JobStatus[] = ['queued', 'running', 'completed', 'failed'];

/**
 * What operators see of the job platform, the same on both transports (job state lives in the `job` table, Bull on
 * Redis only carries ids): counts by queue and state, failed jobs with their error, and retrying one.
 */
@Injectable()
export class JobAdmin {
  constructor(
    @InjectRepository(JobEntity) private readonly jobs: Repository<JobEntity>,
    private readonly queue: JobQueue,
    private readonly tokens: PageTokens,
  ) {}

  async counts(scope: JobScope): Promise<QueueCounts[]> {
    const qb = this.jobs.createQueryBuilder('job').select('job.queue', 'queue').addSelect('job.status', 'status').addSelect('COUNT(*)', 'n');
    if ('appId' in scope) qb.where('job.app_id = :appId', { appId: scope.appId });
    const rows = await qb.groupBy('job.queue').addGroupBy('job.status').getRawMany<{ queue: string; status: string; n: string | number }>();
    const byQueue = new Map<string, QueueCounts>();
    for (const row of rows) {
      const counts = byQueue.get(row.queue) ?? { queue: row.queue, queued: 0, running: 0, completed: 0, failed: 0 };
      if ((STATUSES as readonly string[]).includes(row.status)) counts[row.status as JobStatus] = Number(row.n);
      byQueue.set(row.queue, counts);
    }
    return [...byQueue.values()].sort((a, b) => a.queue.localeCompare(b.queue));
  }

  /** Failed jobs, the most recently failed first; `more` resumes after the last one. */
  async failed(scope: JobScope, more?: string): Promise<{ jobs: FailedJobView[]; more?: string }> {
    const owner = 'appId' in scope ? scope.appId : scope.viewer;
    const after = more !== undefined ? this.tokens.decode<Record<string, never>>('failed-jobs', owner, more).after : null;
    const qb = this.jobs.createQueryBuilder('job').where('job.status = :failed', { failed: 'failed' });
    if ('appId' in scope) qb.andWhere('job.app_id = :appId', { appId: scope.appId });
    if (after) {
      qb.andWhere('(job.updated_at < :at OR (job.updated_at = :at AND job.id < :id))', { at: new Date(String(after[0])), id: String(after[1]) });
    }
    const rows = await qb
      .orderBy('job.updated_at', 'DESC')
      .addOrderBy('job.id', 'DESC')
      .limit(FAILED_JOBS_PAGE_SIZE + 1)
      .getMany();
    const page = rows.slice(0, FAILED_JOBS_PAGE_SIZE);
    const last = page[page.length - 1];
    const next = rows.length > FAILED_JOBS_PAGE_SIZE ? this.tokens.encode('failed-jobs', owner, { filters: {}, after: [last.updatedAt.toISOString(), last.id] }) : undefined;
    return {
      jobs: page.map((j) => ({
        id: j.id,
        queue: j.queue,
        appId: j.appId,
        attempts: j.attempts,
        maxAttempts: j.maxAttempts,
        error: j.error,
        createdAt: j.createdAt.toISOString(),
        finishedAt: j.finishedAt?.toISOString() ?? null,
      })),
      ...(next ? { more: next } : {}),
    };
  }

  /**
   * Runs a failed job again with all its attempts: queued now, then handed to the transport (Bull or the
   * in-process poll). Another application's job is not found; a job that has not failed is a conflict.
   */
  async retry(scope: JobScope, jobId: string): Promise<{ queue: string }> {
    const row = await this.jobs.findOneBy({ id: jobId });
    if (!row || ('appId' in scope && row.appId !== scope.appId)) throw new NotFoundError('Job', jobId);
    if (row.status !== 'failed') throw new ConflictError(`Job ${jobId} is ${row.status}; only a failed job can be retried`);
    const now = new Date();
    const update = await this.jobs
      .createQueryBuilder()
      .update(JobEntity)
      .set({ status: 'queued', attempts: 0, progress: 0, runAfter: now, lockedBy: null, lockedUntil: null, updatedAt: now, finishedAt: null })
      .where('id = :id AND status = :failed', { id: jobId, failed: 'failed' })
      .execute();
    if ((update.affected ?? 0) !== 1) throw new ConflictError(`Job ${jobId} was retried already`);
    await this.queue.announce({ name: row.queue }, jobId);
    return { queue: row.queue };
  }
}
