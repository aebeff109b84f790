import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { RedisService } from '../redis/redis.service';
import { BullJobQueue } from './bull-job-queue';
import { InlineJobQueue } from './inline-job-queue';
import { JobMaintenance } from './job-maintenance';
import { JobQueue } from './job-queue';
import { JobStore } from './job-store';
import { JobEntity } from './job.entity';

/**
 * The job platform: `JobQueue` on Bull/Redis when REDIS_URL is set, in-process otherwise. Processors call
 * `jobQueue.register(QUEUE, handler)` in onModuleInit; workers ('worker' and 'all' roles) start taking jobs
 * in onApplicationBootstrap, once every handler is registered, and at shutdown stop taking new jobs and
 * wait for running ones (up to LCDS_SHUTDOWN_TIMEOUT_MS). An 'api' process only enqueues.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([JobEntity])],
  providers: [
    JobStore,
    {
      provide: JobQueue,
      inject: [APP_CONFIG, JobStore, { token: RedisService, optional: true }],
      useFactory: (config: AppConfig, store: JobStore, redis?: RedisService): JobQueue => {
        if (!config.redis) return new InlineJobQueue(config, store);
        if (!redis) throw new Error('QueueModule needs RedisModule when REDIS_URL is set');
        return new BullJobQueue(config, store, redis);
      },
    },
    JobMaintenance,
  ],
  exports: [JobQueue],
})
export class QueueModule {}
