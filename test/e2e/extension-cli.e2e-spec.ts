import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { dataSourceOptions } from '../../src/platform/database/data-source-options';
import { EXAMPLE, requireBuiltExample } from '../support/extension';
import { startServiceProcess } from '../support/service-process';
import { createTestStack, TestStack } from '../support/test-stack';

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');

/** The built CLI and service with LCDS_EXTENSIONS, as an operator runs them. */
describe('extensions: lcds migrate runs their migrations; a broken one stops the service with its name', () => {
  let stack: TestStack;

  beforeAll(async () => {
    requireBuiltExample();
    if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` (npm test does)');
    stack = await createTestStack();
  });
  afterAll(async () => stack?.destroy());

  const lcds = (args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const childEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? ROOT, ...stack.env, LCDS_RUN_MIGRATIONS: 'false', ...env };
      execFile(process.execPath, [CLI, ...args], { cwd: stack.dataDir, env: childEnv, timeout: 60_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout: String(stdout), stderr: String(stderr) });
      });
    });

  it("applies the extension's migration with LCDS's, once", async () => {
    const first = await lcds(['migrate'], { LCDS_EXTENSIONS: EXAMPLE });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Applied \d+ migration\(s\)/);
    const ds = new DataSource(dataSourceOptions(loadConfig({ ...stack.env })));
    await ds.initialize();
    try {
      const names = (await ds.query<Array<{ name: string }>>('SELECT name FROM schema_migrations')).map((r) => r.name);
      expect(names).toContain('RegistrationCompletedExport1767000000000');
      expect(await ds.query('SELECT COUNT(*) AS n FROM ext_registration_completed_export')).toEqual([{ n: 0 }]);
    } finally {
      await ds.destroy();
    }
    const again = await lcds(['migrate'], { LCDS_EXTENSIONS: EXAMPLE });
    expect(again.stdout).toMatch(/Database is up to date/);
  });

  it('a broken extension fails lcds migrate and the service start with a message naming it', async () => {
    const missing = join(stack.dataDir, 'no-such-extension');
    const migrate = await lcds(['migrate'], { LCDS_EXTENSIONS: missing });
    expect(migrate.code).toBe(1);
    expect(migrate.stderr).toContain(`Extension "${missing}" (LCDS_EXTENSIONS) was not found`);
    const svc = await startServiceProcess({ ...stack.env, LCDS_EXTENSIONS: missing });
    expect(await svc.exited).toBe(1);
    expect(svc.output()).toContain(`LCDS failed to start: Extension "${missing}" (LCDS_EXTENSIONS) was not found`);
  });
});
