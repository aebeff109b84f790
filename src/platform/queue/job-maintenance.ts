import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { FINISHED_JOB_RETENTION_MS, JobStore } from './job-store';

const PURGE_EVERY_MS = 24 * 3600 * 1000;

/** Deletes jobs that finished more than 7 days ago: at start, then daily. Runs on worker processes only. */
@Injectable()
export class JobMaintenance implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(JobMaintenance.name);
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: JobStore,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.role === 'api') return;
    void this.purge();
    this.timer = setInterval(() => void this.purge(), PURGE_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async purge(): Promise<number> {
    try {
      const deleted = await this.store.purgeFinished(new Date(Date.now() - FINISHED_JOB_RETENTION_MS));
      if (deleted > 0) this.logger.log({ msg: 'finished jobs purged', count: deleted, olderThanDays: FINISHED_JOB_RETENTION_MS / 86_400_000 });
      return deleted;
    } catch (err) {
      this.logger.warn({ msg: 'purge of finished jobs failed', err: (err as Error).message });
      return 0;
    }
  }
}
