/**
 * A worker process for the job crash test: `node -r @swc-node/register test/support/job-worker.main.ts`,
 * configured by its environment like the real server (DATABASE_URL, REDIS_URL, LCDS_ROLE, LCDS_JOB_LOCK_MS…).
 * It runs the slow `test.crash` job. Importing this file (for the queue definition) does not start anything.
 */
import 'reflect-metadata';
import { DynamicModule, Injectable, LogLevel, Module, OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { appendFileSync } from 'node:fs';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { ConfigModule } from '../../src/config/config.module';
import { CryptoModule } from '../../src/platform/crypto/crypto.module';
import { DatabaseModule } from '../../src/platform/database/database.module';
import { SystemStateService } from '../../src/platform/database/system-state.service';
import { defineQueue, JobQueue } from '../../src/platform/queue/job-queue';
import { QueueModule } from '../../src/platform/queue/queue.module';
import { RedisModule } from '../../src/platform/redis/redis.module';

export class CrashJobPayload {
  /** How long each run works before it records its side effect. */
  @IsInt()
  @Min(0)
  @Max(60_000)
  workMs!: number;

  /** Each run appends `started <jobId> <attempt> <pid>` and the one that applies the side effect `done …`. */
  @IsString()
  effectsFile!: string;
}

export const CRASH_QUEUE = defineQueue<CrashJobPayload>({ name: 'test.crash', payloadClass: CrashJobPayload, maxAttempts: 5, backoffMs: 200 });

export function crashSideEffectKey(jobId: string): string {
  return `jobtest:done:${jobId}`;
}

@Injectable()
export class CrashJobProcessor implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    private readonly state: SystemStateService,
  ) {}

  onModuleInit(): void {
    this.jobs.register(CRASH_QUEUE, async (payload, ctx) => {
      appendFileSync(payload.effectsFile, `started ${ctx.jobId} ${ctx.attempt} ${process.pid}\n`);
      await new Promise((resolve) => setTimeout(resolve, payload.workMs));
      // The side effect is idempotent: the insert of the key succeeds for exactly one run.
      const applied = await this.state.claimOnce(crashSideEffectKey(ctx.jobId), `attempt ${ctx.attempt}`);
      if (applied) appendFileSync(payload.effectsFile, `done ${ctx.jobId} ${ctx.attempt} ${process.pid}\n`);
      return { attempt: ctx.attempt, pid: process.pid, applied };
    });
  }
}

@Module({})
class JobWorkerRoot {}

/** The application of a test process; with `withProcessor` false it only enqueues (and reads) test.crash jobs. */
export function jobWorkerModule(config: AppConfig, withProcessor: boolean): DynamicModule {
  return {
    module: JobWorkerRoot,
    imports: [ConfigModule.forRoot(config), CryptoModule, DatabaseModule, RedisModule, QueueModule],
    providers: withProcessor ? [CrashJobProcessor] : [],
  };
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger: LogLevel[] = (process.env.LCDS_TEST_LOG_LEVEL ?? 'silent') !== 'silent' ? ['log', 'warn', 'error', 'debug'] : ['log', 'warn', 'error'];
  const app = await NestFactory.createApplicationContext(jobWorkerModule(config, true), { logger });
  app.enableShutdownHooks();
  process.stdout.write(`job worker ready pid=${process.pid} role=${config.role}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`job worker failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
