import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { JobQueue, JobRecord } from '../../src/platform/queue/job-queue';
import { CRASH_QUEUE, crashSideEffectKey, jobWorkerModule } from '../support/job-worker.main';
import { createTestStack, TestStack } from '../support/test-stack';

/**
 * A worker dies (SIGKILL) in the middle of a job; another worker must take the job over and finish it, with
 * its side effect applied once. With Redis (production stack) the workers are Bull workers (LCDS_ROLE=worker)
 * and this process is an API node that only enqueues; Bull's stalled-job check hands the job over. Without
 * Redis the workers run the in-process adapter on the same database, which takes the job over once its
 * lease in the row has run out.
 */
describe('jobs: a worker killed mid-job (e2e)', () => {
  const root = resolve(__dirname, '..', '..');
  const lockMs = 1_500;
  let stack: TestStack;
  let app: INestApplicationContext | undefined;
  let jobs: JobQueue;
  const children: { child: ChildProcess; output: string[] }[] = [];
  let probeRow: (() => Promise<unknown>) | undefined;

  const baseEnv = (): Record<string, string> => {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
    return { ...env, ...stack.env, LCDS_JOB_LOCK_MS: String(lockMs), LCDS_SHUTDOWN_TIMEOUT_MS: '2000', LCDS_JOB_CONCURRENCY: '2' };
  };
  const usesBull = () => !!stack.env.REDIS_URL;

  function spawnWorker(): { child: ChildProcess; output: string[] } {
    const env = { ...baseEnv(), LCDS_ROLE: usesBull() ? 'worker' : 'all' };
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join('test', 'support', 'job-worker.main.ts')], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const entry = { child, output: [] as string[] };
    child.stdout?.on('data', (chunk: Buffer) => entry.output.push(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => entry.output.push(chunk.toString()));
    children.push(entry);
    return entry;
  }

  function exited(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => child.once('exit', () => resolve()));
  }

  async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const value = await probe();
      if (value !== undefined) return value;
      for (const { child, output } of children) {
        if (child.exitCode !== null) throw new Error(`a worker exited (code ${child.exitCode}):\n${output.join('')}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(await probeRow?.())}\n--- worker output ---\n${children.map((c) => c.output.join('')).join('\n---\n')}`);
  }

  const effects = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

  beforeAll(async () => {
    stack = await createTestStack();
    // This process enqueues and watches; it never runs test.crash (an API node, or a node without that handler).
    const config = loadConfig({ ...baseEnv(), LCDS_ROLE: usesBull() ? 'api' : 'all' });
    app = await NestFactory.createApplicationContext(jobWorkerModule(config, false), { logger: false });
    jobs = app.get(JobQueue);
  });

  afterAll(async () => {
    for (const { child } of children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited(child);
        clearTimeout(timer);
      }
    }
    if ((process.env.LCDS_TEST_LOG_LEVEL ?? 'silent') !== 'silent') {
      for (const { child, output } of children) process.stdout.write(`--- worker ${child.pid} ---\n${output.join('')}\n`);
    }
    await app?.close();
    await stack?.destroy();
  });

  it('hands the job of a killed worker to another worker, which completes it once', async () => {
    const effectsFile = join(stack.dataDir, 'crash-effects.log');
    const id = await jobs.enqueue(CRASH_QUEUE, { workMs: 4_000, effectsFile });
    probeRow = async () => ({ now: new Date().toISOString(), row: await app!.get<DataSource>(getDataSourceToken()).query('SELECT * FROM job WHERE id = ?', [id]) });

    const first = spawnWorker();
    await until('the first worker to start the job', async () => {
      const row = await jobs.get(id);
      return row?.status === 'running' && effects(effectsFile).some((l) => l.startsWith(`started ${id} 1 `)) ? row : undefined;
    }, 20_000);

    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(first.child.signalCode).toBe('SIGKILL');
    const orphaned = await jobs.get(id);
    expect(orphaned).toMatchObject({ status: 'running', attempts: 1 });
    expect(effects(effectsFile).filter((l) => l.startsWith('done'))).toEqual([]);

    spawnWorker();
    const done = await until<JobRecord>('the second worker to complete the job', async () => {
      const row = await jobs.get(id);
      return row?.status === 'completed' || row?.status === 'failed' ? row : undefined;
    }, 30_000);

    expect(done.status).toBe('completed');
    expect(done.attempts).toBeGreaterThanOrEqual(2);
    expect(done.error).toBeNull();
    expect(done.result).toMatchObject({ applied: true, attempt: done.attempts });
    const secondPid = children[1]?.child.pid;
    expect(done.result).toMatchObject({ pid: secondPid });

    const lines = effects(effectsFile);
    expect(lines.filter((l) => l.startsWith(`started ${id} 1 ${first.child.pid}`))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith(`started ${id} ${done.attempts} ${secondPid}`))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('done'))).toEqual([`done ${id} ${done.attempts} ${secondPid}`]);

    const dataSource = app!.get<DataSource>(getDataSourceToken());
    const marks = await dataSource.query('SELECT `value` FROM system_state WHERE `key` = ?', [crashSideEffectKey(id)]);
    expect(marks).toHaveLength(1);
    expect(String(marks[0].value)).toMatch(new RegExp(`^attempt ${done.attempts}\\b`));
  });
});
