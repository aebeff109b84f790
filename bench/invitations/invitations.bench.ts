/**
 * Invitations benchmark: one private invitation of 10,000 addresses, from the request to the moment every
 * registration exists and every e-mail was accepted by SMTP (a local sink: smtp-server in this process, which counts
 * and drops messages). The service runs in a child process as in production; its peak RSS (VmHWM) is read at the end.
 *
 *   npm run bench:invitations                                    # embedded stack (SQLite)
 *   BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306 BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:invitations
 *
 * Settings (environment): BENCH_ADDRESSES (10000), BENCH_LOG_LEVEL, BENCH_ENV_<NAME>, BENCH_JSON (write the figures
 * to this file), BENCH_ASSERT (exit 1 when a goal is missed).
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { installExitHandlers, onCleanup, runCleanups } from '../lib/children';
import { envNumber, formatTable } from '../lib/format';
import { basicAuth, benchRunDir, createStack, ensureBuilt, startService } from '../lib/lcds';
import { api, importCourse } from '../lib/lcds-api';
import { readProcMemory } from '../lib/proc';
import { singleScoPackage } from '../launch/packages';

/** The goals on this machine. */
const GOAL_SECONDS = 30;
const GOAL_RSS_MIB = 250;

let failed = false;

/** An SMTP server that accepts every message and counts them. */
async function startSink(): Promise<{ url: string; accepted: () => number; close: () => Promise<void> }> {
  let accepted = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        accepted++;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return { url: `smtp://127.0.0.1:${port}`, accepted: () => accepted, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function main(): Promise<void> {
  installExitHandlers();
  const n = Math.max(1, Math.floor(envNumber('BENCH_ADDRESSES', 10_000)));
  await ensureBuilt();
  const runDir = benchRunDir('invitations', () => failed);
  const sink = await startSink();
  onCleanup('close the SMTP sink', () => sink.close());
  const stack = await createStack(runDir);
  const service = await startService(stack, { logFile: join(runDir, 'service.log'), env: { SMTP_URL: sink.url, MAIL_FROM: 'bench@lcds.test' } });
  const auth = basicAuth(service.firstStart.application);
  await importCourse(service, auth, 'course', await singleScoPackage());
  const load0 = loadavg()[0];
  const addresses = Array.from({ length: n }, (_, i) => `learner${i}@bench.example`);

  const started = Date.now();
  const created = await api(service, auth, 'POST', '/invitations/private', { courseId: 'course', creatingUserEmail: 'owner@bench.example', invitationEmail: { addresses } });
  if (created.status !== 200) throw new Error(`CreatePrivateInvitation answered ${created.status}: ${JSON.stringify(created.body)}`);
  const answeredMs = Date.now() - started;
  const id = created.body.id as string;
  let status: any;
  for (;;) {
    status = (await api(service, auth, 'GET', `/invitations/private/${id}/jobStatus`)).body;
    if (status.status !== 'STARTED' && sink.accepted() >= n) break;
    if (status.status === 'ERROR') throw new Error(`the job ended in ERROR: ${JSON.stringify(status.errors?.slice(0, 5))}`);
    if (Date.now() - started > 600_000) throw new Error(`not done after 10 minutes: ${JSON.stringify(status)}, ${sink.accepted()} accepted`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const totalMs = Date.now() - started;
  const peak = readProcMemory(service.pid);
  const regs = await fetch(`${service.api}/registrations?courseId=course&includeTotalCount=true`, { headers: { authorization: auth } });
  const registrations = Number(regs.headers.get('x-total-count'));
  await service.stop();

  const seconds = totalMs / 1000;
  const rssMiB = peak ? peak.peakRss / 2 ** 20 : NaN;
  const goalsMet = seconds < GOAL_SECONDS && rssMiB < GOAL_RSS_MIB && registrations === n && sink.accepted() === n;
  const out = [
    `invitations benchmark — one private invitation of ${n} addresses to a local SMTP sink`,
    `stack: ${stack.label}; node ${process.version}, ${cpus().length} CPU(s) ${cpus()[0]?.model ?? ''}, load average ${load0.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after`,
    '',
    formatTable(
      ['creation answered', 'all registered and sent', 'per address', 'registrations', 'e-mails accepted', 'service peak RSS', 'goals'],
      [
        [
          `${answeredMs} ms`,
          `${seconds.toFixed(1)} s`,
          `${(totalMs / n).toFixed(2)} ms`,
          String(registrations),
          String(sink.accepted()),
          `${rssMiB.toFixed(1)} MiB`,
          goalsMet ? `ok (< ${GOAL_SECONDS} s, < ${GOAL_RSS_MIB} MiB)` : `MISS (< ${GOAL_SECONDS} s, < ${GOAL_RSS_MIB} MiB)`,
        ],
      ],
    ),
  ].join('\n');
  process.stdout.write(`${out}\n`);
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ stack: stack.kind, addresses: n, answeredMs, totalMs, registrations, accepted: sink.accepted(), peakRssMiB: rssMiB, goalsMet }, null, 2));
  if (process.env.BENCH_ASSERT === '1' && !goalsMet) failed = true;
}

main()
  .catch((err: unknown) => {
    failed = true;
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  })
  .finally(() => void runCleanups().then(() => process.exit(failed ? 1 : 0)));
