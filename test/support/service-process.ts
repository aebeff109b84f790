import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './test-server';

const ROOT = join(__dirname, '..', '..');

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  /** JSON log lines the process printed. */
  lines: () => Array<Record<string, any>>;
  waitForLine: (predicate: (line: Record<string, any>) => boolean, timeoutMs?: number) => Promise<Record<string, any>>;
  exited: Promise<number | null>;
}

/** Runs the built service (`node dist/main.js`) as its own process, the way an operator does. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  if (!existsSync(join(ROOT, 'dist', 'main.js'))) throw new Error('dist/main.js is missing: run `npm run build` (npm test does)');
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: port, PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_FORMAT: 'json', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => {
        try {
          return JSON.parse(l) as Record<string, any>;
        } catch {
          return {};
        }
      });
  const waitForLine = (predicate: (line: Record<string, any>) => boolean, timeoutMs = 30_000) =>
    new Promise<Record<string, any>>((resolve, reject) => {
      const check = () => {
        const found = lines().find(predicate);
        if (found) {
          listeners.delete(check);
          clearTimeout(timer);
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`timed out waiting for a log line; output so far:\n${out.slice(-3000)}`));
      }, timeoutMs);
      listeners.add(check);
      void exited.then(() => {
        check();
        if (listeners.has(check)) {
          listeners.delete(check);
          clearTimeout(timer);
          reject(new Error(`process exited; output:\n${out.slice(-3000)}`));
        }
      });
      check();
    });
  return { child, baseUrl: `http://127.0.0.1:${port}`, output: () => out, lines, waitForLine, exited };
}
