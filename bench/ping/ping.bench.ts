/**
 * Ping benchmark: authenticated GET /api/v2/ping at 64 connections, with HTTP basic auth and with a bearer
 * token, against the built service in a child process, compared with a bare Node `http` server answering the
 * same JSON and with a minimal Nest application on the same Express adapter (each in a child process: same process
 * layout). The goal (issue #22 point 9): LCDS at ≥ 80 % of the minimal Nest application, with either credential. Load comes from autocannon in this process.
 *
 *   npm run bench:ping                                   # embedded stack (SQLite)
 *   BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306 BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:ping
 *
 * Settings (environment): BENCH_DURATION (s, 10), BENCH_WARMUP (s, 3), BENCH_CONNECTIONS (64), BENCH_ROUNDS (1),
 * BENCH_LOG_LEVEL (service LOG_LEVEL, info), BENCH_CPU_PROF=1 (profile the service, print where time went),
 * BENCH_JSON=<file> (write the results), BENCH_ASSERT=1 (exit 1 when a goal is missed), BENCH_KEEP=1 (keep the
 * temp dir with logs), BENCH_ENV_<NAME>=v (pass NAME=v to the service). See bench/README.md.
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { startBareServer, startMinimalNestServer } from '../lib/bare-server';
import { installExitHandlers, runCleanups } from '../lib/children';
import { formatProfileSummary, readNewestProfile, summarizeProfile } from '../lib/cpu-profile';
import { envNumber, fmtBytes, fmtMs, fmtNumber, fmtPct, formatTable } from '../lib/format';
import { basicAuth, benchRunDir, createStack, ensureBuilt, expectJson, getAppToken, startService } from '../lib/lcds';
import { LoadResult, runLoad } from '../lib/load';
import { CpuMeter, MemorySampler, readProcMemory } from '../lib/proc';

interface Target {
  /** Short name for BENCH_TARGETS. */
  key: 'bare' | 'nest' | 'basic' | 'bearer';
  name: string;
  url: string;
  headers: Record<string, string>;
  pid: number;
  /** Minimum share of the minimal Nest application's req/s (the issue's goal); undefined for the references. */
  goal?: number;
}

interface Measurement {
  target: string;
  round: number;
  load: LoadResult;
  serverCpuPct: number;
  loadCpuPct: number;
  maxSampledRss: number;
}

/** Set when the run fails: the temp dir (service log) is kept to look at. */
let failed = false;

const isPong = (body: any) => body?.apiMessage === 'pong' && typeof body?.currentTime === 'string';

async function main(): Promise<void> {
  installExitHandlers();
  const durationS = envNumber('BENCH_DURATION', 10);
  const warmupS = envNumber('BENCH_WARMUP', 3);
  const connections = envNumber('BENCH_CONNECTIONS', 64);
  const rounds = Math.max(1, Math.floor(envNumber('BENCH_ROUNDS', 1)));
  const cpuProf = process.env.BENCH_CPU_PROF === '1';
  const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info';

  await ensureBuilt();
  const runDir = benchRunDir('ping', () => failed, cpuProf ? 'CPU profile' : undefined);
  const stack = await createStack(runDir);

  const profDir = join(runDir, 'cpu-prof');
  if (cpuProf) mkdirSync(profDir);
  const bare = await startBareServer(join(runDir, 'bare.log'));
  const nest = await startMinimalNestServer(join(runDir, 'nest.log'));
  const service = await startService(stack, {
    logFile: join(runDir, 'service.log'),
    logLevel,
    nodeArgs: cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [],
  });
  const rssAfterStart = readProcMemory(service.pid);

  const pingPath = '/api/v2/ping';
  const basic = basicAuth(service.firstStart.application);
  const token = await getAppToken(service.api, service.firstStart.application, 'read:ping', 3600);
  const allTargets: Target[] = [
    { key: 'bare', name: 'bare node http', url: bare.baseUrl + pingPath, headers: {}, pid: bare.pid },
    { key: 'nest', name: 'minimal Nest app', url: nest.baseUrl + pingPath, headers: {}, pid: nest.pid },
    { key: 'basic', name: 'LCDS basic auth', url: service.baseUrl + pingPath, headers: { authorization: basic }, pid: service.pid, goal: 0.8 },
    { key: 'bearer', name: 'LCDS bearer token', url: service.baseUrl + pingPath, headers: { authorization: `Bearer ${token}` }, pid: service.pid, goal: 0.8 },
  ];
  // BENCH_TARGETS=basic,bearer (say, to profile the service alone); the ratio needs `bare` among them.
  const wanted = (process.env.BENCH_TARGETS ?? 'bare,nest,basic,bearer').split(',').map((s) => s.trim());
  const targets = allTargets.filter((t) => wanted.includes(t.key));
  if (targets.length === 0) throw new Error(`BENCH_TARGETS=${process.env.BENCH_TARGETS} names none of bare, nest, basic, bearer`);
  for (const t of targets) await expectJson(t.url, t.headers, isPong);

  const [load1] = loadavg();
  process.stdout.write(
    [
      `ping benchmark — GET ${pingPath}, ${connections} connections, ${warmupS} s warm-up + ${durationS} s per target, ${rounds} round(s)`,
      `stack: ${stack.label}; service LOG_LEVEL=${logLevel}, NODE_ENV=production, LOG_FORMAT=json (log to a file)`,
      `node ${process.version}, ${cpus().length} CPU(s) ${cpus()[0]?.model ?? ''}, load average ${load1.toFixed(2)} before the run`,
      `service pid ${service.pid}, bare server pid ${bare.pid}, load generator (autocannon) pid ${process.pid}`,
      '',
    ].join('\n'),
  );

  const measurements: Measurement[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const t of targets) {
      if (warmupS > 0) await runLoad({ url: t.url, headers: t.headers, connections, durationS: warmupS });
      const memory = new MemorySampler(t.pid).start();
      const cpu = new CpuMeter(t.pid);
      const load = await runLoad({ url: t.url, headers: t.headers, connections, durationS });
      const { childPct, selfPct } = cpu.stop();
      const mem = memory.stop();
      measurements.push({ target: t.name, round, load, serverCpuPct: childPct, loadCpuPct: selfPct, maxSampledRss: mem.maxSampledRss });
      process.stderr.write(`  round ${round} ${t.name}: ${fmtNumber(load.reqPerSec)} req/s\n`);
    }
  }

  const servicePeak = readProcMemory(service.pid);
  const barePeak = readProcMemory(bare.pid);

  // The median round of each target (by req/s) stands for it.
  const representative = new Map<string, Measurement>();
  for (const t of targets) {
    const mine = measurements.filter((m) => m.target === t.name).sort((a, b) => a.load.reqPerSec - b.load.reqPerSec);
    representative.set(t.name, mine[Math.floor((mine.length - 1) / 2)]);
  }
  const bareReqPerSec = representative.get(allTargets[0].name)?.load.reqPerSec ?? NaN;
  const nestReqPerSec = representative.get(allTargets[1].name)?.load.reqPerSec ?? NaN;
  const row = (m: Measurement, goal?: number): string[] => {
    const ratio = m.load.reqPerSec / nestReqPerSec;
    return [
      rounds > 1 ? `${m.target} #${m.round}` : m.target,
      fmtNumber(m.load.reqPerSec),
      fmtMs(m.load.latency.p50),
      fmtMs(m.load.latency.p99),
      `${m.load.errors}/${m.load.non2xx}`,
      `${m.serverCpuPct.toFixed(0)} %`,
      `${m.loadCpuPct.toFixed(0)} %`,
      fmtPct(m.load.reqPerSec / bareReqPerSec),
      goal === undefined ? '—' : fmtPct(ratio),
      goal === undefined || !Number.isFinite(ratio) ? '' : `${ratio >= goal ? 'ok' : 'MISS'} (≥ ${(goal * 100).toFixed(0)} %)`,
    ];
  };
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'errors/non-2xx', 'server CPU', 'load CPU', 'vs bare', 'vs minimal Nest', 'goal'];
  if (rounds > 1) {
    process.stdout.write(`all rounds\n${formatTable(header, measurements.map((m) => row(m, targets.find((t) => t.name === m.target)!.goal)))}\n\nmedian round of each target\n`);
  }
  process.stdout.write(formatTable(header, targets.map((t) => row(representative.get(t.name)!, t.goal))) + '\n\n');
  // Neither side near a full core: something else on the machine took the CPU, the figures are not reliable.
  const contended = measurements.filter((m) => m.serverCpuPct < 80 && m.loadCpuPct < 80);
  if (contended.length > 0) {
    process.stdout.write(
      `WARNING: in ${contended.map((m) => (rounds > 1 ? `${m.target} #${m.round}` : m.target)).join(', ')} neither the server nor the load ` +
        'generator used 80 % of a core: other processes competed for the CPU. Measure again on a quiet machine.\n\n',
    );
  }
  process.stdout.write(
    [
      `service RSS: ${fmtBytes(rssAfterStart?.rss ?? NaN)} after start, peak (VmHWM) ${fmtBytes(servicePeak?.peakRss ?? NaN)}, now ${fmtBytes(servicePeak?.rss ?? NaN)}`,
      `bare server peak RSS (VmHWM): ${fmtBytes(barePeak?.peakRss ?? NaN)}`,
      `service log: ${fmtBytes(statSync(service.logFile).size)} written (${service.logFile})`,
      `load average after the run: ${loadavg()[0].toFixed(2)}`,
      '(server CPU / load CPU: % of one core used by the server child / by this process during the measured run;',
      ' a load generator near 100 % bounds the figures, most of all the bare server’s)',
      '',
    ].join('\n'),
  );

  const goalsMet = targets.every((t) => t.goal === undefined || representative.get(t.name)!.load.reqPerSec / nestReqPerSec >= t.goal);
  if (process.env.BENCH_JSON) {
    writeFileSync(
      process.env.BENCH_JSON,
      JSON.stringify(
        {
          bench: 'ping',
          date: new Date().toISOString(),
          node: process.version,
          cpus: cpus().length,
          stack: stack.kind,
          settings: { durationS, warmupS, connections, rounds, logLevel },
          bareReqPerSec,
          nestReqPerSec,
          targets: targets.map((t) => {
            const m = representative.get(t.name)!;
            return { name: t.name, goal: t.goal, ratioToBare: m.load.reqPerSec / bareReqPerSec, ratioToNest: m.load.reqPerSec / nestReqPerSec, ...m };
          }),
          measurements,
          memory: { serviceRssAfterStart: rssAfterStart?.rss, servicePeakRss: servicePeak?.peakRss, barePeakRss: barePeak?.peakRss },
          goalsMet,
        },
        null,
        2,
      ) + '\n',
    );
  }

  await service.stop();
  await bare.stop();
  await nest.stop();
  if (cpuProf) {
    const found = readNewestProfile(profDir);
    if (found) process.stdout.write(`CPU profile of the service (whole life, incl. warm-ups): ${found.file}\n${formatProfileSummary(summarizeProfile(found.profile))}\n`);
    else process.stdout.write(`no CPU profile written in ${profDir}\n`);
  }
  if (process.env.BENCH_ASSERT === '1' && !goalsMet) process.exitCode = 1;
}

void main()
  .catch((err: unknown) => {
    failed = true;
    process.stderr.write(`ping benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(() => runCleanups());
