/**
 * Courses list benchmark: GetCourses (`GET /api/v2/courses`, 100 courses a page) over one application with
 * 100,000 courses, at page 1, page 50 (courses 4,901–5,000) and the last page, plus with a common `tags=` filter
 * (10 %), a rare one (0.1 %), a `filter=…&filterBy=course_title` filter and `orderBy=title_asc|title_desc` (first,
 * 50th and last pages). The courses are seeded straight into the throw-away database of the service under test (a
 * child process) once it has migrated it.
 *
 *   npm run bench:courses-list                            # embedded stack (SQLite)
 *   BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306 BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:courses-list
 *
 * Settings (environment): BENCH_COURSES (100000), BENCH_SAMPLES (200 sequential requests per scenario),
 * BENCH_WARMUP_SAMPLES (20), BENCH_CONNECTIONS (16), BENCH_DURATION (s of the concurrent run, 5; 0: none),
 * BENCH_DB_SAMPLES (30 runs of each page's SQL straight on the database), BENCH_ANALYZE (auto: ANALYZE after seeding
 * on MySQL only; 1/0: always/never), BENCH_LOG_LEVEL, BENCH_ENV_<NAME>,
 * BENCH_JSON, BENCH_ASSERT, BENCH_KEEP. See bench/README.md.
 */
import { statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'node:http';
import { installExitHandlers, onCleanup, runCleanups } from '../lib/children';
import { envNumber, fmtMs, fmtNumber, formatTable } from '../lib/format';
import { getJson, keepAliveAgent, timedGet } from '../lib/http';
import { basicAuth, benchRunDir, createStack, ensureBuilt, LcdsService, REPO_ROOT, startService } from '../lib/lcds';
import { LoadResult, runLoad } from '../lib/load';
import { readProcMemory } from '../lib/proc';
import { summarize, Summary } from '../lib/stats';
import { idsFirst, ListScenarioQuery, PAGE_SIZE, pageQuery, rowsQuery, TAG_JOIN_MAX_ROWS, tagPlanQuery, tagsQuery, tokenState, versionsQuery } from './list-queries';
import { BenchDb, openBenchDb, SEED_RARE_TAG, SEED_TAG, SEED_TOPICS, seedCourses } from './seed-db';

/** p99 goal of the issue for every page, on MySQL. */
const P99_GOAL_MS = 20;
const TAG = SEED_TAG;
const RARE_TAG = SEED_RARE_TAG;
const TITLE_FILTER = 'topic-07';
const TOPICS = SEED_TOPICS;

interface Scenario {
  name: string;
  /** Path and query under /api/v2. */
  path: string;
  /** The same page as SQL (none for the ping baseline). */
  query?: ListScenarioQuery;
  /** Courses the page must hold. */
  expectCourses?: number;
}

interface ScenarioResult {
  scenario: Scenario;
  sequential: Summary;
  bodyBytes: number;
  concurrent?: LoadResult;
  /** The page's SQL run straight on the database (page query + versions + tags), ms. */
  db?: Summary;
}

interface Walk {
  label: string;
  pages: number;
  courses: number;
  totalMs: number;
  perPage: Summary;
  /** tokens[p] fetches page p (p ≥ 2). */
  tokens: Map<number, string>;
}

let failed = false;

/** Follows `more` from the first page to the last, timing every page; keeps the token of every page. */
async function walk(service: LcdsService, label: string, path: string, auth: string, agent: Agent): Promise<Walk> {
  const tokens = new Map<number, string>();
  const times: number[] = [];
  let courses = 0;
  let url = `${service.api}${path}`;
  const started = Date.now();
  for (let page = 1; ; page++) {
    const { body, ms } = await getJson<{ courses: unknown[]; more?: string }>(url, { authorization: auth }, agent);
    times.push(ms);
    courses += body.courses.length;
    if (!body.more) break;
    tokens.set(page + 1, body.more);
    url = `${service.api}/courses?more=${encodeURIComponent(body.more)}`;
  }
  return { label, pages: times.length, courses, totalMs: Date.now() - started, perPage: summarize(times), tokens };
}

async function measure(
  service: LcdsService,
  scenario: Scenario,
  auth: string,
  agent: Agent,
  opts: { samples: number; warmup: number; connections: number; durationS: number },
): Promise<ScenarioResult> {
  const url = `${service.api}${scenario.path}`;
  const headers = { authorization: auth };
  const first = await timedGet(url, headers, agent);
  if (first.status !== 200) throw new Error(`${scenario.name}: GET ${url} answered ${first.status}: ${first.body.slice(0, 500)}`);
  if (scenario.expectCourses !== undefined) {
    const got = (JSON.parse(first.body) as { courses: unknown[] }).courses.length;
    if (got !== scenario.expectCourses) throw new Error(`${scenario.name}: ${got} courses on the page, expected ${scenario.expectCourses}`);
  }
  for (let i = 0; i < opts.warmup; i++) await timedGet(url, headers, agent);
  const times: number[] = [];
  for (let i = 0; i < opts.samples; i++) {
    const r = await timedGet(url, headers, agent);
    if (r.status !== 200) throw new Error(`${scenario.name}: answered ${r.status}: ${r.body.slice(0, 500)}`);
    times.push(r.ms);
  }
  const concurrent = opts.durationS > 0 ? await runLoad({ url, headers, connections: opts.connections, durationS: opts.durationS }) : undefined;
  return { scenario, sequential: summarize(times), bodyBytes: Buffer.byteLength(first.body), concurrent };
}

/** Runs the page's SQL (tag plan on a first page, ids, rows, then versions and tags of its ids) straight on the database. */
async function timeDb(db: BenchDb, appId: string, query: ListScenarioQuery, runs: number): Promise<{ summary: Summary; ids: string[] }> {
  const times: number[] = [];
  let ids: string[] = [];
  for (let i = 0; i < runs + 3; i++) {
    const started = process.hrtime.bigint();
    const plan = tagPlanQuery(query);
    if (plan) await db.query(plan.sql, plan.params);
    const page = pageQuery(query);
    const candidates = await db.query(page.sql, page.params);
    ids = candidates.map((r: { lq_id: string }) => r.lq_id);
    if (ids.length > 0 && idsFirst(query)) {
      const r = rowsQuery(query, ids);
      const found = new Set((await db.query(r.sql, r.params)).map((row: { c_id: string }) => row.c_id));
      ids = ids.filter((id) => found.has(id));
    }
    ids = ids.slice(0, PAGE_SIZE);
    if (ids.length > 0) {
      const v = versionsQuery(appId, ids);
      await db.query(v.sql, v.params);
      const t = tagsQuery(appId, ids);
      await db.query(t.sql, t.params);
    }
    if (i >= 3) times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return { summary: summarize(times), ids };
}

async function main(): Promise<void> {
  installExitHandlers();
  const nCourses = Math.max(1, Math.floor(envNumber('BENCH_COURSES', 100_000)));
  const samples = Math.max(1, Math.floor(envNumber('BENCH_SAMPLES', 200)));
  const warmup = Math.floor(envNumber('BENCH_WARMUP_SAMPLES', 20));
  const connections = Math.max(1, Math.floor(envNumber('BENCH_CONNECTIONS', 16)));
  const durationS = envNumber('BENCH_DURATION', 5);
  const dbRuns = Math.max(1, Math.floor(envNumber('BENCH_DB_SAMPLES', 30)));
  const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info';

  await ensureBuilt();
  const runDir = benchRunDir('courses-list', () => failed);
  const stack = await createStack(runDir);
  const service = await startService(stack, { logFile: join(runDir, 'service.log'), logLevel });
  const appId = service.firstStart.application.appId;
  const auth = basicAuth(service.firstStart.application);
  const agent = keepAliveAgent();

  // The service has migrated at start (the credentials line comes after): seed behind its back.
  const db = await openBenchDb(stack);
  onCleanup('close the seeding connection', () => db.close());
  const load0 = loadavg()[0];
  process.stderr.write(`seeding ${nCourses.toLocaleString('en-US')} courses…\n`);
  // MySQL/MariaDB recomputes index statistics by itself after a bulk change (innodb_stats_auto_recalc), in the
  // background: ANALYZE makes that happen now. The service never runs ANALYZE on SQLite, so by default neither
  // does the benchmark there (the planner then works without statistics, as in production).
  const analyzeSetting = process.env.BENCH_ANALYZE ?? 'auto';
  const analyze = analyzeSetting === 'auto' ? db.kind === 'mysql' : analyzeSetting === '1';
  const seeded = await seedCourses(db, appId, nCourses, analyze);
  const counted = await getJson<{ courses: unknown[] }>(`${service.api}/courses?includeTotalCount=true`, { authorization: auth }, agent);
  if (Number(counted.headers['x-total-count']) !== nCourses) throw new Error(`X-Total-Count is ${String(counted.headers['x-total-count'])}, expected ${nCourses}`);

  process.stdout.write(
    [
      `courses list benchmark — GET /api/v2/courses (${PAGE_SIZE} a page, orderBy created_desc unless named), ${nCourses.toLocaleString('en-US')} courses in one application`,
      `stack: ${stack.label}; service LOG_LEVEL=${logLevel}, NODE_ENV=production; basic auth; ${samples} sequential requests per scenario after ${warmup} warm-up` +
        (durationS > 0 ? `, then ${connections} connections for ${durationS} s (autocannon)` : ''),
      `node ${process.version}, ${cpus().length} CPU(s) ${cpus()[0]?.model ?? ''}, load average ${load0.toFixed(2)} before the run`,
      `service: dist/main.js built ${statSync(join(REPO_ROOT, 'dist', 'main.js')).mtime.toISOString()}`,
      `seeded ${nCourses.toLocaleString('en-US')} courses + versions and ${seeded.tagged.toLocaleString('en-US')} + ${seeded.rare.toLocaleString('en-US')} tags (${TAG}, ${RARE_TAG}) in ${(seeded.ms / 1000).toFixed(1)} s ` +
        `(${db.kind === 'mysql' ? 'multi-row INSERTs of 1,000' : 'prepared statements'}, one transaction per table${analyze ? ', then ANALYZE' : ', no ANALYZE'})`,
      '',
    ].join('\n'),
  );

  // Walk every list once (the client's path to a deep page), keeping the tokens; the title_desc list only has its page 1 measured.
  const titleFilter = `filter=${TITLE_FILTER}&filterBy=course_title`;
  const lists: Array<{ label: string; path: string; extra: Omit<ListScenarioQuery, 'appId' | 'after' | 'tagPlan'>; expected: number | null; walk: boolean }> = [
    { label: 'all courses', path: '/courses', extra: {}, expected: nCourses, walk: true },
    { label: `tags=${TAG}`, path: `/courses?tags=${TAG}`, extra: { tags: [TAG] }, expected: seeded.tagged, walk: true },
    { label: `tags=${RARE_TAG}`, path: `/courses?tags=${RARE_TAG}`, extra: { tags: [RARE_TAG] }, expected: seeded.rare, walk: true },
    { label: `title ~ ${TITLE_FILTER}`, path: `/courses?${titleFilter}`, extra: { titleFilter: TITLE_FILTER }, expected: nCourses < TOPICS ? null : Math.ceil(nCourses / TOPICS), walk: true },
    { label: 'orderBy=title_asc', path: '/courses?orderBy=title_asc', extra: { orderBy: 'title_asc' }, expected: nCourses, walk: true },
    { label: 'orderBy=title_desc', path: '/courses?orderBy=title_desc', extra: { orderBy: 'title_desc' }, expected: nCourses, walk: false },
    {
      label: `title_asc, title ~ ${TITLE_FILTER}`,
      path: `/courses?orderBy=title_asc&${titleFilter}`,
      extra: { orderBy: 'title_asc', titleFilter: TITLE_FILTER },
      expected: nCourses < TOPICS ? null : Math.ceil(nCourses / TOPICS),
      walk: true,
    },
  ];
  process.stderr.write('walking the pages…\n');
  const walks: Walk[] = [];
  const scenarios: Scenario[] = [{ name: 'ping (baseline, no DB)', path: '/ping' }];
  const lastSize = (total: number) => (total % PAGE_SIZE === 0 ? PAGE_SIZE : total % PAGE_SIZE);
  /** The tag plan the service picks on a first page (TagsService.tagFilterPlan). */
  const planOf = async (extra: { tags?: readonly string[] }): Promise<'join' | 'probe' | undefined> => {
    const q = tagPlanQuery({ appId, ...extra });
    if (!q) return undefined;
    return Number((await db.query(q.sql, q.params))[0]?.n ?? 0) > TAG_JOIN_MAX_ROWS ? 'probe' : 'join';
  };
  for (const list of lists) {
    const tagPlan = await planOf(list.extra);
    const planNote = tagPlan ? ` [${tagPlan}]` : '';
    const first: Scenario = { name: `${list.label}, page 1${planNote}`, path: list.path, query: { appId, ...list.extra, tagPlan }, expectCourses: Math.min(PAGE_SIZE, list.expected ?? PAGE_SIZE) };
    if (!list.walk) {
      scenarios.push(first);
      continue;
    }
    const w = await walk(service, list.label, list.path, auth, agent);
    walks.push(w);
    if (list.expected !== null && w.courses !== list.expected) throw new Error(`${w.label}: walked ${w.courses} courses, expected ${list.expected}`);
    first.expectCourses = Math.min(PAGE_SIZE, w.courses);
    scenarios.push(first);
    const later = (page: number, name: string) => {
      const state = tokenState(w.tokens.get(page)!);
      scenarios.push({
        name: `${list.label}, ${name}${planNote}`,
        path: `/courses?more=${encodeURIComponent(w.tokens.get(page)!)}`,
        query: { appId, ...list.extra, tagPlan: state.tagPlan, after: state.after },
        expectCourses: page === w.pages ? lastSize(w.courses) : PAGE_SIZE,
      });
    };
    if (w.pages > 50) later(50, `page 50 (courses 4,901–5,000)`);
    if (w.pages > 1) later(w.pages, `page ${w.pages.toLocaleString('en-US')} (last)`);
  }

  const results: ScenarioResult[] = [];
  for (const s of scenarios) {
    process.stderr.write(`  ${s.name}…\n`);
    results.push(await measure(service, s, auth, agent, { samples, warmup, connections, durationS }));
  }
  const servicePeak = readProcMemory(service.pid);

  // The same pages straight on the database: how much of the time is SQL, and the plans.
  const plans: string[] = [];
  for (const r of results) {
    if (!r.scenario.query) continue;
    const timed = await timeDb(db, appId, r.scenario.query, dbRuns);
    r.db = timed.summary;
    const api = await getJson<{ courses: Array<{ id: string }> }>(`${service.api}${r.scenario.path}`, { authorization: auth }, agent);
    const apiIds = api.body.courses.map((c) => c.id).join(',');
    if (apiIds !== timed.ids.join(',')) {
      throw new Error(`${r.scenario.name}: the rebuilt SQL answers other courses than the API (bench/courses-list/list-queries.ts is out of date with the service)`);
    }
    const page = pageQuery(r.scenario.query);
    plans.push(`${r.scenario.name}:`, ...(await db.explain(page.sql, page.params)).map((l) => `    ${l}`));
  }
  const sampleIds = (await db.query(pageQuery({ appId }).sql, pageQuery({ appId }).params)).slice(0, PAGE_SIZE).map((r: { lq_id: string }) => r.lq_id);
  const vq = versionsQuery(appId, sampleIds);
  const tq = tagsQuery(appId, sampleIds);
  plans.push('versions of a page (describe):', ...(await db.explain(vq.sql, vq.params)).map((l) => `    ${l}`));
  plans.push('tags of a page (describe):', ...(await db.explain(tq.sql, tq.params)).map((l) => `    ${l}`));

  const goalApplies = stack.kind === 'production';
  const header = ['scenario', 'p50 ms', 'p99 ms', 'max ms', 'SQL p50', 'KiB', ...(durationS > 0 ? [`req/s @${connections}`, 'p50 ms', 'p99 ms', 'err/non-2xx'] : []), `p99 < ${P99_GOAL_MS} ms`];
  const rows = results.map((r) => {
    const isList = r.scenario.query !== undefined;
    const met = r.sequential.p99 < P99_GOAL_MS;
    return [
      r.scenario.name,
      fmtMs(r.sequential.p50),
      fmtMs(r.sequential.p99),
      fmtMs(r.sequential.max),
      r.db ? fmtMs(r.db.p50) : '—',
      (r.bodyBytes / 1024).toFixed(1),
      ...(r.concurrent
        ? [fmtNumber(r.concurrent.reqPerSec), fmtMs(r.concurrent.latency.p50), fmtMs(r.concurrent.latency.p99), `${r.concurrent.errors}/${r.concurrent.non2xx}`]
        : durationS > 0
          ? ['', '', '', '']
          : []),
      isList ? `${met ? 'MET' : 'MISS'}${goalApplies ? '' : ' (info)'}` : '',
    ];
  });
  process.stdout.write(formatTable(header, rows) + '\n\n');
  process.stdout.write(
    formatTable(
      ['walk (every page, sequential)', 'pages', 'courses', 'total s', 'p50 ms', 'p99 ms', 'max ms'],
      walks.map((w) => [w.label, fmtNumber(w.pages), fmtNumber(w.courses), (w.totalMs / 1000).toFixed(2), fmtMs(w.perPage.p50), fmtMs(w.perPage.p99), fmtMs(w.perPage.max)]),
    ) + '\n\n',
  );
  process.stdout.write(`query plans (${db.planLabel}; SQL rebuilt from the service's query builders, checked against the API's pages):\n${plans.join('\n')}\n\n`);
  process.stdout.write(
    [
      `service peak RSS (VmHWM): ${((servicePeak?.peakRss ?? NaN) / 1024 / 1024).toFixed(1)} MiB`,
      `load average: ${load0.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after`,
      `(p50/p99/max: ${samples} sequential requests on one keep-alive connection, client-side wall time to the last byte;`,
      ' SQL p50: the page query + versions + tags of its ids run straight on the database by the benchmark, the rest of the',
      ` request time is the service (auth, Nest, TypeORM hydration, JSON); the p99 goal of the issue applies to MySQL${goalApplies ? '' : ' — marked (info) here'})`,
      '',
    ].join('\n'),
  );

  const listResults = results.filter((r) => r.scenario.query);
  const goalsMet = listResults.every((r) => r.sequential.p99 < P99_GOAL_MS);
  if (process.env.BENCH_JSON) {
    writeFileSync(
      process.env.BENCH_JSON,
      JSON.stringify(
        {
          bench: 'courses-list',
          date: new Date().toISOString(),
          node: process.version,
          cpus: cpus().length,
          stack: stack.kind,
          settings: { nCourses, samples, warmup, connections, durationS, dbRuns, logLevel },
          seedMs: seeded.ms,
          results: results.map((r) => ({ name: r.scenario.name, sequential: r.sequential, db: r.db, bodyBytes: r.bodyBytes, concurrent: r.concurrent })),
          walks: walks.map((w) => ({ label: w.label, pages: w.pages, courses: w.courses, totalMs: w.totalMs, perPage: w.perPage })),
          plans,
          goalsMet,
        },
        null,
        2,
      ) + '\n',
    );
  }
  agent.destroy();
  await service.stop();
  if (process.env.BENCH_ASSERT === '1' && goalApplies && !goalsMet) process.exitCode = 1;
}

void main()
  .catch((err: unknown) => {
    failed = true;
    process.stderr.write(`courses-list benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(() => runCleanups());
