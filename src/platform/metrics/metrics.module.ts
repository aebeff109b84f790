import { Global, Injectable, Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { JobEntity } from '../queue/job.entity';
import { collectProcessMetrics, dbPool, jobsByState, onScrape } from './metrics';
import { MetricsController } from './metrics.controller';

/** What is read at scrape time: the database pool of this process, and the installation's jobs by state. */
@Injectable()
export class ScrapeCollectors implements OnModuleInit, OnModuleDestroy {
  private readonly off: Array<() => void> = [];

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  onModuleInit(): void {
    collectProcessMetrics();
    this.off.push(onScrape(() => this.pool()), onScrape(() => this.jobs()));
  }

  onModuleDestroy(): void {
    for (const off of this.off) off();
  }

  private pool(): void {
    // mysql2's pool keeps its connections in these lists (no public accessor); SQLite has one connection.
    const pool = (this.ds.driver as unknown as { pool?: { _allConnections?: { length: number }; _freeConnections?: { length: number }; _connectionQueue?: { length: number } } }).pool;
    if (pool?._allConnections) {
      dbPool.set({ state: 'open' }, pool._allConnections.length);
      dbPool.set({ state: 'idle' }, pool._freeConnections?.length ?? 0);
      dbPool.set({ state: 'waiting' }, pool._connectionQueue?.length ?? 0);
    } else if (this.ds.isInitialized) {
      dbPool.set({ state: 'open' }, 1);
    }
  }

  /**
   * Jobs that are not finished, and the failed ones kept (7 days), by queue: read through the status index.
   * Installation-wide, so every scraped process reports the same figure (aggregate with max, not sum).
   */
  private async jobs(): Promise<void> {
    const rows = await this.ds
      .getRepository(JobEntity)
      .createQueryBuilder('j')
      .select('j.queue', 'queue')
      .addSelect('j.status', 'state')
      .addSelect('COUNT(*)', 'n')
      .where('j.status IN (:...states)', { states: ['queued', 'running', 'failed'] })
      .groupBy('j.queue')
      .addGroupBy('j.status')
      .getRawMany<{ queue: string; state: string; n: string | number }>();
    jobsByState.reset();
    for (const r of rows) jobsByState.set({ queue: r.queue, state: r.state }, Number(r.n));
  }
}

@Global()
@Module({
  controllers: [MetricsController],
  providers: [ScrapeCollectors],
})
export class MetricsModule {}
