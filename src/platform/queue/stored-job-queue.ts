import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { checkQueueName, JobExecutor, newWorkerId, RegisteredQueue } from './job-executor';
import { serializePayload, validatePayload } from './job-payload';
import { EnqueueOptions, JobHandler, JobPayloadError, JobQueue, JobRecord, QueueDefinition } from './job-queue';
import { JobStore, NewJob, queuedJobRow } from './job-store';
import type { JobEntity } from './job.entity';

/** What both adapters share: handler registry, job rows, the executor of attempts. */
export abstract class StoredJobQueue extends JobQueue {
  protected abstract readonly logger: Logger;
  protected readonly queues = new Map<string, RegisteredQueue>();
  protected readonly executor: JobExecutor;

  constructor(
    protected readonly config: AppConfig,
    protected readonly store: JobStore,
  ) {
    super();
    this.executor = new JobExecutor(store, config, newWorkerId());
  }

  /** Only worker processes run jobs; an API process only enqueues them. */
  protected get runsJobs(): boolean {
    return this.config.role === 'worker' || this.config.role === 'all';
  }

  register<P extends object>(queue: QueueDefinition<P>, handler: JobHandler<P>): void {
    checkQueueName(queue.name);
    if (this.queues.has(queue.name)) throw new Error(`Job queue "${queue.name}" already has a handler`);
    this.queues.set(queue.name, {
      definition: queue,
      handler: handler as unknown as JobHandler<object>,
    });
    this.onRegister(queue.name);
  }

  get(jobId: string): Promise<JobRecord | null> {
    return this.store.get(jobId);
  }

  async enqueueIn<P extends object>(manager: EntityManager, queue: QueueDefinition<P>, payload: P, options: EnqueueOptions = {}): Promise<string> {
    const { row } = await this.insert(queue, payload, options, manager);
    return row.id;
  }

  outboxRow<P extends object>(queue: QueueDefinition<P>, payload: P, options: EnqueueOptions = {}): JobEntity {
    checkQueueName(queue.name);
    return queuedJobRow(this.newJob(queue, payload, options));
  }

  /** Called when a handler is registered; adapters may start it at once when they are already processing. */
  protected onRegister(_queue: string): void {}

  /** Validates and stores a new job. With options.jobId of an existing job of the same queue, returns that job. */
  protected async insert<P extends object>(
    queue: QueueDefinition<P>,
    payload: P,
    options: EnqueueOptions = {},
    manager?: EntityManager,
  ): Promise<{ row: JobEntity; created: boolean }> {
    checkQueueName(queue.name);
    if (queue.validate === 'run') {
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new JobPayloadError(queue.name, ['the payload must be a JSON object']);
    } else {
      await validatePayload(queue, payload);
    }
    const job = this.newJob(queue, payload, options);
    const { id } = job;
    const result = await this.store.create(job, manager);
    if (!result.created && result.row.queue !== queue.name) {
      throw new Error(`Job id ${id} belongs to queue "${result.row.queue}", not "${queue.name}"`);
    }
    if (result.created) this.logger.debug({ msg: 'job queued', jobId: id, queue: queue.name, runAfter: job.runAfter });
    return result;
  }

  private newJob<P extends object>(queue: QueueDefinition<P>, payload: P, options: EnqueueOptions): NewJob {
    const id = options.jobId ?? randomUUID();
    if (id.length === 0 || id.length > 36) throw new Error(`Job id "${id}" must have 1 to 36 characters`);
    const delayMs = Math.max(0, Math.floor(options.delayMs ?? 0));
    return {
      id,
      queue: queue.name,
      appId: options.appId ?? null,
      payload: serializePayload(queue, payload),
      maxAttempts: Math.max(1, queue.maxAttempts ?? this.config.jobs.maxAttempts),
      runAfter: new Date(Date.now() + delayMs),
    };
  }
}
