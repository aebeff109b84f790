/**
 * Registrations list benchmark: GetRegistrations (`GET /api/v2/registrations`, 10 a page) over one application with
 * 1,000,000 registrations (each with its instance), at page 1, page 2, deep pages (after walking
 * BENCH_WALK_PAGES pages with `more`, and at the far end of the list through `until`), and with the filters the
 * API has: courseId, learnerId, since/until and tags (a common and a rare tag). The rows are bulk-inserted
 * straight into the throw-away database of the service under test once it has migrated it. Paging is checked on
 * the way: no row twice, newest first, and the filtered walks find exactly the seeded rows.
 *
 *   npm run bench:registrations-list                            # embedded stack (SQLite)
 *   BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306 BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:registrations-list
 *
 * Settings (environment): BENCH_REGISTRATIONS (1000000), BENCH_WALK_PAGES (1000), BENCH_SAMPLES (200 sequential
 * requests per scenario), BENCH_WARMUP_SAMPLES (20), BENCH_ANALYZE (auto: on MySQL only), BENCH_LOG_LEVEL,
 * BENCH_ENV_<NAME>, BENCH_JSON, BENCH_ASSERT, BENCH_KEEP.
 */
import { statSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { openBenchDb } from '../courses-list/seed-db';
import { COMMON_EVERY, COMMON_TAG, COURSES, createdOf, LEARNERS, RARE_EVERY, RARE_TAG, seed } from './seed-registrations';
import { installExitHandlers, onCleanup, runCleanups } from '../lib/children';
import { envNumber, fmtMs, fmtNumber, formatTable } from '../lib/format';
import { getJson, keepAliveAgent, timedGet } from '../lib/http';
import { basicAuth, benchRunDir, createStack, ensureBuilt, LcdsService, REPO_ROOT, startService } from '../lib/lcds';
import { readProcCpuSeconds, readProcMemory } from '../lib/proc';
import { summarize, Summary } from '../lib/stats';

const P99_GOAL_MS = 20;
const PAGE_SIZE = 10;

let failed = false;

interface Page {
  registrations: Array<{ id: string; createdDate: string; course: { id: string }; learner: { id: string }; tags: string[] }>;
  more?: string;
}

/** Follows `more` for up to maxPages pages; checks order (newest first, then id descending) and that no row comes twice. */
async function walk(service: LcdsService, auth: string, agent: Agent, query: string, maxPages: number, check?: (r: Page['registrations'][number]) => boolean) {
  const seen = new Set<string>();
  const times: number[] = [];
  const tokens: string[] = [];
  let url = `${service.api}/registrations${query}`;
  let prev: { created: string; id: string } | undefined;
  for (let p = 1; p <= maxPages; p++) {
    const { body, ms } = await getJson<Page>(url, { authorization: auth }, agent);
    times.push(ms);
    for (const r of body.registrations) {
      if (seen.has(r.id)) throw new Error(`${query}: ${r.id} came twice (page ${p})`);
      seen.add(r.id);
      if (prev && (r.createdDate > prev.created || (r.createdDate === prev.created && r.id > prev.id))) throw new Error(`${query}: ${r.id} is out of order after ${prev.id}`);
      if (check && !check(r)) throw new Error(`${query}: ${r.id} does not match the filter`);
      prev = { created: r.createdDate, id: r.id };
    }
    if (!body.more) break;
    tokens.push(body.more);
    url = `${service.api}/registrations?more=${encodeURIComponent(body.more)}`;
  }
  return { rows: seen.size, pages: times.length, perPage: summarize(times), tokens };
}

interface Scenario {
  name: string;
  path: string;
  expect?: number;
}

async function measure(service: LcdsService, auth: string, agent: Agent, s: Scenario, samples: number, warmup: number): Promise<{ scenario: Scenario; summary: Summary; rows: number; cpuMs: number }> {
  const url = `${service.api}${s.path}`;
  const first = await timedGet(url, { authorization: auth }, agent);
  if (first.status !== 200) throw new Error(`${s.name}: answered ${first.status}: ${first.body.slice(0, 300)}`);
  const rows = (JSON.parse(first.body) as Partial<Page>).registrations?.length ?? 0;
  if (s.expect !== undefined && rows !== s.expect) throw new Error(`${s.name}: ${rows} registrations on the page, expected ${s.expect}`);
  for (let i = 0; i < warmup; i++) await timedGet(url, { authorization: auth }, agent);
  const times: number[] = [];
  // The service's own CPU time per request: what the machine's load does not change (unlike wall-clock latency).
  const cpu0 = readProcCpuSeconds(service.pid);
  for (let i = 0; i < samples; i++) {
    const r = await timedGet(url, { authorization: auth }, agent);
    if (r.status !== 200) throw new Error(`${s.name}: answered ${r.status}`);
    times.push(r.ms);
  }
  const cpuMs = ((readProcCpuSeconds(service.pid) - cpu0) * 1000) / samples;
  return { scenario: s, summary: summarize(times), rows, cpuMs };
}

async function main(): Promise<void> {
  installExitHandlers();
  const n = Math.max(100, Math.floor(envNumber('BENCH_REGISTRATIONS', 1_000_000)));
  const walkPages = Math.max(2, Math.floor(envNumber('BENCH_WALK_PAGES', 1000)));
  const samples = Math.max(1, Math.floor(envNumber('BENCH_SAMPLES', 200)));
  const warmup = Math.floor(envNumber('BENCH_WARMUP_SAMPLES', 20));
  const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info';

  await ensureBuilt();
  const runDir = benchRunDir('registrations-list', () => failed);
  const stack = await createStack(runDir);
  const service = await startService(stack, { logFile: join(runDir, 'service.log'), logLevel });
  const appId = service.firstStart.application.appId;
  const auth = basicAuth(service.firstStart.application);
  const agent = keepAliveAgent();
  const db = await openBenchDb(stack);
  onCleanup('close the seeding connection', () => db.close());
  const load0 = loadavg()[0];
  const analyzeSetting = process.env.BENCH_ANALYZE ?? 'auto';
  const analyze = analyzeSetting === 'auto' ? db.kind === 'mysql' : analyzeSetting === '1';
  process.stderr.write(`seeding ${fmtNumber(n)} registrations…\n`);
  const seeded = await seed(db, appId, n, analyze);

  // Paging checks (and the deep tokens): the newest registrations first, each once; filtered walks find exactly theirs.
  process.stderr.write(`walking ${walkPages} pages…\n`);
  const all = await walk(service, auth, agent, '', walkPages);
  if (all.rows !== Math.min(n, walkPages * PAGE_SIZE)) throw new Error(`walked ${all.rows} registrations, expected ${Math.min(n, walkPages * PAGE_SIZE)}`);
  const learnerId = 'learner-123';
  const byLearner = await walk(service, auth, agent, `?learnerId=${learnerId}`, 1000, (r) => r.learner.id === learnerId);
  const learnerRows = Math.ceil((n - 123) / LEARNERS);
  if (byLearner.rows !== learnerRows) throw new Error(`learnerId walk found ${byLearner.rows}, expected ${learnerRows}`);
  const rare = await walk(service, auth, agent, `?tags=${RARE_TAG}`, 1000, (r) => r.tags.includes(RARE_TAG));
  if (rare.rows !== seeded.rare) throw new Error(`tags=${RARE_TAG} walk found ${rare.rows}, expected ${seeded.rare}`);
  const course = 'course-07';
  const byCourse = await walk(service, auth, agent, `?courseId=${course}`, 3, (r) => r.course.id === course);
  const commonWalk = await walk(service, auth, agent, `?tags=${COMMON_TAG}`, 3, (r) => r.tags.includes(COMMON_TAG));

  // The far end of the list: page 2 of `until` near the oldest registration (the keyset position ~n - 30).
  const oldEnd = createdOf(40).toISOString();
  const farEnd = await walk(service, auth, agent, `?until=${encodeURIComponent(oldEnd)}`, 2);
  const farCourse = await walk(service, auth, agent, `?courseId=${course}&until=${encodeURIComponent(createdOf(4000).toISOString())}`, 2);
  const farCommon = await walk(service, auth, agent, `?tags=${COMMON_TAG}&until=${encodeURIComponent(createdOf(400).toISOString())}`, 2);
  const mid = Math.floor(n / 2);
  const window = `since=${encodeURIComponent(createdOf(mid).toISOString())}&until=${encodeURIComponent(createdOf(mid + 1000).toISOString())}`;
  const token = (w: { tokens: string[] }, i: number) => `/registrations?more=${encodeURIComponent(w.tokens[i])}`;
  const scenarios: Scenario[] = [
    { name: 'ping (baseline, no DB)', path: '/ping' },
    { name: 'page 1', path: '/registrations', expect: PAGE_SIZE },
    { name: 'page 2', path: token(all, 0), expect: PAGE_SIZE },
    { name: `page ${fmtNumber(all.pages)} (walked)`, path: token(all, all.tokens.length - 1), expect: PAGE_SIZE },
    { name: `far end (until, ~row ${fmtNumber(n - 30)})`, path: token(farEnd, 0), expect: PAGE_SIZE },
    { name: 'includeChildResults+Runtime, page 1', path: '/registrations?includeChildResults=true&includeRuntime=true', expect: PAGE_SIZE },
    { name: `courseId, page 1`, path: `/registrations?courseId=${course}`, expect: PAGE_SIZE },
    { name: `courseId, page 3`, path: token(byCourse, 1), expect: PAGE_SIZE },
    { name: `courseId, far end`, path: token(farCourse, 0), expect: PAGE_SIZE },
    { name: `learnerId, page 1`, path: `/registrations?learnerId=${learnerId}`, expect: Math.min(PAGE_SIZE, learnerRows) },
    { name: `since+until (1,000 rows), page 1`, path: `/registrations?${window}`, expect: PAGE_SIZE },
    { name: `tags=${COMMON_TAG} (1 in ${COMMON_EVERY}), page 1`, path: `/registrations?tags=${COMMON_TAG}`, expect: PAGE_SIZE },
    { name: `tags=${COMMON_TAG}, page 3`, path: token(commonWalk, 1), expect: PAGE_SIZE },
    { name: `tags=${COMMON_TAG}, far end`, path: token(farCommon, 0), expect: PAGE_SIZE },
    { name: `tags=${RARE_TAG} (1 in ${RARE_EVERY}), page 1`, path: `/registrations?tags=${RARE_TAG}`, expect: PAGE_SIZE },
    { name: `tags=${RARE_TAG}, last page`, path: token(rare, rare.tokens.length - 1) },
    { name: `courseId+tags=${RARE_TAG}, page 1`, path: `/registrations?courseId=course-07&tags=${RARE_TAG}` },
  ];
  const results = [];
  for (const s of scenarios) {
    process.stderr.write(`  ${s.name}…\n`);
    results.push(await measure(service, auth, agent, s, samples, warmup));
  }
  const peak = readProcMemory(service.pid);
  const goalApplies = stack.kind === 'production';
  const lists = results.filter((r) => r.scenario.path !== '/ping');
  const goalsMet = lists.every((r) => r.summary.p99 < P99_GOAL_MS);

  process.stdout.write(
    [
      `registrations list benchmark — GET /api/v2/registrations (${PAGE_SIZE} a page, newest first), ${fmtNumber(n)} registrations in one application`,
      `stack: ${stack.label}; service LOG_LEVEL=${logLevel}, NODE_ENV=production; basic auth; ${samples} sequential requests per scenario after ${warmup} warm-up`,
      `node ${process.version}, ${cpus().length} CPU(s) ${cpus()[0]?.model ?? ''}, load average ${load0.toFixed(2)} before the run`,
      `service: dist/main.js built ${statSync(join(REPO_ROOT, 'dist', 'main.js')).mtime.toISOString()}`,
      `seeded ${fmtNumber(n)} registrations + instances, ${COURSES} courses, ${fmtNumber(seeded.common)} + ${fmtNumber(seeded.rare)} tags in ${(seeded.ms / 1000).toFixed(1)} s` +
        ` (${fmtNumber(n / (seeded.ms / 1000))} registrations/s${analyze ? ', then ANALYZE' : ''})`,
      `paging checked: ${fmtNumber(all.rows)} rows over ${all.pages} pages in order, each once; learnerId ${byLearner.rows}/${learnerRows}, tags=${RARE_TAG} ${rare.rows}/${seeded.rare} rows`,
      '',
    ].join('\n'),
  );
  process.stdout.write(
    formatTable(
      ['scenario', 'rows', 'p50 ms', 'p99 ms', 'max ms', 'service CPU ms/req', `p99 < ${P99_GOAL_MS} ms`],
      results.map((r) => [r.scenario.name, String(r.rows), fmtMs(r.summary.p50), fmtMs(r.summary.p99), fmtMs(r.summary.max), r.cpuMs.toFixed(2), r.scenario.path === '/ping' ? '' : `${r.summary.p99 < P99_GOAL_MS ? 'MET' : 'MISS'}${goalApplies ? '' : ' (info)'}`]),
    ) + '\n\n',
  );
  process.stdout.write(
    [
      `walk of ${all.pages} pages: p50 ${fmtMs(all.perPage.p50)} ms, p99 ${fmtMs(all.perPage.p99)} ms per page`,
      `service peak RSS (VmHWM): ${((peak?.peakRss ?? NaN) / 1024 / 1024).toFixed(1)} MiB`,
      `load average: ${load0.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after`,
      '',
    ].join('\n'),
  );
  if (process.env.BENCH_JSON) {
    writeFileSync(
      process.env.BENCH_JSON,
      JSON.stringify({ bench: 'registrations-list', date: new Date().toISOString(), stack: stack.kind, n, seedMs: seeded.ms, results: results.map((r) => ({ name: r.scenario.name, rows: r.rows, cpuMs: r.cpuMs, ...r.summary })), goalsMet }, null, 2) + '\n',
    );
  }
  agent.destroy();
  await service.stop();
  if (process.env.BENCH_ASSERT === '1' && goalApplies && !goalsMet) process.exitCode = 1;
}

void main()
  .catch((err: unknown) => {
    failed = true;
    process.stderr.write(`registrations-list benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(() => runCleanups());
