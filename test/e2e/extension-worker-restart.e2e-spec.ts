import { DataSource } from 'typeorm';
import { BootstrapService } from '../../src/modules/applications/bootstrap.service';
import { importCourse } from '../support/courses';
import { completeThroughCommits, EXAMPLE, EXAMPLE_ROUTE, requireBuiltExample } from '../support/extension';
import { scoPackage, waitFor } from '../support/player';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { basic, call, startExtraNode } from '../support/test-server';
import { createTestStack, isProductionStack, TestStack } from '../support/test-stack';

/**
 * RegistrationCompleted reaches the example extension's durable listener even when no worker runs at the moment of
 * the completion: the delivery is a job row written in the commit's transaction, run once a worker is back.
 * Production stack: an API node (this process) and worker processes (`dist/main.js`, LCDS_ROLE=worker), the worker
 * killed before the learner completes. Embedded stack: the one process (role all) killed as soon as the completing
 * commit is answered, then started again on the same data directory.
 */
describe('extensions: the durable path survives a worker restart', () => {
  let stack: TestStack;
  const processes: ServiceProcess[] = [];
  const extensionEnv = () => ({ ...stack.env, LCDS_EXTENSIONS: EXAMPLE, LCDS_JOB_LOCK_MS: '1500', LOG_LEVEL: 'info' });

  beforeAll(async () => {
    requireBuiltExample();
    stack = await createTestStack();
  });
  afterAll(async () => {
    for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(processes.map((p) => p.exited));
    await stack?.destroy();
  });

  const start = async (env: Record<string, string>) => {
    const p = await startServiceProcess(env);
    processes.push(p);
    await p.waitForLine((l) => l.msg === 'LCDS started', 60_000);
    return p;
  };
  const kill = async (p: ServiceProcess) => {
    p.child.kill('SIGKILL');
    await p.exited;
  };
  const rows = async (baseUrl: string, auth: string) => (await call(`${baseUrl}${EXAMPLE_ROUTE}`, { auth })).body.completions as Array<{ registrationId: string }>;

  (isProductionStack() ? it : it.skip)('an API node writes the delivery while no worker runs; a worker started later delivers it', async () => {
    const api = await startExtraNode(stack, { LCDS_ROLE: 'api', LCDS_EXTENSIONS: EXAMPLE, LCDS_JOB_LOCK_MS: '1500' });
    try {
      const first = (await api.app.get(BootstrapService).runFirstStart())!;
      const auth = basic(first.application.appId, first.application.secretKey);
      const worker = await start({ ...extensionEnv(), LCDS_ROLE: 'worker' });
      await importCourse(api.api, auth, 'c2004', { name: 'c2004.zip', data: await scoPackage('2004', ''), type: 'application/zip' });
      await kill(worker);

      await completeThroughCommits(api.baseUrl, auth, 'done-while-down', 'c2004');
      const queued = () =>
        api.app
          .get(DataSource)
          .query<Array<{ status: string }>>(`SELECT status FROM job WHERE queue = 'domain-event' AND payload LIKE '%done-while-down%'`);
      expect((await queued()).map((r) => r.status)).toEqual(['queued']);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await rows(api.baseUrl, auth)).toEqual([]);

      await start({ ...extensionEnv(), LCDS_ROLE: 'worker' });
      const listed = await waitFor(() => rows(api.baseUrl, auth), (r) => r.length > 0, 30_000);
      expect(listed).toEqual([expect.objectContaining({ registrationId: 'done-while-down', courseId: 'c2004', success: 'PASSED', score: 0.9 })]);
      expect((await queued()).map((r) => r.status)).toEqual(['completed']);
    } finally {
      await api.close();
    }
  }, 180_000);

  (isProductionStack() ? it.skip : it)('the one process killed right after the completion delivers it once when it starts again', async () => {
    const first = await start(extensionEnv());
    const credentials = await first.waitForLine((l) => l.msg === 'first start credentials (shown once)');
    const auth = basic(credentials.application.appId, credentials.application.secretKey);
    await importCourse(`${first.baseUrl}/api/v2`, auth, 'c2004', { name: 'c2004.zip', data: await scoPackage('2004', ''), type: 'application/zip' });
    await completeThroughCommits(first.baseUrl, auth, 'done-then-killed', 'c2004');
    await kill(first);

    const again = await start(extensionEnv());
    const listed = await waitFor(() => rows(again.baseUrl, auth), (r) => r.length > 0, 30_000);
    expect(listed).toEqual([expect.objectContaining({ registrationId: 'done-then-killed', courseId: 'c2004', success: 'PASSED' })]);
    // At least once, and the listener's idempotency key keeps it at one row.
    await new Promise((r) => setTimeout(r, 2500));
    expect(await rows(again.baseUrl, auth)).toHaveLength(1);
  }, 180_000);
});
