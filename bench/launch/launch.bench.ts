/**
 * Launch benchmark: how long a learner waits from opening a launch link to the SCO's first API call (`Initialize`)
 * and to its first commit stored by the service, in a real browser (Debian's chromium through playwright-core),
 * for a single-SCO course and a 55-activity sequenced SCORM 2004 course (5 modules × 10 SCOs, rules, rollup and
 * shared global objectives). Each launch is a new registration's launch link opened in a new tab (links work once),
 * one after the other, as learners arrive; the service runs in a child process as in production.
 *
 *   npm run bench:launch                                    # embedded stack (SQLite)
 *   BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306 BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:launch
 *
 * Settings (environment): BENCH_LAUNCHES (200 per course), BENCH_WARMUP (10 launches per course, not counted),
 * BENCH_LOG_LEVEL, BENCH_ENV_<NAME>, BENCH_JSON (write the figures to this file), BENCH_ASSERT (exit 1 when the
 * goal is missed).
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { installExitHandlers, onCleanup, runCleanups } from '../lib/children';
import { envNumber, fmtMs, formatTable } from '../lib/format';
import { basicAuth, benchRunDir, createStack, ensureBuilt, LcdsService, startService } from '../lib/lcds';
import { api, importCourse } from '../lib/lcds-api';
import { readProcCpuSeconds, readProcMemory } from '../lib/proc';
import { Recorder, Summary } from '../lib/stats';
import { sequencedPackage, singleScoPackage } from './packages';

/** The issue's goal: p95 from the link to Initialize on the embedded stack. */
const GOAL_P95_MS = 500;

let failed = false;

interface CourseResult {
  label: string;
  launches: number;
  toInitialize: Summary;
  toCommit: Summary;
  serverCpuMsPerLaunch: number;
}

/** A registration of the course and its launch link (not timed: what the learner's LMS did before the click). */
async function newLaunchLink(service: LcdsService, auth: string, courseId: string, n: number): Promise<string> {
  const registrationId = `bench-${courseId}-${n}`;
  const created = await api(service, auth, 'POST', '/registrations', { registrationId, courseId, learner: { id: `learner-${n}`, firstName: 'Bench', lastName: `Learner ${n}` } });
  if (created.status !== 204) throw new Error(`create registration answered ${created.status}: ${JSON.stringify(created.body)}`);
  const link = await api(service, auth, 'POST', `/registrations/${registrationId}/launchLink`, { redirectOnExitUrl: 'message', expiry: 300 });
  if (link.status !== 200) throw new Error(`launch link answered ${link.status}: ${JSON.stringify(link.body)}`);
  return link.body.launchLink as string;
}

/**
 * One launch: opens the link in a new tab and answers the times (ms) from the click to the SCO's Initialize (its own
 * report, on the page's clock) and to the answer of the first commit the player sent (the response event).
 */
async function launchOnce(browser: Browser, link: string): Promise<{ initialize: number; commit: number }> {
  const page = await browser.newPage();
  try {
    let initializedAt = NaN;
    const initialized = new Promise<void>((resolve) =>
      page.on('console', (m) => {
        const [tag, what, at] = m.text().split(' ');
        if (tag === 'lcds-bench' && what === 'initialize') {
          initializedAt = Number(at);
          resolve();
        }
      }),
    );
    const committed = page.waitForResponse((r) => r.url().endsWith('/commit') && r.request().method() === 'POST', { timeout: 30_000 });
    const clicked = Date.now();
    await page.goto(link, { waitUntil: 'commit' });
    const commitResponse = await committed;
    const commitAt = Date.now();
    await initialized;
    if (commitResponse.status() !== 200) throw new Error(`the first commit answered ${commitResponse.status()}`);
    return { initialize: initializedAt - clicked, commit: commitAt - clicked };
  } finally {
    await page.close();
  }
}

async function measureCourse(browser: Browser, service: LcdsService, auth: string, courseId: string, label: string, launches: number, warmup: number): Promise<CourseResult> {
  const toInitialize = new Recorder();
  const toCommit = new Recorder();
  let cpuSeconds = 0;
  for (let i = 0; i < warmup + launches; i++) {
    if (i === warmup) cpuSeconds = readProcCpuSeconds(service.pid);
    const link = await newLaunchLink(service, auth, courseId, i);
    const t = await launchOnce(browser, link);
    if (i >= warmup) {
      toInitialize.add(t.initialize);
      toCommit.add(t.commit);
    }
    if ((i + 1) % 20 === 0) process.stderr.write(`  ${label}: ${i + 1}/${warmup + launches}\n`);
  }
  const serverCpuMsPerLaunch = ((readProcCpuSeconds(service.pid) - cpuSeconds) * 1000) / launches;
  return { label, launches, toInitialize: toInitialize.summary(), toCommit: toCommit.summary(), serverCpuMsPerLaunch };
}

async function main(): Promise<void> {
  installExitHandlers();
  const launches = Math.max(1, Math.floor(envNumber('BENCH_LAUNCHES', 200)));
  const warmup = Math.max(0, Math.floor(envNumber('BENCH_WARMUP', 10)));
  await ensureBuilt();
  const runDir = benchRunDir('launch', () => failed);
  const stack = await createStack(runDir);
  const service = await startService(stack, { logFile: join(runDir, 'service.log') });
  const auth = basicAuth(service.firstStart.application);
  const load0 = loadavg()[0];
  process.stderr.write('importing the courses…\n');
  await importCourse(service, auth, 'single', await singleScoPackage());
  await importCourse(service, auth, 'sequenced', await sequencedPackage());

  const browser = await chromium.launch({
    executablePath: process.env.BENCH_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  onCleanup('close chromium', () => browser.close());
  const results = [
    await measureCourse(browser, service, auth, 'single', 'single SCO', launches, warmup),
    await measureCourse(browser, service, auth, 'sequenced', 'sequenced, 55 activities', launches, warmup),
  ];
  const peak = readProcMemory(service.pid);
  await browser.close();
  await service.stop();

  const embedded = stack.kind === 'embedded';
  const verdict = (r: CourseResult) => (!embedded ? '(goal on embedded)' : r.toInitialize.p95 < GOAL_P95_MS ? `ok (< ${GOAL_P95_MS} ms)` : `MISS (< ${GOAL_P95_MS} ms)`);
  const goalsMet = !embedded || results.every((r) => r.toInitialize.p95 < GOAL_P95_MS);
  const out = [
    `launch benchmark — launch link to the SCO's Initialize and to its first stored commit, chromium, ${launches} launches per course (+${warmup} warm-up)`,
    `stack: ${stack.label}; node ${process.version}, ${cpus().length} CPU(s) ${cpus()[0]?.model ?? ''}, load average ${load0.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after`,
    '',
    formatTable(
      ['course', 'to Initialize p50', 'p95', 'p99', 'to first commit p50', 'p95', 'p99', 'service CPU/launch', 'goal (p95 to Initialize)'],
      results.map((r) => [
        r.label,
        fmtMs(r.toInitialize.p50),
        fmtMs(r.toInitialize.p95),
        fmtMs(r.toInitialize.p99),
        fmtMs(r.toCommit.p50),
        fmtMs(r.toCommit.p95),
        fmtMs(r.toCommit.p99),
        `${r.serverCpuMsPerLaunch.toFixed(1)} ms`,
        verdict(r),
      ]),
    ),
    '',
    `service peak RSS (VmHWM): ${peak ? `${(peak.peakRss / 2 ** 20).toFixed(1)} MiB` : 'n/a'}`,
  ].join('\n');
  process.stdout.write(`${out}\n`);
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ stack: stack.kind, launches, results, goalsMet }, null, 2));
  if (process.env.BENCH_ASSERT === '1' && !goalsMet) failed = true;
}

main()
  .catch((err: unknown) => {
    failed = true;
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  })
  .finally(() => void runCleanups().then(() => process.exit(failed ? 1 : 0)));
