import { BeforeApplicationShutdown, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { EnqueueOptions, QueueDefinition } from './job-queue';
import { JobStore } from './job-store';
import { StoredJobQueue } from './stored-job-queue';

/**
 * Jobs run in this process, without Redis (the embedded stack). The database is the queue: a pump claims
 * due rows while slots are free, woken on enqueue, when a job ends, by timers for delays and retries, and
 * by a poll that also takes over jobs whose lease ran out (left `running` by a process that died). Claims
 * are conditional updates, so several such processes on one MySQL database share the work safely.
 */
export class InlineJobQueue extends StoredJobQueue implements OnApplicationBootstrap, BeforeApplicationShutdown {
  protected readonly logger = new Logger(InlineJobQueue.name);
  private processing = false;
  private pollTimer?: NodeJS.Timeout;
  private readonly wakeTimers = new Set<NodeJS.Timeout>();
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;

  constructor(config: AppConfig, store: JobStore) {
    super(config, store);
  }

  /** How often the database is polled for due jobs and expired leases. */
  private get pollMs(): number {
    return Math.max(200, Math.min(5_000, Math.floor(this.config.jobs.lockMs / 2)));
  }

  async enqueue<P extends object>(queue: QueueDefinition<P>, payload: P, options: EnqueueOptions = {}): Promise<string> {
    const { row } = await this.insert(queue, payload, options);
    if (this.processing && this.queues.has(queue.name) && row.status === 'queued') {
      this.wake(row.runAfter.getTime() - Date.now());
    }
    return row.id;
  }

  announce(queue: QueueDefinition<object>): Promise<void> {
    if (this.processing && this.queues.has(queue.name)) this.pump();
    return Promise.resolve();
  }

  onApplicationBootstrap(): void {
    if (!this.runsJobs) return;
    this.processing = true;
    // Not unref'd: like a Redis connection for Bull workers, the poll keeps a worker process alive.
    this.pollTimer = setInterval(() => this.pump(), this.pollMs);
    this.logger.log({ msg: 'job processing started', transport: 'inline', queues: [...this.queues.keys()], concurrency: this.config.jobs.concurrency });
    // Jobs left queued or running by a previous run of the process are due rows like any other.
    this.pump();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.processing) return;
    this.processing = false;
    clearInterval(this.pollTimer);
    for (const timer of this.wakeTimers) clearTimeout(timer);
    this.wakeTimers.clear();
    await this.pumping;
    if (this.executor.activeCount > 0) {
      this.logger.log({ msg: 'waiting for running jobs', count: this.executor.activeCount });
    }
    await this.executor.drain(this.config.http.shutdownTimeoutMs);
  }

  protected override onRegister(): void {
    if (this.processing) this.pump();
  }

  private wake(delayMs: number): void {
    if (!this.processing) return;
    if (delayMs <= 0) {
      this.pump();
      return;
    }
    const timer = setTimeout(
      () => {
        this.wakeTimers.delete(timer);
        this.pump();
      },
      Math.min(delayMs + 5, 2 ** 31 - 1),
    );
    timer.unref();
    this.wakeTimers.add(timer);
  }

  private pump(): void {
    if (!this.processing) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.fill()
      .catch((err: Error) => this.logger.error({ msg: 'job pump failed', err: err.message }))
      .finally(() => {
        this.pumping = null;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.pump();
        }
      });
  }

  /** Claims due jobs until every slot is busy. */
  private async fill(): Promise<void> {
    const concurrency = this.config.jobs.concurrency;
    const free = concurrency - this.executor.activeCount;
    if (free <= 0 || this.queues.size === 0) return;
    const rows = await this.store.findDue([...this.queues.keys()], new Date(), free);
    let missed = false;
    for (const row of rows) {
      if (!this.processing || this.executor.activeCount >= concurrency) return;
      // A lease of our own that looks expired (a blocked event loop) is still ours: never run it twice.
      if (this.executor.isActive(row.id)) continue;
      const queue = this.queues.get(row.queue);
      if (!queue) continue;
      const claimed = await this.store.claim(row.id, this.executor.workerId, this.config.jobs.lockMs);
      if (!claimed) {
        missed = true;
        continue;
      }
      void this.executor.run(claimed, queue).then(
        (outcome) => {
          if (outcome.kind === 'retry') this.wake(outcome.runAfter.getTime() - Date.now());
          this.pump();
        },
        (err: Error) => {
          this.logger.error({ msg: 'job run could not be recorded', jobId: row.id, queue: row.queue, err: err.message });
          this.pump();
        },
      );
    }
    // Other workers took some rows: there may be more due rows behind them.
    if (missed && rows.length === free) this.pumpAgain = true;
  }
}
