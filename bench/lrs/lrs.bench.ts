/**
 * LRS benchmark: statement ingest (POST of single statements and of batches of 10 and 50 realistic ~1.8 KB
 * statements at 32 connections: statements/s), then, with BENCH_STATEMENTS (1,000,000) statements stored, p50/p99 of
 * the statement queries of lrsql's bench set (all, by verb, by agent, by activity, by registration,
 * related_activities) plus `since` and the page after `more`. The statements are bulk-loaded straight into the
 * service's throw-away database (same rows as the service writes) once it has migrated it.
 *
 *   npm run bench:lrs                              # embedded stack (SQLite)
 *   BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306 BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:lrs
 *
 * Settings (environment): BENCH_STATEMENTS (1000000), BENCH_DURATION (s per ingest run, 10), BENCH_CONNECTIONS (32),
 * BENCH_SAMPLES (100 sequential requests per query), BENCH_BATCHES (1,10,50), BENCH_QUERIES (0: ingest only),
 * BENCH_PROFILE (1: CPU profile of the service), BENCH_LOG_LEVEL, BENCH_ENV_<NAME>, BENCH_KEEP. See bench/README.md.
 */
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { installExitHandlers, onCleanup, runCleanups } from '../lib/children';
import { envNumber, fmtMs, fmtNumber, formatTable } from '../lib/format';
import { keepAliveAgent, timedGet } from '../lib/http';
import { basicAuth, benchRunDir, createStack, ensureBuilt, startService } from '../lib/lcds';
import { runLoad } from '../lib/load';
import { formatProfileSummary, readNewestProfile, summarizeProfile } from '../lib/cpu-profile';
import { databaseServerPid, readProcCpuSeconds } from '../lib/proc';
import { summarize } from '../lib/stats';
import { BenchDb, openBenchDb } from '../courses-list/seed-db';
import { activityOf, agentOf, AGENTS, ACTIVITIES, REGISTRATIONS, registrationOf, seedStatements, statementFor, verbOf, VERBS } from './statements';

const INGEST_GOAL = 5_000;
const P99_GOAL_MS = 50;
let failed = false;

async function main(): Promise<void> {
  installExitHandlers();
  const total = Math.max(1000, Math.floor(envNumber('BENCH_STATEMENTS', 1_000_000)));
  const durationS = envNumber('BENCH_DURATION', 10);
  const connections = Math.max(1, Math.floor(envNumber('BENCH_CONNECTIONS', 32)));
  const samples = Math.max(10, Math.floor(envNumber('BENCH_SAMPLES', 100)));
  const batches = (process.env.BENCH_BATCHES ?? '1,10,50').split(',').map(Number).filter((n) => n >= 1);
  const withQueries = envNumber('BENCH_QUERIES', 1) !== 0;
  const profile = envNumber('BENCH_PROFILE', 0) !== 0;
  await ensureBuilt();
  const runDir = benchRunDir('lrs', () => failed, profile ? 'CPU profile' : undefined);
  const stack = await createStack(runDir);
  const service = await startService(stack, {
    logFile: join(runDir, 'service.log'),
    ...(profile ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${join(runDir, 'profile')}`] } : {}),
  });
  const dbPid = stack.kind === 'production' ? databaseServerPid() : null;
  const appId = service.firstStart.application.appId;
  const auth = basicAuth(service.firstStart.application);
  const lrs = `${service.baseUrl}/lrs/${appId}`;
  const headers = { authorization: auth, 'x-experience-api-version': '1.0.3', 'content-type': 'application/json' };
  const load0 = loadavg()[0];
  const out: string[] = [
    `LRS benchmark — ${lrs}/statements`,
    `stack: ${stack.label}; NODE_ENV=production; basic auth with the application's keys`,
    `node ${process.version}, ${cpus().length} CPU(s) ${cpus()[0]?.model ?? ''}, load average ${load0.toFixed(2)} before the run`,
    '',
  ];

  // ---- ingest ----
  const ingestRows: string[][] = [];
  for (const batch of batches) {
    const list = Array.from({ length: batch }, (_, i) => statementFor(i));
    const body = JSON.stringify(batch === 1 ? list[0] : list);
    const bytes = Math.round(Buffer.byteLength(body) / batch);
    await runLoad({ url: `${lrs}/statements`, method: 'POST', headers, body, connections, durationS: Math.min(3, durationS) });
    const serviceCpu0 = readProcCpuSeconds(service.pid);
    const dbCpu0 = dbPid === null ? NaN : readProcCpuSeconds(dbPid);
    const loadStart = loadavg()[0];
    const r = await runLoad({ url: `${lrs}/statements`, method: 'POST', headers, body, connections, durationS });
    const stored = r.ok2xx * batch;
    const serviceMs = ((readProcCpuSeconds(service.pid) - serviceCpu0) * 1000) / Math.max(1, stored);
    const dbMs = dbPid === null ? NaN : ((readProcCpuSeconds(dbPid) - dbCpu0) * 1000) / Math.max(1, stored);
    const perSec = stored / r.durationS;
    ingestRows.push([
      batch === 1 ? 'single statement' : `batch of ${batch}`,
      `${bytes} B`,
      fmtNumber(r.reqPerSec, 0),
      fmtNumber(perSec, 0),
      fmtMs(r.latency.p50),
      fmtMs(r.latency.p99),
      `${r.errors}/${r.non2xx}`,
      serviceMs.toFixed(3),
      Number.isNaN(dbMs) ? '—' : dbMs.toFixed(3),
      `${loadStart.toFixed(1)}→${loadavg()[0].toFixed(1)}`,
      perSec >= INGEST_GOAL ? 'ok' : 'MISS',
    ]);
  }
  out.push(`ingest: POST /statements, ${connections} connections, ${durationS} s each (after a warm-up)`);
  out.push(
    formatTable(['request', 'stmt size', 'req/s', 'statements/s', 'p50 ms', 'p99 ms', 'err/non-2xx', 'service CPU ms/stmt', 'DB CPU ms/stmt', 'load avg', `goal ≥ ${INGEST_GOAL}/s`], ingestRows),
  );
  if (dbPid !== null) out.push(`DB CPU: the whole database server (pid ${dbPid}), other users included`);
  out.push('');
  process.stdout.write(`${out.splice(0).join('\n')}\n`);
  if (!withQueries) return finish(service, runDir, profile);
  // ---- seed ----
  const db = await openBenchDb(stack);
  onCleanup('close the seeding connection', () => db.close());
  // Requests still in flight when autocannon stopped are being stored: let them land before seeding behind the service.
  let counted = -1;
  for (;;) {
    await new Promise((r) => setTimeout(r, 2000));
    const [{ c }] = await db.query('SELECT COUNT(*) AS c FROM xapi_statement');
    if (Number(c) === counted) break;
    counted = Number(c);
  }
  const [{ n, maxSeq }] = await db.query('SELECT COUNT(*) AS n, MAX(seq) AS maxSeq FROM xapi_statement');
  const have = Number(n);
  const missing = Math.max(0, total - have);
  process.stderr.write(`seeding ${missing.toLocaleString('en-US')} statements…\n`);
  const seedStart = Date.now();
  // On MySQL/MariaDB a big load goes in without the secondary indexes, rebuilt afterwards in one sorted pass each
  // (maintaining 9 B-trees row by row is what made it slow); the service is idle meanwhile.
  const rebuild = db.kind === 'mysql' && missing >= 100_000 ? await dropSecondaryIndexes(db, ['xapi_statement', 'xapi_statement_link']) : [];
  await seedStatements(db, appId, 0, missing, Number(maxSeq ?? 0));
  for (const sql of rebuild) await db.query(sql);
  if (db.kind === 'mysql') await db.analyze(['xapi_statement', 'xapi_statement_link']);
  const seedMs = Date.now() - seedStart;
  out.push(
    `stored: ${(have + missing).toLocaleString('en-US')} statements (${missing.toLocaleString('en-US')} bulk-loaded in ${(seedMs / 1000).toFixed(1)} s${rebuild.length > 0 ? ' without the secondary indexes, rebuilt after' : ''}${db.kind === 'mysql' ? ', then ANALYZE' : ''}; load average ${loadavg()[0].toFixed(1)})`,
  );

  // ---- queries ----
  const agent = keepAliveAgent();
  const q = (params: Record<string, string>) => `${lrs}/statements?${new URLSearchParams(params).toString()}`;
  const scenarios: Array<{ name: string; url: (i: number) => string }> = [
    { name: 'all (newest 100)', url: () => q({}) },
    { name: 'by verb', url: (i) => q({ verb: verbOf(i % VERBS) }) },
    { name: 'by agent', url: (i) => q({ agent: JSON.stringify(agentOf((i * 7) % AGENTS)) }) },
    { name: 'by activity', url: (i) => q({ activity: activityOf((i * 13) % ACTIVITIES) }) },
    { name: 'by registration', url: (i) => q({ registration: registrationOf((i * 31) % REGISTRATIONS) }) },
    { name: 'related_activities', url: (i) => q({ activity: `https://bench.example.com/activities/course-${(i * 3) % (ACTIVITIES / 20)}`, related_activities: 'true' }) },
    { name: 'agent + verb + since', url: (i) => q({ agent: JSON.stringify(agentOf(i % AGENTS)), verb: verbOf(i % VERBS), since: '2025-01-05T00:00:00Z' }) },
    { name: 'since, ascending', url: (i) => q({ since: new Date(Date.UTC(2025, 0, 1) + ((i * 9973) % total) * 1000).toISOString(), ascending: 'true' }) },
  ];
  const queryRows: string[][] = [];
  const lrsHeaders = { authorization: auth, 'x-experience-api-version': '1.0.3' };
  for (const sc of scenarios) {
    for (let i = 0; i < 5; i++) await timedGet(sc.url(i), lrsHeaders, agent);
    const times: number[] = [];
    const moreTimes: number[] = [];
    let count = 0;
    for (let i = 0; i < samples; i++) {
      const r = await timedGet(sc.url(i), lrsHeaders, agent);
      if (r.status !== 200) throw new Error(`${sc.name}: ${r.status} ${r.body.slice(0, 300)}`);
      times.push(r.ms);
      const page = JSON.parse(r.body) as { statements: unknown[]; more: string };
      count += page.statements.length;
      if (page.more && i % 4 === 0) {
        const m = await timedGet(`${service.baseUrl}${page.more}`, lrsHeaders, agent);
        if (m.status !== 200) throw new Error(`${sc.name} more: ${m.status}`);
        moreTimes.push(m.ms);
      }
    }
    const s = summarize(times);
    const m = moreTimes.length > 0 ? summarize(moreTimes) : null;
    queryRows.push([sc.name, fmtNumber(count / samples, 0), fmtMs(s.p50), fmtMs(s.p99), m ? fmtMs(m.p50) : '—', m ? fmtMs(m.p99) : '—', Math.max(s.p99, m?.p99 ?? 0) < P99_GOAL_MS ? 'ok' : 'MISS']);
  }
  out.push(`queries: GET /statements (limit 100), ${samples} sequential requests each after 5 warm-up; "more": the next page, every 4th request`);
  out.push(formatTable(['query', 'stmts/page', 'p50 ms', 'p99 ms', 'more p50', 'more p99', `goal p99 < ${P99_GOAL_MS} ms`], queryRows));
  process.stdout.write(`${out.join('\n')}\n`);
  await finish(service, runDir, profile);
}

/** With BENCH_PROFILE: stops the service (V8 writes the profile on exit) and prints where its CPU time went. */
async function finish(service: { pid: number }, runDir: string, profile: boolean): Promise<void> {
  if (!profile) return;
  process.kill(service.pid, 'SIGINT');
  const newest = () => {
    try {
      return readNewestProfile(join(runDir, 'profile'));
    } catch {
      return null; // not written yet
    }
  };
  for (let i = 0; i < 100 && newest() === null; i++) await new Promise((r) => setTimeout(r, 200));
  const found = newest();
  if (found) process.stdout.write(`\nCPU profile of the service (${found.file}):\n${formatProfileSummary(summarizeProfile(found.profile), 30)}\n`);
}

/** Drops the secondary indexes of tables; returns the ALTER TABLEs that put them back as they were. */
async function dropSecondaryIndexes(db: BenchDb, tables: string[]): Promise<string[]> {
  const rows = (await db.query(
    `SELECT TABLE_NAME AS t, INDEX_NAME AS i, MAX(NON_UNIQUE) AS nonUnique, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) AS cols
       FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (${tables.map(() => '?').join(', ')}) AND INDEX_NAME <> 'PRIMARY'
      GROUP BY TABLE_NAME, INDEX_NAME`,
    tables,
  )) as Array<{ t: string; i: string; nonUnique: number | string; cols: string }>;
  const restore: string[] = [];
  for (const table of tables) {
    const mine = rows.filter((r) => r.t === table);
    if (mine.length === 0) continue;
    await db.query(`ALTER TABLE \`${table}\` ${mine.map((r) => `DROP INDEX \`${r.i}\``).join(', ')}`);
    const add = mine.map((r) => `ADD ${Number(r.nonUnique) === 0 ? 'UNIQUE ' : ''}INDEX \`${r.i}\` (${r.cols.split(',').map((c) => `\`${c}\``).join(', ')})`);
    restore.push(`ALTER TABLE \`${table}\` ${add.join(', ')}`);
  }
  return restore;
}

main()
  .catch((err: unknown) => {
    failed = true;
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(() => runCleanups());
