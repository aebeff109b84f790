import 'reflect-metadata';
import { DynamicModule, INestApplicationContext, Injectable, LogLevel, Module, OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import Bull from 'bull';
import { IsInt, IsOptional, IsString, Min } from 'class-validator';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { ConfigModule } from '../../src/config/config.module';
import { CryptoModule } from '../../src/platform/crypto/crypto.module';
import { DatabaseModule } from '../../src/platform/database/database.module';
import { JobMaintenance } from '../../src/platform/queue/job-maintenance';
import {
  defineQueue,
  JobContext,
  JobPayloadError,
  JobQueue,
  JobRecord,
  JobStatus,
  UnrecoverableJobError,
} from '../../src/platform/queue/job-queue';
import { QueueModule } from '../../src/platform/queue/queue.module';
import { RedisModule } from '../../src/platform/redis/redis.module';
import { dbDate } from '../support/db';
import { createTestStack, TestStack } from '../support/test-stack';

class EchoPayload {
  @IsString()
  text!: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  repeat?: number;
}

const ECHO = defineQueue<EchoPayload>({ name: 'test.echo', payloadClass: EchoPayload });
/** The same payload class, checked only when the job runs (payloads the service builds itself at high rates). */
const ECHO_AT_RUN = defineQueue<EchoPayload>({ name: 'test.echo-at-run', payloadClass: EchoPayload, validate: 'run', maxAttempts: 3 });
const FLAKY = defineQueue<{ failTimes: number; tag: string }>({ name: 'test.flaky', maxAttempts: 3, backoffMs: 300 });
const GATED = defineQueue<{ gate: string }>({ name: 'test.gated' });
const SLOW = defineQueue<{ ms: number }>({ name: 'test.slow', timeoutMs: 300, maxAttempts: 2, backoffMs: 100 });
const FATAL = defineQueue<{ reason: string }>({ name: 'test.fatal', maxAttempts: 5 });

/** Shared between the test and the handlers, which run in this process. */
const starts = new Map<string, number[]>();
const gates = new Map<string, () => void>();
const aborted = new Set<string>();

function recordStart(ctx: JobContext): void {
  const list = starts.get(ctx.jobId) ?? [];
  list.push(Date.now());
  starts.set(ctx.jobId, list);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    });
  });
}

@Injectable()
class TestProcessors implements OnModuleInit {
  constructor(private readonly jobs: JobQueue) {}

  onModuleInit(): void {
    this.jobs.register(ECHO, async (payload, ctx) => {
      recordStart(ctx);
      await ctx.reportProgress(50);
      return { echo: payload.text.repeat(payload.repeat ?? 1), typed: payload instanceof EchoPayload, attempt: ctx.attempt };
    });
    this.jobs.register(ECHO_AT_RUN, (payload) => Promise.resolve({ echo: payload.text, typed: payload instanceof EchoPayload }));
    this.jobs.register(FLAKY, (payload, ctx) => {
      recordStart(ctx);
      if (ctx.attempt <= payload.failTimes) return Promise.reject(new Error(`boom ${payload.tag} #${ctx.attempt}`));
      return Promise.resolve({ okOnAttempt: ctx.attempt });
    });
    this.jobs.register(GATED, async (payload, ctx) => {
      recordStart(ctx);
      await ctx.reportProgress(40);
      await new Promise<void>((resolve) => gates.set(payload.gate, resolve));
      return 'released';
    });
    this.jobs.register(SLOW, async (payload, ctx) => {
      recordStart(ctx);
      ctx.signal?.addEventListener('abort', () => aborted.add(`${ctx.jobId}#${ctx.attempt}`));
      await sleep(payload.ms, ctx.signal);
      return 'too late';
    });
    this.jobs.register(FATAL, (payload, ctx) => {
      recordStart(ctx);
      return Promise.reject(new UnrecoverableJobError(`cannot work: ${payload.reason}`));
    });
  }
}

@Module({})
class JobsTestRoot {}

describe('jobs (e2e)', () => {
  let stack: TestStack;
  let app: INestApplicationContext;
  let jobs: JobQueue;

  const env = (): Record<string, string | undefined> => ({
    ...process.env,
    ...stack.env,
    LCDS_JOB_LOCK_MS: '1500',
    LCDS_JOB_MAX_ATTEMPTS: '3',
    LCDS_SHUTDOWN_TIMEOUT_MS: '3000',
  });

  async function boot(): Promise<INestApplicationContext> {
    const root: DynamicModule = {
      module: JobsTestRoot,
      imports: [ConfigModule.forRoot(loadConfig(env())), CryptoModule, DatabaseModule, RedisModule, QueueModule],
      providers: [TestProcessors],
    };
    const verbose = (process.env.LCDS_TEST_LOG_LEVEL ?? 'silent') !== 'silent';
    const levels = verbose ? (['log', 'error', 'warn', 'debug'] as LogLevel[]) : false;
    const context = await NestFactory.createApplicationContext(root, { logger: levels });
    jobs = context.get(JobQueue);
    return context;
  }

  async function waitFor(id: string, statuses: JobStatus[], timeoutMs = 20_000, extra?: (r: JobRecord) => boolean): Promise<JobRecord> {
    const deadline = Date.now() + timeoutMs;
    let last: JobRecord | null = null;
    while (Date.now() < deadline) {
      last = await jobs.get(id);
      if (last && statuses.includes(last.status) && (!extra || extra(last))) return last;
      await sleep(50);
    }
    throw new Error(`job ${id} did not reach ${statuses.join('/')} in ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`);
  }

  beforeAll(async () => {
    stack = await createTestStack();
    app = await boot();
  });

  afterAll(async () => {
    for (const release of gates.values()) release();
    await app?.close();
    await stack?.destroy();
  });

  it('runs a job: the row ends completed with its result and progress 100', async () => {
    const id = await jobs.enqueue(ECHO, { text: 'ab', repeat: 2 }, { appId: 'app-1' });
    const done = await waitFor(id, ['completed', 'failed']);
    expect(done).toMatchObject({
      id,
      queue: 'test.echo',
      appId: 'app-1',
      status: 'completed',
      attempts: 1,
      progress: 100,
      error: null,
      result: { echo: 'abab', typed: true, attempt: 1 },
    });
    expect(done.finishedAt).toBeInstanceOf(Date);
    expect(starts.get(id)).toHaveLength(1);
  });

  it('retries a failing job with doubling backoff and marks it failed after maxAttempts', async () => {
    const id = await jobs.enqueue(FLAKY, { failTimes: 99, tag: 'x' });
    const done = await waitFor(id, ['completed', 'failed']);
    expect(done).toMatchObject({ status: 'failed', attempts: 3, maxAttempts: 3, error: 'boom x #3' });
    expect(done.finishedAt).toBeInstanceOf(Date);
    const runs = starts.get(id) ?? [];
    expect(runs).toHaveLength(3);
    // backoffMs 300: the second attempt waits ≥ 300 ms, the third ≥ 600 ms.
    expect(runs[1] - runs[0]).toBeGreaterThanOrEqual(280);
    expect(runs[2] - runs[1]).toBeGreaterThanOrEqual(580);
  });

  it('completes a job that succeeds on a retry, keeping the row truthful on the way', async () => {
    const id = await jobs.enqueue(FLAKY, { failTimes: 1, tag: 'y' });
    const retrying = await waitFor(id, ['queued', 'completed'], 10_000, (r) => r.attempts >= 1);
    if (retrying.status === 'queued') expect(retrying.error).toBe('boom y #1');
    const done = await waitFor(id, ['completed', 'failed']);
    expect(done).toMatchObject({ status: 'completed', attempts: 2, error: null, result: { okOnAttempt: 2 } });
  });

  it('rejects an invalid payload on enqueue with a clear error and stores nothing', async () => {
    const dataSource = app.get<DataSource>(getDataSourceToken());
    const count = async () => Number((await dataSource.query(`SELECT COUNT(*) AS n FROM job`))[0].n);
    const before = await count();
    const attempt = jobs.enqueue(ECHO, { text: 42 } as unknown as EchoPayload);
    await expect(attempt).rejects.toBeInstanceOf(JobPayloadError);
    await expect(jobs.enqueue(ECHO, { text: 'ok', repeat: -1 })).rejects.toThrow(/test\.echo.*repeat/);
    await expect(jobs.enqueue(ECHO, { text: 42 } as unknown as EchoPayload)).rejects.toThrow(/text: text must be a string/);
    expect(await count()).toBe(before);
  });

  it("with validate: 'run', stores the payload unchecked and validates it when the job runs (a bad one fails at once)", async () => {
    const good = await jobs.enqueue(ECHO_AT_RUN, { text: 'hi' });
    expect(await waitFor(good, ['completed', 'failed'])).toMatchObject({ status: 'completed', result: { echo: 'hi', typed: true } });
    const bad = await jobs.enqueue(ECHO_AT_RUN, { text: 42 } as unknown as EchoPayload);
    const failed = await waitFor(bad, ['completed', 'failed']);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failed.error).toMatch(/text must be a string/);
    await expect(jobs.enqueue(ECHO_AT_RUN, [] as unknown as EchoPayload)).rejects.toBeInstanceOf(JobPayloadError);
  });

  it('makes reported progress readable with get() while the job runs', async () => {
    const id = await jobs.enqueue(GATED, { gate: 'progress' });
    const running = await waitFor(id, ['running'], 10_000, (r) => r.progress === 40);
    expect(running).toMatchObject({ status: 'running', progress: 40, attempts: 1, finishedAt: null });
    gates.get('progress')!();
    const done = await waitFor(id, ['completed', 'failed']);
    expect(done).toMatchObject({ status: 'completed', progress: 100, result: 'released' });
  });

  it('fails a run that exceeds timeoutMs, aborting its signal, and retries it', async () => {
    const id = await jobs.enqueue(SLOW, { ms: 5_000 });
    const done = await waitFor(id, ['completed', 'failed']);
    expect(done).toMatchObject({ status: 'failed', attempts: 2, error: 'The job timed out after 300 ms' });
    expect(aborted).toEqual(new Set([`${id}#1`, `${id}#2`]));
  });

  it('fails at once, without retries, on an UnrecoverableJobError', async () => {
    const id = await jobs.enqueue(FATAL, { reason: 'no source' });
    const done = await waitFor(id, ['completed', 'failed']);
    expect(done).toMatchObject({ status: 'failed', attempts: 1, maxAttempts: 5, error: 'cannot work: no source' });
  });

  it('treats a reused job id as the same job', async () => {
    const given = 'c0ffee00-0000-4000-8000-000000000001';
    const first = await jobs.enqueue(ECHO, { text: 'once' }, { jobId: given });
    const second = await jobs.enqueue(ECHO, { text: 'twice' }, { jobId: given });
    expect([first, second]).toEqual([given, given]);
    const done = await waitFor(given, ['completed', 'failed']);
    expect(done.result).toMatchObject({ echo: 'once' });
    await expect(jobs.enqueue(FLAKY, { failTimes: 0, tag: 'z' }, { jobId: given })).rejects.toThrow(/belongs to queue "test\.echo"/);
    await sleep(300);
    expect(starts.get(given)).toHaveLength(1);
  });

  it('purges finished jobs older than 7 days', async () => {
    const id = await jobs.enqueue(ECHO, { text: 'old' });
    await waitFor(id, ['completed']);
    const recent = await jobs.enqueue(ECHO, { text: 'recent' });
    await waitFor(recent, ['completed']);
    const dataSource = app.get<DataSource>(getDataSourceToken());
    await dataSource.query(`UPDATE job SET finished_at = ? WHERE id = ?`, [dbDate(dataSource, new Date(Date.now() - 8 * 24 * 3600 * 1000)), id]);
    expect(await app.get(JobMaintenance).purge()).toBe(1);
    expect(await jobs.get(id)).toBeNull();
    expect(await jobs.get(recent)).not.toBeNull();
  });

  it('lets running jobs finish when the application shuts down', async () => {
    const id = await jobs.enqueue(GATED, { gate: 'shutdown' });
    await waitFor(id, ['running']);
    const closedAt = { at: 0 };
    const closing = app.close().then(() => (closedAt.at = Date.now()));
    await sleep(400);
    expect(closedAt.at).toBe(0);
    const releasedAt = Date.now();
    gates.get('shutdown')!();
    await closing;
    expect(closedAt.at).toBeGreaterThanOrEqual(releasedAt);
    app = await boot();
    expect(await jobs.get(id)).toMatchObject({ status: 'completed', attempts: 1, result: 'released' });
  });

  it('runs jobs that were queued when the previous process stopped (recovery)', async () => {
    const kept = await jobs.enqueue(ECHO, { text: 'kept' }, { delayMs: 1_500 });
    const lost = await jobs.enqueue(ECHO, { text: 'lost' }, { delayMs: 1_500 });
    await app.close();
    if (stack.env.REDIS_URL) {
      // As if the process died between the row insert and the Redis add: only the database knows the job.
      const bull = new Bull('test.echo', stack.env.REDIS_URL, { prefix: `${stack.env.REDIS_PREFIX}:bull` });
      const job = await bull.getJob(lost);
      expect(job).not.toBeNull();
      await job!.remove();
      expect(await bull.getJob(lost)).toBeNull();
      await bull.close();
    }
    expect(starts.has(kept) || starts.has(lost)).toBe(false);

    app = await boot();
    const [a, b] = await Promise.all([waitFor(kept, ['completed', 'failed']), waitFor(lost, ['completed', 'failed'])]);
    expect(a).toMatchObject({ status: 'completed', attempts: 1, result: { echo: 'kept' } });
    expect(b).toMatchObject({ status: 'completed', attempts: 1, result: { echo: 'lost' } });
  });
});

