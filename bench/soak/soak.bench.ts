/**
 * Soak benchmark (issue #22 point 13): a long run of mixed, paced load (API reads, player runtime commits with new
 * learners launching as others finish, LRS statements) against the built service, sampling its RSS and heap every
 * 10 s and taking a heap snapshot after warm-up and at the end. Says whether memory is flat after warm-up.
 *
 *   npm run bench:soak                                   # embedded stack (SQLite), 30 minutes
 *   BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306 BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:soak
 *
 * Settings (environment): BENCH_DURATION (s, 1800), BENCH_WARMUP (s, 120: excluded from the verdict),
 * BENCH_RATE (requests/s offered, 100; what was achieved is printed), BENCH_WORKERS (16), BENCH_COMMITS_PER_LEARNER (50: then a new registration
 * is launched), BENCH_SNAPSHOTS (1: heap snapshots; 0: none), BENCH_JSON, BENCH_KEEP, BENCH_ENV_<NAME>.
 * Heap snapshots are written to the kept run directory; compare them in Chrome DevTools (Memory → Comparison).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { installExitHandlers, runCleanups } from '../lib/children';
import { envNumber, fmtBytes, fmtMs, fmtNumber, formatTable } from '../lib/format';
import { basicAuth, benchRunDir, createStack, startService, type LcdsService } from '../lib/lcds';
import { api, importCourse } from '../lib/lcds-api';
import { readProcMemory } from '../lib/proc';
import { percentile } from '../lib/stats';
import { scorm2004Package } from '../runtime-commit/payload';

type Kind = 'api' | 'commit' | 'lrs';
interface Sample {
  at: number;
  rss: number;
  heapUsed: number;
  requests: number;
  errors: number;
  p99: number;
}

const WEIGHTS: Array<[Kind, number]> = [
  ['api', 0.4],
  ['commit', 0.35],
  ['lrs', 0.25],
];

async function heapUsed(service: LcdsService): Promise<number> {
  const text = await fetch(`${service.baseUrl}/metrics`).then((r) => r.text(), () => '');
  const m = /^lcds_nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
  return m ? Number(m[1]) : NaN;
}

async function main(): Promise<void> {
  installExitHandlers();
  let failed = false;
  const durationS = envNumber('BENCH_DURATION', 1800);
  const warmupS = Math.min(envNumber('BENCH_WARMUP', 120), durationS / 2);
  const rate = envNumber('BENCH_RATE', 100);
  const workers = Math.max(1, Math.floor(envNumber('BENCH_WORKERS', 16)));
  const perLearner = Math.max(1, Math.floor(envNumber('BENCH_COMMITS_PER_LEARNER', 50)));
  const snapshots = process.env.BENCH_SNAPSHOTS !== '0';
  const runDir = benchRunDir('soak', () => failed, snapshots ? 'heap snapshots' : undefined);
  try {
    const stack = await createStack(runDir);
    const service = await startService(stack, {
      logFile: join(runDir, 'service.log'),
      nodeArgs: snapshots ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${runDir}`] : [],
    });
    const auth = basicAuth(service.firstStart.application);
    const appId = service.firstStart.application.appId;
    await importCourse(service, auth, 'soak-course', await scorm2004Package());
    const cred = await api(service, auth, 'PUT', '/xapi/credentials/soak', { name: 'soak', secret: 'soak-secret', isEnabled: true, auth: 'BASICAUTH', permissionsLevel: 'ROOT' });
    if (cred.status !== 204) throw new Error(`xAPI credential: ${cred.status}`);
    const lrsAuth = `Basic ${Buffer.from('soak:soak-secret').toString('base64')}`;

    let learners = 0;
    async function newSession(): Promise<{ url: string; seq: number }> {
      const id = `soak-${++learners}`;
      const created = await api(service, auth, 'POST', '/registrations', { registrationId: id, courseId: 'soak-course', learner: { id: `learner-${learners}` } });
      if (created.status !== 204) throw new Error(`registration: ${created.status}`);
      const link = await api(service, auth, 'POST', `/registrations/${id}/launchLink`, { redirectOnExitUrl: 'message' });
      const res = await fetch(link.body.launchLink as string, { redirect: 'manual' });
      return { url: new URL(res.headers.get('location')!, service.baseUrl).toString() + 'commit', seq: 0 };
    }

    const started = Date.now();
    const end = started + durationS * 1000;
    let requests = 0;
    let errors = 0;
    let window: number[] = [];
    const samples: Sample[] = [];
    const counts: Record<Kind, number> = { api: 0, commit: 0, lrs: 0 };
    const failures = new Map<string, number>();
    const interval = (workers / rate) * 1000;

    async function worker(n: number): Promise<void> {
      let session = await newSession();
      let next = Date.now() + Math.random() * interval;
      for (let i = 0; Date.now() < end; i++) {
        const wait = next - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        next += interval;
        let pick = Math.random();
        const kind = WEIGHTS.find(([, w]) => (pick -= w) < 0)?.[0] ?? 'api';
        const t0 = performance.now();
        let ok = false;
        let status = 'error';
        try {
          if (kind === 'api') {
            const paths = ['/ping', '/courses/soak-course', `/registrations?courseId=soak-course&learnerId=learner-${1 + (i % Math.max(1, learners))}`, '/registrations?limit=10'];
            const res = await api(service, auth, 'GET', paths[i % paths.length]);
            status = String(res.status);
            ok = res.status === 200;
          } else if (kind === 'commit') {
            if (session.seq >= perLearner) session = await newSession();
            const seq = ++session.seq;
            const res = await fetch(session.url, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ seq, activityId: 'sco-1', cmi: { 'cmi.location': `page-${seq}`, 'cmi.suspend_data': 'x'.repeat(512 + (seq % 7) * 64), 'cmi.session_time': `PT${seq}S` } }),
            });
            await res.arrayBuffer();
            status = String(res.status);
            ok = res.status === 200;
          } else {
            const res = await fetch(`${service.baseUrl}/lrs/${appId}/statements`, {
              method: 'POST',
              headers: { authorization: lrsAuth, 'content-type': 'application/json', 'x-experience-api-version': '1.0.3' },
              body: JSON.stringify({ actor: { mbox: `mailto:w${n}-${i % 500}@example.com` }, verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' }, object: { id: `http://example.com/soak/${i % 1000}` } }),
            });
            await res.arrayBuffer();
            status = String(res.status);
            ok = res.status === 200;
          }
        } catch (err) {
          ok = false;
          status = err instanceof Error ? err.message : 'error';
        }
        if (!ok) failures.set(`${kind} ${status}`, (failures.get(`${kind} ${status}`) ?? 0) + 1);
        requests++;
        counts[kind]++;
        if (!ok) errors++;
        window.push(performance.now() - t0);
      }
    }

    const sampler = setInterval(() => {
      const mem = readProcMemory(service.pid);
      void heapUsed(service).then((heap) => {
        const sorted = window;
        window = [];
        samples.push({ at: (Date.now() - started) / 1000, rss: mem?.rss ?? NaN, heapUsed: heap, requests, errors, p99: sorted.length ? percentile(sorted, 0.99) : NaN });
        const last = samples[samples.length - 1];
        process.stderr.write(`  ${last.at.toFixed(0)} s: ${fmtNumber(requests)} requests, ${errors} errors, RSS ${fmtBytes(last.rss)}, heap ${fmtBytes(last.heapUsed)}\n`);
      });
    }, 10_000);
    const snapshot = () => (snapshots ? process.kill(service.pid, 'SIGUSR2') : undefined);
    const warm = setTimeout(snapshot, warmupS * 1000);

    process.stdout.write(
      [
        `soak benchmark — ${durationS} s of mixed load at ${rate} requests/s offered (${workers} workers): API reads 40 %, runtime commits 35 % (a new learner every ${perLearner} commits), LRS statements 25 %`,
        `stack: ${stack.label}; node ${process.version}, ${cpus().length} CPU(s), load average ${loadavg()[0].toFixed(2)} before the run`,
        '',
      ].join('\n'),
    );
    await Promise.all(Array.from({ length: workers }, (_, n) => worker(n)));
    clearInterval(sampler);
    clearTimeout(warm);
    await new Promise((r) => setTimeout(r, 10_000)); // idle: what falls back
    const idle = { rss: readProcMemory(service.pid)?.rss ?? NaN, heapUsed: await heapUsed(service) };
    snapshot();
    await new Promise((r) => setTimeout(r, 5000));
    await service.stop();

    const perMinute = samples.filter((s, i) => i === samples.length - 1 || Math.round(s.at) % 60 < 10);
    process.stdout.write(
      formatTable(
        ['elapsed', 'requests', 'errors', 'p99 ms (last 10 s)', 'RSS', 'heap used'],
        perMinute.map((s) => [`${Math.round(s.at)} s`, fmtNumber(s.requests), String(s.errors), fmtMs(s.p99), fmtBytes(s.rss), fmtBytes(s.heapUsed)]),
      ) + '\n\n',
    );
    // The first heap snapshot (at the end of warm-up) itself raises RSS for a while: the baseline is 30 s later.
    const afterWarmup = samples.filter((s) => s.at >= warmupS + (snapshots ? 30 : 0));
    const first = afterWarmup[0];
    const last = afterWarmup[afterWarmup.length - 1];
    const growth = (a: number, b: number) => (b - a) / a;
    const rssGrowth = first && last ? growth(first.rss, last.rss) : NaN;
    // Heap used swings with garbage collection (tens of MiB between two samples): the verdict compares what the two
    // heap snapshots retain (each taken after a full GC), or without snapshots the medians of the first and last minute.
    const snapshotFiles = snapshots ? readdirSync(runDir).filter((f) => f.endsWith('.heapsnapshot')).sort().map((f) => join(runDir, f)) : [];
    const retained = snapshotFiles.length >= 2 ? [retainedHeap(snapshotFiles[0]), retainedHeap(snapshotFiles[snapshotFiles.length - 1])] : null;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
    const heapFrom = retained ? retained[0].bytes : median(afterWarmup.slice(0, 6).map((s) => s.heapUsed));
    const heapTo = retained ? retained[1].bytes : median(afterWarmup.slice(-6).map((s) => s.heapUsed));
    const heapGrowth = growth(heapFrom, heapTo);
    const flat = rssGrowth < 0.1 && heapGrowth < 0.1;
    process.stdout.write(
      [
        `requests: ${fmtNumber(requests)} (${fmtNumber(requests / durationS, 1)}/s: api ${counts.api}, commits ${counts.commit}, lrs ${counts.lrs}), errors ${errors}, learners ${learners}`,
        failures.size ? `failures: ${[...failures].map(([k, n]) => `${k} ×${n}`).join(', ')}` : 'failures: none',
        `after warm-up (${warmupS} s${snapshots ? ' + 30 s after its heap snapshot' : ''}) to the end: RSS ${fmtBytes(first?.rss ?? NaN)} → ${fmtBytes(last?.rss ?? NaN)} (${(rssGrowth * 100).toFixed(1)} %), heap used ${fmtBytes(first?.heapUsed ?? NaN)} → ${fmtBytes(last?.heapUsed ?? NaN)} (${(heapGrowth * 100).toFixed(1)} %)`,
        `10 s idle after the load: RSS ${fmtBytes(idle.rss)}, heap used ${fmtBytes(idle.heapUsed)}`,
        retained
          ? `retained heap (snapshots after warm-up and at the end): ${fmtBytes(retained[0].bytes)} / ${fmtNumber(retained[0].objects)} objects → ${fmtBytes(retained[1].bytes)} / ${fmtNumber(retained[1].objects)} objects (${(heapGrowth * 100).toFixed(1)} %)`
          : `heap used, median of the first and of the last minute after warm-up: ${fmtBytes(heapFrom)} → ${fmtBytes(heapTo)} (${(heapGrowth * 100).toFixed(1)} %)`,
        `goal: flat RSS and heap after warm-up (< 10 % growth): ${flat ? 'MET' : 'MISS'}`,
        snapshots ? `heap snapshots (after warm-up, at the end): ${snapshotFiles.join(', ')}` : '',
        '',
      ].join('\n'),
    );
    if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ bench: 'soak', durationS, warmupS, rate, workers, requests, errors, counts, samples, idle, rssGrowth, heapGrowth, flat }, null, 2) + '\n');
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    await runCleanups();
  }
}

/** What a heap snapshot retains: the sum of its objects' own sizes, and their number. */
function retainedHeap(file: string): { bytes: number; objects: number } {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as { snapshot: { meta: { node_fields: string[] } }; nodes: number[] };
  const width = snap.snapshot.meta.node_fields.length;
  const self = snap.snapshot.meta.node_fields.indexOf('self_size');
  let bytes = 0;
  for (let i = self; i < snap.nodes.length; i += width) bytes += snap.nodes[i];
  return { bytes, objects: snap.nodes.length / width };
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
