import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'cli.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm test` builds first; a bare `npx jest …` on a fresh checkout needs the build here. */
export function ensureCliBuilt(): void {
  if (existsSync(CLI)) return;
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 170_000 });
  if (build.status !== 0 || !existsSync(CLI)) {
    throw new Error(`npm run build failed (exit ${build.status}):\n${build.stdout}\n${build.stderr}`);
  }
}

/**
 * The built CLI as a child process with a stack's environment and nothing of this process's LCDS settings.
 * As in docker/compose.yaml, nothing but `lcds migrate` applies migrations.
 */
export function runCli(stackEnv: Record<string, string>, cwd: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const childEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? ROOT, ...stackEnv, LCDS_RUN_MIGRATIONS: 'false', ...env };
    execFile(process.execPath, [CLI, ...args], { cwd, env: childEnv, timeout: 45_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

export function cliJson<T>(r: CliResult): T {
  if (r.code !== 0) throw new Error(`lcds exited ${r.code}: ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout.trim()) as T;
}
