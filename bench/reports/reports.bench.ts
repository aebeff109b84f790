/**
 * Report viewer benchmark: the data request of each report page (`GET /api/v2/lcds/reports/…`) and the page load in
 * chromium (from opening a report link to its figures on screen) over one application with 1,000,000 registrations,
 * 1,000 of which (in one course) carry runtime interactions for the course page's question analysis.
 *
 *   npm run bench:reports                                        # embedded stack (SQLite)
 *   BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306 BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:reports
 *
 * Settings (environment): BENCH_REGISTRATIONS (1000000), BENCH_SAMPLES (20 sequential data requests per page),
 * BENCH_PAGE_SAMPLES (10 page loads per page), BENCH_ANALYZE (auto: on MySQL only), BENCH_LOG_LEVEL, BENCH_KEEP.
 */
import { execFile } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { openBenchDb } from '../courses-list/seed-db';
import { installExitHandlers, onCleanup, runCleanups } from '../lib/children';
import { envNumber, fmtMs, fmtNumber, formatTable } from '../lib/format';
import { keepAliveAgent, timedGet } from '../lib/http';
import { basicAuth, benchRunDir, createStack, ensureBuilt, REPO_ROOT, startService } from '../lib/lcds';
import { summarize } from '../lib/stats';
import { COURSES, seed } from '../registrations-list/seed-registrations';

const P95_GOAL_MS = 1000;
const QUESTION_COURSE = 7;
const WITH_INTERACTIONS = 1000;

let failed = false;

/** The tree of a registration that answered three questions (the learner's answer depends on its number). */
function answeredTree(i: number): string {
  const q = (id: string, response: string, correct: string, latency: string) => ({ id, type: 'choice', description: `Question ${id}`, learner_response: response, result: response === correct ? 'correct' : 'incorrect', latency });
  const sco = {
    id: 'sco', title: 'Lesson', attempts: 1, activityCompletion: 'COMPLETED', activitySuccess: i % 3 === 0 ? 'FAILED' : 'PASSED', timeTracked: '0000:05:00', suspended: false, objectives: [], children: [],
    runtime: { runtimeInteractions: [q('q1', ['a', 'b', 'c'][i % 3], 'a', 'PT12S'), q('q2', ['b', 'b', 'd'][i % 3], 'b', 'PT20S'), q('q3', ['c', 'a', 'c', 'c'][i % 4], 'c', 'PT8S')] },
  };
  return JSON.stringify({ id: 'course', title: 'Course', attempts: 1, activityCompletion: 'COMPLETED', activitySuccess: sco.activitySuccess, timeTracked: '0000:05:00', suspended: false, objectives: [], children: [sco] });
}

async function main(): Promise<void> {
  installExitHandlers();
  const n = Math.max(10_000, Math.floor(envNumber('BENCH_REGISTRATIONS', 1_000_000)));
  const samples = Math.max(1, Math.floor(envNumber('BENCH_SAMPLES', 20)));
  const pageSamples = Math.max(1, Math.floor(envNumber('BENCH_PAGE_SAMPLES', 10)));
  const logLevel = process.env.BENCH_LOG_LEVEL ?? 'warn';

  await ensureBuilt();
  const runDir = benchRunDir('reports', () => failed);
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
  // Registration k belongs to course-(k % COURSES): the newest WITH_INTERACTIONS of course-07 answered questions (the
  // course page's question analysis reads its newest registrations' trees).
  const inCourse = Math.floor((n - 1 - QUESTION_COURSE) / COURSES) + 1;
  const answered = Array.from({ length: Math.min(WITH_INTERACTIONS, inCourse) }, (_, j) => QUESTION_COURSE + (inCourse - 1 - j) * COURSES);
  for (const k of answered) {
    await db.query('UPDATE registration_instance SET activity_details = ?, completion = ?, success = ?, completed_at = created_at WHERE app_id = ? AND registration_id = ? AND instance = 0', [
      answeredTree(k),
      'COMPLETED',
      k % 3 === 0 ? 'FAILED' : 'PASSED',
      appId,
      `reg-${String(k).padStart(7, '0')}`,
    ]);
  }
  // The report summaries of the seeded registrations, as an upgraded installation builds them: `lcds reports rebuild`.
  process.stderr.write('lcds reports rebuild…\n');
  const rebuildStarted = Date.now();
  const rebuilt = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), 'reports', 'rebuild', '--app', appId, '--json'], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? REPO_ROOT, ...stack.env, LCDS_RUN_MIGRATIONS: 'false' }, maxBuffer: 1 << 24 }, (err, stdout, stderr) =>
      err ? reject(new Error(`lcds reports rebuild failed: ${stderr || err.message}`)) : resolve(stdout),
    ),
  );
  const rebuildMs = Date.now() - rebuildStarted;
  process.stderr.write(`  ${rebuilt.trim()}\n`);
  const course = `course-${String(QUESTION_COURSE).padStart(2, '0')}`;
  const pages = [
    { name: 'application', data: '/lcds/reports/application', page: '/reports/' },
    { name: 'application, one month', data: '/lcds/reports/application?from=2024-03-01&to=2024-03-31', page: '/reports/?from=2024-03-01&to=2024-03-31' },
    { name: `course (${fmtNumber(Math.ceil(n / COURSES))} registrations)`, data: `/lcds/reports/courses/${course}`, page: `/reports/courses/${course}` },
    { name: 'learner', data: '/lcds/reports/learners/learner-123', page: '/reports/learners/learner-123' },
    { name: 'registration', data: `/lcds/reports/registrations/reg-${String(answered[0]).padStart(7, '0')}`, page: `/reports/registrations/reg-${String(answered[0]).padStart(7, '0')}` },
  ];

  const dataResults = [];
  for (const p of pages) {
    process.stderr.write(`  data: ${p.name}…\n`);
    const url = `${service.api}${p.data}`;
    const first = await timedGet(url, { authorization: auth }, agent);
    if (first.status !== 200) throw new Error(`${p.name}: answered ${first.status}: ${first.body.slice(0, 300)}`);
    if (p.data.includes('/courses/')) {
      // The question analysis reads the answered trees: three questions, each answered by every one of them.
      const questions = (JSON.parse(first.body) as { questions: Array<{ id: string; answered: number }> }).questions;
      if (questions.length !== 3 || questions.some((q) => q.answered !== answered.length)) throw new Error(`course page: unexpected question analysis ${JSON.stringify(questions)}`);
    }
    const times: number[] = [];
    for (let i = 0; i < samples; i++) times.push((await timedGet(url, { authorization: auth }, agent)).ms);
    dataResults.push({ name: p.name, summary: summarize(times) });
  }

  // Page loads: a FREENAV link per page, opened in a fresh tab; done when the page's figures are on screen.
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  onCleanup('close chromium', () => browser.close());
  const grant = (await (await fetch(`${service.api}/reporting/reportageAuth?navPermission=FREENAV`, { headers: { authorization: auth } })).json()) as { queryString: string };
  const pageResults = [];
  const breakdown: string[] = [];
  for (const p of pages) {
    process.stderr.write(`  page: ${p.name}…\n`);
    const times: number[] = [];
    const inPage: Array<{ scriptDone: number; dataStart: number; data: number; now: number }> = [];
    for (let i = 0; i <= pageSamples; i++) {
      const linkRes = await fetch(`${service.api}/reporting/reportageLink?${new URLSearchParams({ auth: grant.queryString, reportUrl: p.page })}`, { headers: { authorization: auth } });
      const { reportageLink } = (await linkRes.json()) as { reportageLink: string };
      const context = await browser.newContext();
      const tab = await context.newPage();
      const started = Date.now();
      await tab.goto(reportageLink);
      // Done when the page shows its data: its figures, or (learner) its table.
      await tab.locator('dl.figures, .table-scroll').first().waitFor({ timeout: 120_000 });
      if (i > 0) {
        times.push(Date.now() - started); // the first load warms the browser's cache of the assets
        // Where the time went, by the page's own clock: its script running, and its data request.
        const timing = await tab.evaluate(() => {
          const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
          const script = resources.find((e) => e.name.includes('/web-assets/') && e.name.endsWith('.js'));
          const data = resources.find((e) => e.name.includes('/api/v2/lcds/reports/'));
          return { scriptDone: script ? script.responseEnd : 0, dataStart: data ? data.startTime : 0, data: data ? data.duration : 0, now: performance.now() };
        });
        inPage.push(timing);
      }
      await context.close();
    }
    const med = (f: (t: (typeof inPage)[number]) => number) => fmtMs(summarize(inPage.map(f)).p50);
    pageResults.push({ name: p.name, summary: summarize(times) });
    breakdown.push(`  ${p.name}: assets loaded ${med((t) => t.scriptDone)}, data request sent ${med((t) => t.dataStart)} and answered in ${med((t) => t.data)}, figures on screen ${med((t) => t.now)} ms after navigation (p50)`);
  }

  const goalApplies = stack.kind === 'production';
  const row = (kind: string, r: { name: string; summary: ReturnType<typeof summarize> }) => [kind, r.name, fmtMs(r.summary.p50), fmtMs(r.summary.p95), fmtMs(r.summary.max), `${r.summary.p95 < P95_GOAL_MS ? 'MET' : 'MISS'}${goalApplies ? '' : ' (info)'}`];
  process.stdout.write(
    [
      `reports benchmark — report viewer data requests and page loads, ${fmtNumber(n)} registrations in one application (${answered.length} with runtime interactions in ${course})`,
      `stack: ${stack.label}; ${samples} data requests and ${pageSamples} page loads per page, sequential; node ${process.version}, ${cpus().length} CPU(s), load average ${load0.toFixed(2)} before`,
      `seeded in ${(seeded.ms / 1000).toFixed(1)} s; report summaries rebuilt (lcds reports rebuild) in ${(rebuildMs / 1000).toFixed(1)} s`,
      '',
      formatTable(['what', 'page', 'p50 ms', 'p95 ms', 'max ms', `p95 < ${P95_GOAL_MS} ms`], [...dataResults.map((r) => row('data request', r)), ...pageResults.map((r) => row('page load (chromium)', r))]),
      'page loads, by the page’s clock:',
      ...breakdown,
      `load average after: ${loadavg()[0].toFixed(2)}`,
      '',
    ].join('\n'),
  );
  agent.destroy();
  await service.stop();
}

void main()
  .catch((err: unknown) => {
    failed = true;
    process.stderr.write(`reports benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(() => runCleanups());
