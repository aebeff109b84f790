import { BootstrapService } from '../../src/modules/applications/bootstrap.service';
import { createHmac, randomBytes } from 'node:crypto';
import { fixture, importCourse, startUpload, waitForImport } from '../support/courses';
import { basic, call, startExtraNode, startTestServer, TestServer } from '../support/test-server';
import { createTestStack, isProductionStack } from '../support/test-stack';

// Several API nodes exist only on the production stack (MySQL + Redis); the embedded stack is one process.
const onCluster = isProductionStack() ? describe : describe.skip;

onCluster('several API nodes behind a load balancer', () => {
  let a: TestServer;
  let b: Awaited<ReturnType<typeof startExtraNode>>;
  let mgmt: string;

  beforeAll(async () => {
    a = await startTestServer();
    b = await startExtraNode(a.stack);
    mgmt = basic(a.firstStart.management.appId, a.firstStart.management.secretKey);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a key disabled or deleted through one node stops working at once on the other', async () => {
    const child = (await call(`${a.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'cluster' } })).body;
    const key = (await call(`${a.api}/appManagement/${child.id}/credentials`, { auth: mgmt })).body.credentials[0];
    const second = (await call(`${a.api}/appManagement/${child.id}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'second' } })).body;
    const k1 = basic(child.id, key.credential);
    const k2 = basic(child.id, second.credential);
    // Node B has both keys in memory now.
    expect((await call(`${b.api}/ping`, { auth: k1 })).status).toBe(200);
    expect((await call(`${b.api}/ping`, { auth: k2 })).status).toBe(200);

    expect((await call(`${a.api}/appManagement/${child.id}/credentials/${key.id}`, { method: 'PUT', auth: mgmt, json: { active: false } })).status).toBe(204);
    await waitUntil(async () => (await call(`${b.api}/ping`, { auth: k1 })).status === 401, 1000);

    expect((await call(`${a.api}/appManagement/${child.id}/credentials/${second.id}`, { method: 'DELETE', auth: mgmt })).status).toBe(204);
    await waitUntil(async () => (await call(`${b.api}/ping`, { auth: k2 })).status === 401, 1000);
  });

  it('a dispatch launched through one node plays the version imported through the other at its next launch', async () => {
    const auth = basic(a.firstStart.application.appId, a.firstStart.application.secretKey);
    await importCourse(a.api, auth, 'cluster-golf', fixture('scorm12-golf-runtime-basic.zip'));
    expect((await call(`${a.api}/dispatch/destinations`, { method: 'POST', auth, json: { destinations: [{ id: 'cluster-lms', data: { name: 'LMS' } }] } })).status).toBe(204);
    expect((await call(`${a.api}/dispatch/dispatches`, { method: 'POST', auth, json: { dispatches: [{ id: 'cluster-d', data: { destinationId: 'cluster-lms', courseId: 'cluster-golf' } }] } })).status).toBe(204);
    const { consumerKey, sharedSecret } = (await call(`${a.api}/dispatch/dispatches/cluster-d/lti`, { auth })).body as { consumerKey: string; sharedSecret: string };
    const launch = async () => {
      const payload = Buffer.from(JSON.stringify({ k: consumerKey, l: 'cluster-learner', o: 'http://lms.example.test', t: Math.floor(Date.now() / 1000), r: randomBytes(12).toString('base64url') })).toString('base64url');
      return (await call(`${b.baseUrl}/dispatch/launch?token=${encodeURIComponent(`${payload}.${createHmac('sha256', sharedSecret).update(payload).digest('base64url')}`)}`)).status;
    };
    const registration = async () => (await call(`${a.api}/registrations?courseId=cluster-golf`, { auth })).body.registrations[0];
    // Node B reads the course (and keeps it) for the first launch.
    expect(await launch()).toBe(200);
    expect(await registration()).toMatchObject({ instance: 0, course: { version: 1 } });
    await importCourse(a.api, auth, 'cluster-golf', fixture('scorm12-golf-runtime-basic.zip'), { mayCreateNewVersion: 'true' });
    await waitUntil(async () => {
      expect(await launch()).toBe(200);
      return (await registration()).instance === 1;
    }, 1000);
    expect(await registration()).toMatchObject({ instance: 1, course: { version: 2 } });
  });

  it('tokens and more tokens issued by one node work on the other', async () => {
    const form = new URLSearchParams({ scope: 'read:ping read:appmgmt' });
    const token = await call(`${a.api}/oauth/authenticate/application/token`, {
      method: 'POST',
      auth: mgmt,
      body: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect((await call(`${b.api}/ping`, { auth: `Bearer ${token.body.access_token}` })).status).toBe(200);
    for (let i = 0; i < 101; i++) await call(`${a.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: `n${i}` } });
    const first = await call(`${a.api}/appManagement/applicationList`, { auth: mgmt });
    const next = await call(`${b.api}/appManagement/applicationList?more=${encodeURIComponent(first.body.more)}`, { auth: mgmt });
    expect(next.status).toBe(200);
    expect(next.body.applications.length).toBeGreaterThan(0);
  });
});

onCluster('nodes starting together on an empty database', () => {
  it('migrate once under a lock and all come up', async () => {
    const stack = await createTestStack();
    try {
      const nodes = await Promise.all([startExtraNode(stack), startExtraNode(stack), startExtraNode(stack)]);
      for (const node of nodes) expect((await fetch(`${node.baseUrl}/health/ready`)).status).toBe(200);
      await Promise.all(nodes.map((n) => n.close()));
    } finally {
      await stack.destroy();
    }
  });
});

onCluster('API and worker processes', () => {
  it('an API node only queues imports, a worker node runs them and serves nothing but /health', async () => {
    const stack = await createTestStack();
    const api = await startExtraNode(stack, { LCDS_ROLE: 'api' });
    let worker: Awaited<ReturnType<typeof startExtraNode>> | undefined;
    try {
      const first = (await api.app.get(BootstrapService).runFirstStart())!;
      const auth = basic(first.application.appId, first.application.secretKey);
      const started = await startUpload(api.api, auth, 'via-worker', fixture('scorm12-golf-runtime-basic.zip'));
      await new Promise((r) => setTimeout(r, 1500));
      const waiting = await call(`${api.api}/courses/importJobs/${started.body.result}`, { auth });
      expect(waiting.body).toMatchObject({ status: 'RUNNING', message: 'Import queued' });

      worker = await startExtraNode(stack, { LCDS_ROLE: 'worker' });
      expect((await call(`${worker.api}/ping`, { auth })).status).toBe(404);
      expect((await call(`${worker.baseUrl}/health/ready`)).status).toBe(200);
      expect((await waitForImport(api.api, auth, started.body.result)).status).toBe('COMPLETE');
    } finally {
      await worker?.close();
      await api.close();
      await stack.destroy();
    }
  });
});

async function waitUntil(check: () => Promise<boolean>, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
