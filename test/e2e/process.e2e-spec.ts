import { Agent, request } from 'node:http';
import { startServiceProcess } from '../support/service-process';
import { createTestStack, TestStack } from '../support/test-stack';
import { basic, call, startTestServer } from '../support/test-server';

describe('the service as a process: start, first-start credentials, configuration errors, graceful stop', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await createTestStack();
  });
  afterAll(async () => stack?.destroy());

  it('refuses a bad configuration with exit code 2 and a message naming the variable', async () => {
    const svc = await startServiceProcess({ ...stack.env, PORT: 'eighty', LCDS_ROLE: 'everything' });
    expect(await svc.exited).toBe(2);
    expect(svc.output()).toMatch(/PORT=eighty must be an integer/);
    expect(svc.output()).toMatch(/LCDS_ROLE=everything must be one of api, worker, all/);
  });

  it('prints first-start credentials once, then finishes an in-flight request on SIGTERM before exiting', async () => {
    const svc = await startServiceProcess({ ...stack.env, LOG_LEVEL: 'info' });
    const first = await svc.waitForLine((l) => l.msg === 'first start credentials (shown once)');
    const mgmt = basic(first.management.appId, first.management.secretKey);
    expect((await call(`${svc.baseUrl}/api/v2/ping`, { auth: basic(first.application.appId, first.application.secretKey) })).status).toBe(200);

    // A request whose body is still arriving when the stop signal comes.
    const body = JSON.stringify({ name: 'created during shutdown' });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${svc.baseUrl}/api/v2/appManagement/applications`, {
        method: 'POST',
        headers: { authorization: mgmt, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        svc.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 500);
      }, 200);
    });
    const answered = await response;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body).name).toBe('created during shutdown');
    expect(await svc.exited).toBe(0);
    expect(svc.lines().some((l) => l.msg === 'shutting down')).toBe(true);

    // Second start on the same data: no new applications, no secrets printed, the application made during shutdown is there.
    const again = await startServiceProcess({ ...stack.env, LOG_LEVEL: 'info' });
    await again.waitForLine((l) => l.msg === 'LCDS started');
    const apps = await call(`${again.baseUrl}/api/v2/appManagement/applications`, { auth: mgmt });
    expect(apps.body.applications.map((a: { name: string }) => a.name)).toContain('created during shutdown');
    expect(again.output()).not.toContain('first start credentials');
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  });

  it('closing the application ends a keep-alive connection once its last response is out, not at the keep-alive timeout', async () => {
    const s = await startTestServer();
    const agent = new Agent({ keepAlive: true });
    const body = JSON.stringify({ name: 'created while closing' });
    let closing: Promise<void> | undefined;
    const answered = await new Promise<{ status: number; connection?: string; at: number }>((resolve, reject) => {
      const req = request(`${s.api}/appManagement/applications`, {
        agent,
        method: 'POST',
        headers: { authorization: basic(s.firstStart.management.appId, s.firstStart.management.secretKey), 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, at: Date.now() }));
      });
      req.on('error', reject);
      // The request is under way (its body half sent) when the application starts to close.
      req.write(body.slice(0, 10));
      setTimeout(() => {
        closing = s.close();
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 200);
    });
    expect(answered).toMatchObject({ status: 200, connection: 'close' });
    // Without the drain, the agent's socket would hold the server open for the 65 s keep-alive timeout.
    await closing;
    expect(Date.now() - answered.at).toBeLessThan(5_000);
    agent.destroy();
  }, 30_000);
});

