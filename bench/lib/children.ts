import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Child processes and clean-up for benchmarks. Every child is tracked; clean-up steps (stop a child, drop a
 * database, remove a temp dir) run last-registered-first on normal completion, on an error, and on
 * SIGINT/SIGTERM/SIGHUP; whatever child is still alive when this process exits is SIGKILLed.
 */

const live = new Set<ChildProcess>();
const cleanups: Array<{ label: string; fn: () => unknown }> = [];
let cleaning: Promise<void> | undefined;
let installed = false;

export function onCleanup(label: string, fn: () => unknown): void {
  cleanups.push({ label, fn });
}

/** Runs the registered clean-up steps once (later calls wait for the same run). */
export function runCleanups(): Promise<void> {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      const { label, fn } = cleanups.pop()!;
      try {
        await fn();
      } catch (err) {
        process.stderr.write(`clean-up "${label}" failed: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    }
    killAllNow();
  })();
  return cleaning;
}

function killAllNow(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/** Installs the exit/signal/error handlers (idempotent). Call first thing in a benchmark's main. */
export function installExitHandlers(): void {
  if (installed) return;
  installed = true;
  process.on('exit', killAllNow);
  const bail = (why: string, code: number) => {
    process.stderr.write(`\n${why}: stopping children and cleaning up…\n`);
    const hardStop = setTimeout(() => process.exit(code), 30_000);
    hardStop.unref();
    void runCleanups().finally(() => process.exit(code));
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => bail(signal, 130));
  process.on('uncaughtException', (err) => bail(`uncaught exception: ${err.stack ?? err.message}`, 1));
  process.on('unhandledRejection', (err) => bail(`unhandled rejection: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`, 1));
}

export interface TrackedChild {
  child: ChildProcess;
  pid: number;
  /** stdout and stderr of the child go to this file (not to a pipe: reading a pipe would cost this process CPU). */
  logFile: string;
  stop(graceMs?: number): Promise<void>;
}

/**
 * Spawns a child with stdout+stderr appended to logFile, tracked for clean-up. stop() sends SIGTERM (a Node
 * service shuts down gracefully; a --cpu-prof child writes its profile) and SIGKILL after graceMs.
 */
export function spawnLogged(command: string, args: string[], options: SpawnOptions & { logFile: string }): TrackedChild {
  const fd = openSync(options.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(command, args, { ...options, stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  if (child.pid === undefined) throw new Error(`could not start ${command} ${args.join(' ')}`);
  live.add(child);
  child.once('exit', () => live.delete(child));
  const stop = (graceMs = 15_000) => stopChild(child, graceMs);
  onCleanup(`stop ${command} ${args.join(' ')}`, () => stop());
  return { child, pid: child.pid, logFile: options.logFile, stop };
}

export async function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Waits until the child's log file has a line for which `match` answers a value, polling the file; fails if the
 * child exits first or after timeoutMs, with the end of the log in the message.
 */
export async function waitForLogLine<T>(tracked: TrackedChild, match: (line: string) => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = readFileSync(tracked.logFile, 'utf8');
    for (const line of text.split('\n')) {
      const found = match(line);
      if (found !== undefined) return found;
    }
    const { exitCode, signalCode } = tracked.child;
    if (exitCode !== null || signalCode !== null) {
      throw new Error(`child ${tracked.pid} exited (${exitCode ?? signalCode}) before it was ready; log ${tracked.logFile}:\n${tail(text)}`);
    }
    if (Date.now() > deadline) throw new Error(`child ${tracked.pid} not ready after ${timeoutMs} ms; log ${tracked.logFile}:\n${tail(text)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function tail(text: string, lines = 30): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
