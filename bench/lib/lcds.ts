import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, onCleanup, spawnLogged, TrackedChild, waitForLogLine } from './children';

/** The repository root (bench/lib/ is two levels down). */
export const REPO_ROOT = resolve(__dirname, '..', '..');
export const API_PREFIX = '/api/v2';

export interface AppCredentials {
  appId: string;
  secretKey: string;
}

export interface FirstStart {
  application: AppCredentials;
  management: AppCredentials;
}

/** The node options of package.json's `start` script (`node <options> dist/main.js`), as production runs it. */
export function startNodeArgs(): string[] {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const words = (pkg.scripts?.start ?? '').split(/\s+/).filter(Boolean);
  const main = words.indexOf('dist/main.js');
  return words[0] === 'node' && main > 0 ? words.slice(1, main) : [];
}

/**
 * Makes sure dist/main.js exists, running `npm run build` when it does not. Other people edit the tree while
 * benchmarks run, so a failed build is retried (BENCH_BUILD_RETRIES times, default 5, a minute apart).
 */
export async function ensureBuilt(): Promise<void> {
  const main = join(REPO_ROOT, 'dist', 'main.js');
  if (existsSync(main)) return;
  const attempts = Math.max(1, Number(process.env.BENCH_BUILD_RETRIES ?? 5));
  for (let attempt = 1; ; attempt++) {
    process.stderr.write(`dist/main.js missing: npm run build (attempt ${attempt}/${attempts})\n`);
    try {
      execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
      if (existsSync(main)) return;
    } catch {
      /* reported by npm */
    }
    if (attempt >= attempts) throw new Error('npm run build failed; cannot start the service');
    await new Promise((r) => setTimeout(r, 60_000));
  }
}

export interface Stack {
  kind: 'embedded' | 'production';
  /** For the report: "embedded (SQLite)" or "production (MySQL + Redis)". */
  label: string;
  /** Environment of the service for this stack (DATA_DIR, LCDS_MASTER_KEY, DATABASE_URL, REDIS_URL…). */
  env: Record<string, string>;
}

/**
 * A throw-away stack in runDir. Embedded (SQLite in runDir/data) by default; production when
 * BENCH_DATABASE_URL (a MySQL/MariaDB server URL, no database) is set: a database `lcds_bench_<random>` is
 * created and dropped at clean-up; with BENCH_REDIS_URL too, Redis under the key prefix `lcds_bench_<random>`,
 * whose keys are deleted at clean-up.
 */
export async function createStack(runDir: string): Promise<Stack> {
  const id = randomBytes(4).toString('hex');
  const dataDir = join(runDir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const env: Record<string, string> = { DATA_DIR: dataDir, LCDS_MASTER_KEY: randomBytes(32).toString('hex') };
  const serverUrl = process.env.BENCH_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL;
  if (!serverUrl) {
    if (redisUrl) process.stderr.write('BENCH_REDIS_URL is ignored without BENCH_DATABASE_URL (the embedded stack has no Redis)\n');
    return { kind: 'embedded', label: 'embedded (SQLite, in-process jobs)', env };
  }
  const { createConnection } = await import('mysql2/promise');
  const database = `lcds_bench_${id}`;
  const admin = await createConnection(serverUrl);
  try {
    await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await admin.end();
  }
  onCleanup(`drop database ${database}`, async () => {
    if (process.env.BENCH_KEEP === '1') {
      process.stderr.write(`kept database ${database} (BENCH_KEEP=1; drop it yourself)\n`);
      return;
    }
    const conn = await createConnection(serverUrl);
    try {
      await conn.query(`DROP DATABASE IF EXISTS \`${database}\``);
    } finally {
      await conn.end();
    }
  });
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  env.DATABASE_URL = url.toString();
  if (redisUrl) {
    const prefix = `lcds_bench_${id}`;
    env.REDIS_URL = redisUrl;
    env.REDIS_PREFIX = prefix;
    onCleanup(`delete Redis keys ${prefix}:*`, () => deleteRedisKeys(redisUrl, `${prefix}:*`));
  }
  return { kind: 'production', label: `production (MySQL${redisUrl ? ' + Redis' : ''}, database ${database})`, env };
}

async function deleteRedisKeys(redisUrl: string, pattern: string): Promise<void> {
  const { default: Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}

export interface LcdsService extends TrackedChild {
  baseUrl: string;
  /** `${baseUrl}/api/v2` */
  api: string;
  firstStart: FirstStart;
}

export interface ServiceOptions {
  logFile: string;
  /** LOG_LEVEL of the service; default BENCH_LOG_LEVEL or `info` (the production default). */
  logLevel?: string;
  /** Extra `node` flags, e.g. ['--cpu-prof', '--cpu-prof-dir=…']. */
  nodeArgs?: string[];
  /** Extra service environment (wins over the stack's). */
  env?: Record<string, string>;
  /**
   * Another node of an installation already started (same stack: database, Redis, master key), as behind a load
   * balancer: no first start to wait for; ready when /health/live answers. Its firstStart is this one.
   */
  joining?: FirstStart;
}

/**
 * Starts the built service (`node <npm start's options> dist/main.js`) in a child process as in production (NODE_ENV=production,
 * LOG_FORMAT=json), its stdout/stderr to a log file, and reads the first-start credentials from that log.
 * The child gets a clean environment: PATH/HOME/locale from this process, the stack's variables, then any
 * BENCH_ENV_<NAME>=value of this process as <NAME>=value (to try a service setting in a benchmark), then
 * options.env.
 */
export async function startService(stack: Stack, options: ServiceOptions): Promise<LcdsService> {
  await ensureBuilt();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const passthrough: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'].includes(name)) passthrough[name] = value;
    if (name.startsWith('BENCH_ENV_')) passthrough[name.slice('BENCH_ENV_'.length)] = value;
  }
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: baseUrl,
    NODE_ENV: 'production',
    LOG_FORMAT: 'json',
    LOG_LEVEL: options.logLevel ?? process.env.BENCH_LOG_LEVEL ?? 'info',
    ...stack.env,
    ...passthrough,
    ...options.env,
  };
  // The node options of `npm start` (production), then BENCH_NODE_ARGS (e.g. `-r ./probe.js`), then the benchmark's.
  const extraNodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const nodeArgs = [...startNodeArgs(), ...extraNodeArgs, ...(options.nodeArgs ?? [])];
  const tracked = spawnLogged(process.execPath, [...nodeArgs, join(REPO_ROOT, 'dist', 'main.js')], {
    cwd: REPO_ROOT,
    env,
    logFile: options.logFile,
  });
  if (options.joining) {
    for (let i = 0; ; i++) {
      const live = await fetch(`${baseUrl}/health/live`).then((r) => r.ok, () => false);
      if (live) break;
      if (i >= 600) throw new Error(`the extra node on ${baseUrl} did not come up (log: ${options.logFile})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return { ...tracked, baseUrl, api: `${baseUrl}${API_PREFIX}`, firstStart: options.joining };
  }
  const firstStart = await waitForLogLine<FirstStart>(tracked, (line) => {
    if (!line.includes('"msg":"first start credentials (shown once)"')) return undefined;
    const parsed = JSON.parse(line) as Partial<FirstStart>;
    return parsed.application && parsed.management ? { application: parsed.application, management: parsed.management } : undefined;
  });
  return { ...tracked, baseUrl, api: `${baseUrl}${API_PREFIX}`, firstStart };
}

export function basicAuth(credentials: AppCredentials): string {
  return `Basic ${Buffer.from(`${credentials.appId}:${credentials.secretKey}`).toString('base64')}`;
}

/** GetAppToken: POST /oauth/authenticate/application/token (form scope, expiration) with basic auth. */
export async function getAppToken(api: string, credentials: AppCredentials, scope: string, expirationSeconds = 3600): Promise<string> {
  const res = await fetch(`${api}/oauth/authenticate/application/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(credentials), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ scope, expiration: String(expirationSeconds) }).toString(),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GetAppToken answered ${res.status}: ${text}`);
  const token = (JSON.parse(text) as { access_token?: string }).access_token;
  if (!token) throw new Error(`GetAppToken answered no access_token: ${text}`);
  return token;
}

/** One request, to check a target answers 200 with the expected body before putting load on it. */
export async function expectJson(url: string, headers: Record<string, string>, check: (body: any) => boolean): Promise<void> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (res.status !== 200 || !check(body)) throw new Error(`GET ${url} answered ${res.status}: ${text}`);
}

/** Removes a directory unless BENCH_KEEP=1 (then its path is printed). */
export function removeDirUnlessKept(dir: string): void {
  if (process.env.BENCH_KEEP === '1') {
    process.stderr.write(`kept ${dir} (BENCH_KEEP=1)\n`);
    return;
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A benchmark's temporary run directory (`lcds-bench-<name>-…`), removed at the end unless kept: after a failed run
 * (`failed()` true at cleanup: its logs), when `keep` names a reason (a CPU profile in it), or with BENCH_KEEP=1.
 */
export function benchRunDir(name: string, failed: () => boolean, keep?: string): string {
  const runDir = mkdtempSync(join(tmpdir(), `lcds-bench-${name}-`));
  onCleanup(`remove ${runDir}`, () => {
    if (failed()) process.stderr.write(`kept ${runDir} (failed run: logs)\n`);
    else if (keep) process.stderr.write(`kept ${runDir} (${keep})\n`);
    else removeDirUnlessKept(runDir);
  });
  return runDir;
}
