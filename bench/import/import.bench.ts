/**
 * Import benchmark: a large SCORM 1.2 package (default ~500 MiB in 5,000 files, mostly incompressible) uploaded
 * with CreateUploadAndImportCourseJob (multipart, streamed from disk), GetImportJobStatus polled until
 * COMPLETE, against the built service in a child process; `unzip -q` of the same zip is the baseline.
 *
 *   npm run bench:import                                  # embedded stack (SQLite, in-process jobs)
 *   BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306 BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:import
 *   BENCH_IMPORT_MB=50 npm run bench:import               # a quick run
 *
 * Settings (environment): BENCH_IMPORT_MB (MiB of content, 500), BENCH_IMPORT_FILES (5000), BENCH_IMPORT_ZIP_LEVEL
 * (text files' deflate level, 6), BENCH_ROUNDS (1), BENCH_POLL_MS (100), BENCH_LOG_LEVEL, BENCH_ENV_<NAME>,
 * BENCH_CPU_PROF=1 (profile the service), BENCH_JSON, BENCH_ASSERT, BENCH_KEEP. See bench/README.md.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { installExitHandlers, onCleanup, runCleanups } from '../lib/children';
import { formatProfileSummary, readNewestProfile, summarizeProfile } from '../lib/cpu-profile';
import { envNumber, fmtBytes, formatTable } from '../lib/format';
import { getJson, keepAliveAgent, uploadMultipart } from '../lib/http';
import { basicAuth, createStack, REPO_ROOT, ensureBuilt, LcdsService, removeDirUnlessKept, startService, startNodeArgs, Stack } from '../lib/lcds';
import { CpuMeter, MemorySampler, readProcMemory } from '../lib/proc';
import { generateScorm12Package, GeneratedPackage } from './scorm-package';

/** Service peak RSS goal of the issue. */
const RSS_GOAL_BYTES = 200 * 1024 * 1024;
/** LCDS import may take at most this many times as long as `unzip -q` of the same zip. */
const UNZIP_RATIO_GOAL = 2;

interface ProgressMark {
  /** ms since the upload started. */
  at: number;
  progress: number;
  status: string;
}

interface RoundResult {
  round: number;
  unzipMs: number;
  uploadMs: number;
  /** When the request body had been sent (the rest of uploadMs is the server storing the upload). */
  uploadSentMs: number;
  /** Upload answered → job seen running (first poll with progress > 0). */
  queueWaitMs: number;
  /** Upload answered → COMPLETE seen by polling. */
  jobPolledMs: number;
  /** The job's own run time, from the service log ("job completed", ms). */
  jobLoggedMs: number;
  endToEndMs: number;
  /** Phases seen by polling progress: copy of the upload to the work file (2→10), extraction (10→85), parse + save (≥85 → COMPLETE). */
  phases: { copyMs: number; extractMs: number; finishMs: number };
  serviceCpuUploadPct: number;
  serviceCpuJobPct: number;
  maxSampledRss: number;
  samples: number;
  /** Largest RSS seen during the upload request, and at the polls of each job phase. */
  rssByPhase: { upload: number; copy: number; extract: number; finish: number };
  storedFiles: number;
  storedBytes: number;
  loadAvg: number;
}

let failed = false;

function fmtS(ms: number): string {
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : 'n/a';
}

function fmtRate(bytes: number, ms: number): string {
  return Number.isFinite(ms) && ms > 0 ? `${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(1)} MiB/s` : 'n/a';
}

function median(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** `unzip -q` of the zip into a fresh directory; answers the wall time. The directory is removed afterwards. */
function timeUnzip(zipPath: string, dest: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('unzip', ['-q', '-o', zipPath, '-d', dest], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      rmSync(dest, { recursive: true, force: true });
      if (code === 0) resolve(ms);
      else reject(new Error(`unzip exited with ${code}: ${stderr.trim()}`));
    });
  });
}

function countFiles(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return { files: NaN, bytes: NaN };
  }
  for (const e of entries) {
    if (!e.isFile()) continue;
    files++;
    bytes += statSync(join(e.parentPath ?? (e as unknown as { path: string }).path, e.name)).size;
  }
  return { files, bytes };
}

/** The "job completed" line of the service log for this job: its own run time in ms. */
function loggedJobMs(logFile: string, jobId: string): number {
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('"msg":"job completed"') || !line.includes(jobId)) continue;
    try {
      const ms = (JSON.parse(line) as { ms?: number }).ms;
      if (typeof ms === 'number') return ms;
    } catch {
      /* not JSON */
    }
  }
  return NaN;
}

async function importOnce(
  service: LcdsService,
  stack: Stack,
  pkg: GeneratedPackage,
  round: number,
  unzipMs: number,
  pollMs: number,
): Promise<RoundResult> {
  const auth = basicAuth(service.firstStart.application);
  const courseId = `bench-import-${round}`;
  const agent = keepAliveAgent();
  const memory = new MemorySampler(service.pid, 100).start();
  const uploadMemory = new MemorySampler(service.pid, 50).start();
  const uploadCpu = new CpuMeter(service.pid);
  const upload = await uploadMultipart({
    url: `${service.api}/courses/importJobs/upload?courseId=${courseId}`,
    headers: { authorization: auth },
    field: 'file',
    filePath: pkg.zipPath,
    fileName: 'package.zip',
    contentType: 'application/zip',
  });
  const serviceCpuUploadPct = uploadCpu.stop().childPct;
  const rssByPhase = { upload: uploadMemory.stop().maxSampledRss, copy: NaN, extract: NaN, finish: NaN };
  if (upload.status !== 200) throw new Error(`upload answered ${upload.status}: ${upload.body.slice(0, 1000)}`);
  const jobId = (JSON.parse(upload.body) as { result?: string }).result;
  if (!jobId) throw new Error(`upload answered no job id: ${upload.body}`);

  const started = Date.now() - upload.ms;
  const jobCpu = new CpuMeter(service.pid);
  const marks: ProgressMark[] = [];
  let final: any;
  for (;;) {
    const { body } = await getJson<any>(`${service.api}/courses/importJobs/${jobId}`, { authorization: auth }, agent);
    const at = Date.now() - started;
    const rss = readProcMemory(service.pid)?.rss ?? NaN;
    const phase = body.status !== 'RUNNING' || body.progress >= 85 ? 'finish' : body.progress >= 10 ? 'extract' : 'copy';
    if (!(rssByPhase[phase] >= rss)) rssByPhase[phase] = rss;
    const last = marks[marks.length - 1];
    if (!last || last.progress !== body.progress || last.status !== body.status) marks.push({ at, progress: body.progress ?? 0, status: body.status });
    if (body.status !== 'RUNNING') {
      final = body;
      break;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  const endToEndMs = Date.now() - started;
  const serviceCpuJobPct = jobCpu.stop().childPct;
  const mem = memory.stop();
  if (final.status !== 'COMPLETE') throw new Error(`import ${jobId} ended ${final.status}: ${final.message}`);
  const course = final.importResult?.course;
  if (course?.courseLearningStandard !== 'SCORM12') throw new Error(`imported course is not SCORM 1.2: ${JSON.stringify(final).slice(0, 1000)}`);

  const firstAt = (predicate: (m: ProgressMark) => boolean) => marks.find(predicate)?.at ?? NaN;
  const running = firstAt((m) => m.progress > 0 || m.status !== 'RUNNING');
  const copied = firstAt((m) => m.progress >= 10 || m.status !== 'RUNNING');
  const extracted = firstAt((m) => m.progress >= 85 || m.status !== 'RUNNING');
  const prefix = String(final.importResult.webPathToCourse ?? '').replace(/^content\//, '');
  const stored = countFiles(join(stack.env.DATA_DIR, 'content', prefix));

  // Free the disk for the next round (not timed).
  const del = await fetch(`${service.api}/courses/${courseId}`, { method: 'DELETE', headers: { authorization: auth } });
  if (del.status !== 204) process.stderr.write(`  could not delete ${courseId}: ${del.status}\n`);
  agent.destroy();

  return {
    round,
    unzipMs,
    uploadMs: upload.ms,
    uploadSentMs: upload.sentMs,
    queueWaitMs: running - upload.ms,
    jobPolledMs: endToEndMs - upload.ms,
    jobLoggedMs: loggedJobMs(service.logFile, jobId),
    endToEndMs,
    phases: { copyMs: copied - running, extractMs: extracted - copied, finishMs: endToEndMs - extracted },
    serviceCpuUploadPct,
    serviceCpuJobPct,
    maxSampledRss: mem.maxSampledRss,
    samples: mem.samples,
    rssByPhase,
    storedFiles: stored.files,
    storedBytes: stored.bytes,
    loadAvg: loadavg()[0],
  };
}

async function main(): Promise<void> {
  installExitHandlers();
  const sizeMiB = envNumber('BENCH_IMPORT_MB', 500);
  const fileCount = Math.max(3, Math.floor(envNumber('BENCH_IMPORT_FILES', 5000)));
  const zipLevel = envNumber('BENCH_IMPORT_ZIP_LEVEL', 6);
  const rounds = Math.max(1, Math.floor(envNumber('BENCH_ROUNDS', 1)));
  const pollMs = Math.max(10, envNumber('BENCH_POLL_MS', 100));
  const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info';
  const cpuProf = process.env.BENCH_CPU_PROF === '1';

  await ensureBuilt();
  const runDir = mkdtempSync(join(tmpdir(), 'lcds-bench-import-'));
  const pkgDir = join(runDir, 'package');
  onCleanup(`remove ${runDir}`, () => {
    // The big files go in any case; a failed run keeps the logs.
    rmSync(pkgDir, { recursive: true, force: true });
    rmSync(join(runDir, 'unzip'), { recursive: true, force: true });
    rmSync(join(runDir, 'data', 'content'), { recursive: true, force: true });
    rmSync(join(runDir, 'data', 'tmp'), { recursive: true, force: true });
    if (failed || cpuProf) process.stderr.write(`kept ${runDir} (${failed ? 'failed run: logs' : 'CPU profile'})\n`);
    else removeDirUnlessKept(runDir);
  });
  const stack = await createStack(runDir);

  const load0 = loadavg()[0];
  process.stderr.write(`generating a SCORM 1.2 package of ${sizeMiB} MiB in ${fileCount} files…\n`);
  const pkg = await generateScorm12Package(pkgDir, { totalBytes: Math.round(sizeMiB * 1024 * 1024), files: fileCount, zipLevel });

  const profDir = join(runDir, 'cpu-prof');
  if (cpuProf) mkdirSync(profDir);
  const service = await startService(stack, {
    logFile: join(runDir, 'service.log'),
    logLevel,
    nodeArgs: cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [],
    // On the production stack the same process must import: API and worker in one (the default, made explicit).
    env: stack.kind === 'production' ? { LCDS_ROLE: 'all' } : {},
  });
  const rssAfterStart = readProcMemory(service.pid);

  process.stdout.write(
    [
      `import benchmark — CreateUploadAndImportCourseJob (multipart upload streamed from disk) + GetImportJobStatus every ${pollMs} ms, ${rounds} round(s)`,
      `stack: ${stack.label}; service LOG_LEVEL=${logLevel}, NODE_ENV=production${stack.kind === 'production' ? ', LCDS_ROLE=all' : ''}; content store: local disk (${tmpdir()})`,
      `node ${process.version}, ${cpus().length} CPU(s) ${cpus()[0]?.model ?? ''}, load average ${load0.toFixed(2)} before the run`,
      `package: SCORM 1.2, ${pkg.files.toLocaleString('en-US')} files, ${fmtBytes(pkg.contentBytes)} content (${fmtBytes(pkg.randomBytes)} incompressible), ` +
        `zip ${fmtBytes(pkg.zipBytes)} (sha256 ${pkg.sha256.slice(0, 16)}…); generated in ${fmtS(pkg.writeMs)} + zip ${fmtS(pkg.zipMs)}`,
      `service pid ${service.pid}, RSS after start ${fmtBytes(rssAfterStart?.rss ?? NaN)}`,
      `service: dist/main.js built ${statSync(join(REPO_ROOT, 'dist', 'main.js')).mtime.toISOString()}; node options ${[...startNodeArgs(), ...(process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean)].join(' ') || 'none'}`,
      '',
    ].join('\n'),
  );

  const benchBeforeUpload = readProcMemory(process.pid);
  const results: RoundResult[] = [];
  for (let round = 1; round <= rounds; round++) {
    const unzipMs = await timeUnzip(pkg.zipPath, join(runDir, 'unzip'));
    process.stderr.write(`  round ${round}: unzip -q ${fmtS(unzipMs)}; importing…\n`);
    const r = await importOnce(service, stack, pkg, round, unzipMs, pollMs);
    results.push(r);
    process.stderr.write(`  round ${round}: upload ${fmtS(r.uploadMs)}, job ${fmtS(r.jobPolledMs)}, end to end ${fmtS(r.endToEndMs)}\n`);
  }
  const servicePeak = readProcMemory(service.pid);
  const benchPeak = readProcMemory(process.pid);

  if (rounds > 1) {
    const header = ['round', 'unzip', 'upload', 'job', 'end to end', 'e2e / unzip', 'max RSS', 'load avg'];
    const rows = results.map((r) => [
      String(r.round),
      fmtS(r.unzipMs),
      fmtS(r.uploadMs),
      fmtS(r.jobPolledMs),
      fmtS(r.endToEndMs),
      `${(r.endToEndMs / r.unzipMs).toFixed(2)}×`,
      fmtBytes(r.maxSampledRss),
      r.loadAvg.toFixed(2),
    ]);
    process.stdout.write(`all rounds\n${formatTable(header, rows)}\n\nmedian of the rounds\n`);
  }
  const m = (pick: (r: RoundResult) => number) => median(results.map(pick));
  const bytes = pkg.zipBytes;
  const unzipMs = m((r) => r.unzipMs);
  const endToEndMs = m((r) => r.endToEndMs);
  const jobMs = m((r) => r.jobPolledMs);
  // Each round's ratio to its own baseline (the machine's load changes between rounds), then the median.
  const e2eRatio = m((r) => r.endToEndMs / r.unzipMs);
  const jobRatio = m((r) => r.jobPolledMs / r.unzipMs);
  const peak = servicePeak?.peakRss ?? NaN;
  const maxSampled = Math.max(...results.map((r) => r.maxSampledRss));
  const verdict = (ok: boolean) => (ok ? 'MET' : 'MISS');
  const rows: string[][] = [
    ['upload (POST → job id)', fmtS(m((r) => r.uploadMs)), fmtRate(bytes, m((r) => r.uploadMs)), '', ''],
    ['  of which body sent', fmtS(m((r) => r.uploadSentMs)), fmtRate(bytes, m((r) => r.uploadSentMs)), '', ''],
    ['queue wait (job id → running)', fmtS(m((r) => r.queueWaitMs)), '', '', ''],
    ['import job (job id → COMPLETE)', fmtS(jobMs), fmtRate(bytes, jobMs), '', ''],
    ['  job run time (service log)', fmtS(m((r) => r.jobLoggedMs)), fmtRate(bytes, m((r) => r.jobLoggedMs)), '', ''],
    ['  upload → zip file to read', fmtS(m((r) => r.phases.copyMs)), fmtRate(bytes, m((r) => r.phases.copyMs)), '', ''],
    ['  extract to the store', fmtS(m((r) => r.phases.extractMs)), fmtRate(bytes, m((r) => r.phases.extractMs)), '', ''],
    ['  parse + save + status', fmtS(m((r) => r.phases.finishMs)), '', '', ''],
    ['end to end (POST → COMPLETE)', fmtS(endToEndMs), fmtRate(bytes, endToEndMs), '', ''],
    ['unzip -q (baseline)', fmtS(unzipMs), fmtRate(bytes, unzipMs), '', ''],
    ['end to end vs unzip', `${e2eRatio.toFixed(2)}×`, '', `≤ ${UNZIP_RATIO_GOAL}×`, verdict(e2eRatio <= UNZIP_RATIO_GOAL)],
    ['import job vs unzip', `${jobRatio.toFixed(2)}×`, '', `≤ ${UNZIP_RATIO_GOAL}×`, verdict(jobRatio <= UNZIP_RATIO_GOAL)],
    ['service peak RSS (VmHWM)', fmtBytes(peak), '', `< ${fmtBytes(RSS_GOAL_BYTES)}`, verdict(peak < RSS_GOAL_BYTES)],
    [`  max sampled RSS (every 100 ms)`, fmtBytes(maxSampled), '', '', ''],
    [
      '  max RSS upload/copy/extract/finish',
      (['upload', 'copy', 'extract', 'finish'] as const).map((k) => fmtBytes(Math.max(...results.map((r) => r.rssByPhase[k]))).replace(' MiB', '')).join(' / ') + ' MiB',
      '',
      '',
      '',
    ],
    ['service CPU during upload / job', `${m((r) => r.serviceCpuUploadPct).toFixed(0)} % / ${m((r) => r.serviceCpuJobPct).toFixed(0)} %`, '', '', ''],
  ];
  process.stdout.write(formatTable(['measure', 'value', 'throughput', 'target', 'goal'], rows, (c) => c === 1 || c === 2) + '\n\n');
  const last = results[results.length - 1];
  process.stdout.write(
    [
      `stored after import: ${Number.isFinite(last.storedFiles) ? `${last.storedFiles.toLocaleString('en-US')} files, ${fmtBytes(last.storedBytes)}` : 'n/a'} ` +
        `(package: ${pkg.files.toLocaleString('en-US')} files, ${fmtBytes(pkg.contentBytes)})`,
      `bench process peak RSS (VmHWM): ${fmtBytes(benchBeforeUpload?.peakRss ?? NaN)} before the first upload, ${fmtBytes(benchPeak?.peakRss ?? NaN)} at the end (the upload streams from disk)`,
      `load average: ${load0.toFixed(2)} before, ${results.map((r) => r.loadAvg.toFixed(2)).join(' / ')} after each import, ${loadavg()[0].toFixed(2)} at the end`,
      '(throughput: MiB of the zip file per second of the step; phases from polled progress, ±1 poll interval;',
      ' service CPU: % of one core used by the service during the upload / the job)',
      '',
    ].join('\n'),
  );

  const goalsMet = e2eRatio <= UNZIP_RATIO_GOAL && peak < RSS_GOAL_BYTES;
  if (process.env.BENCH_JSON) {
    writeFileSync(
      process.env.BENCH_JSON,
      JSON.stringify(
        {
          bench: 'import',
          date: new Date().toISOString(),
          node: process.version,
          cpus: cpus().length,
          stack: stack.kind,
          settings: { sizeMiB, fileCount, zipLevel, rounds, pollMs, logLevel },
          package: pkg,
          results,
          summary: { unzipMs, endToEndMs, jobMs, e2eRatio, jobRatio, servicePeakRss: peak, serviceRssAfterStart: rssAfterStart?.rss, maxSampledRss: maxSampled },
          goalsMet,
        },
        null,
        2,
      ) + '\n',
    );
  }
  await service.stop();
  if (cpuProf) {
    const found = readNewestProfile(profDir);
    if (found) process.stdout.write(`CPU profile of the service (whole life): ${found.file}\n${formatProfileSummary(summarizeProfile(found.profile))}\n`);
    else process.stdout.write(`no CPU profile written in ${profDir}\n`);
  }
  if (process.env.BENCH_ASSERT === '1' && !goalsMet) process.exitCode = 1;
}

void main()
  .catch((err: unknown) => {
    failed = true;
    process.stderr.write(`import benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(() => runCleanups());
