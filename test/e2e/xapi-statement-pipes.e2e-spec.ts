import { randomUUID } from 'node:crypto';
import { LrsPeer } from '../support/lrs-peer';
import { failure, op, sc } from '../support/official-client';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * Statement pipes (/xapi/statementPipes): CRUD with the real schemas, and the worker forwarding statements between
 * two applications of ours, from our LRS to a separate LRS server (down, then up: retries), from that server to us
 * (409 while a run holds the pipe; an edit forwards everything again), and the official client's XapiApi.
 */
describe('xAPI statement pipes', () => {
  let s: TestServer;
  let appA: string;
  let authA: string;
  let secretA: string;
  let appB: string;
  let authB: string;
  const peer = new LrsPeer();
  const peer2 = new LrsPeer({ user: 'second', password: 'second-secret' });

  const statement = (n: number) => ({
    id: randomUUID(),
    actor: { objectType: 'Agent', name: `Learner ${n}`, mbox: `mailto:learner${n}@example.com` },
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced', display: { 'en-US': 'experienced' } },
    object: { id: `http://example.com/activities/${n % 7}`, definition: { name: { 'en-US': `Activity ${n % 7}` } } },
  });

  const waitFor = async <T>(read: () => T | Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await read();
      if (ok(v) || Date.now() > deadline) return v;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const lrsPost = async (appId: string, auth: string, list: unknown[]) => {
    const r = await call(`${s.baseUrl}/lrs/${appId}/statements`, { method: 'POST', auth, json: list, headers: { 'x-experience-api-version': '1.0.3' } });
    expect(r.status).toBe(200);
  };

  /** Every statement id in an application's LRS, following `more`. */
  const lrsIds = async (appId: string, auth: string): Promise<string[]> => {
    const ids: string[] = [];
    let url = `${s.baseUrl}/lrs/${appId}/statements?limit=500&format=ids`;
    for (;;) {
      const r = await call(url, { auth, headers: { 'x-experience-api-version': '1.0.3' } });
      expect(r.status).toBe(200);
      ids.push(...(r.body.statements as Array<{ id: string }>).map((x) => x.id));
      if (!r.body.more) return ids;
      url = `${s.baseUrl}${r.body.more as string}`;
    }
  };

  const getPipe = async (id: string, auth = authA) => (await call(`${s.api}/xapi/statementPipes/${id}`, { auth })).body;

  beforeAll(async () => {
    await peer.start();
    await peer2.start();
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true', LCDS_XAPI_PIPE_INTERVAL_MS: '300', LCDS_XAPI_PIPE_BACKOFF_MS: '200' });
    appA = s.firstStart.application.appId;
    secretA = s.firstStart.application.secretKey;
    authA = basic(appA, secretA);
    const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    appB = (await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'pipe target' } })).body.id;
    const key = await call(`${s.api}/appManagement/${appB}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'k' } });
    authB = basic(appB, key.body.credential);
    const cred = await call(`${s.api}/xapi/credentials/pipe-in`, {
      method: 'PUT',
      auth: authB,
      json: { name: 'pipe in', secret: 'pipe-in-secret', isEnabled: true, auth: 'BASICAUTH', permissionsLevel: 'ROOT' },
    });
    expect(cred.status).toBe(204);
  });

  afterAll(async () => {
    await s?.close();
    await peer.close();
    await peer2.close();
  });

  it('validates pipes, keeps them per application and lists them unpaged', async () => {
    const target = { url: peer.url, userName: 'peer', password: 'peer-secret' };
    for (const [json, message] of [
      [{}, /target/],
      [{ target: { url: 'ftp://example.com/lrs' } }, /target\.url.*http/],
      [{ target: { url: 'not a url' } }, /target\.url/],
      [{ target, source: { userName: 'x' } }, /url/],
    ] as const) {
      const r = await call(`${s.api}/xapi/statementPipes`, { method: 'POST', auth: authA, json });
      expect({ status: r.status, message: r.body.message }).toEqual({ status: 400, message: expect.stringMatching(message) });
    }
    const created = await call(`${s.api}/xapi/statementPipes`, { method: 'POST', auth: authA, json: { source: { url: 'http://127.0.0.1:9/xapi/statements', userName: 'u', password: 'p' }, target } });
    expect(created.status).toBe(200);
    const id = created.body.result as string;
    expect(await getPipe(id)).toMatchObject({ id, attempts: expect.any(Number), visibleAfter: expect.any(String), source: { url: 'http://127.0.0.1:9/xapi/statements', userName: 'u', password: 'p' }, target });
    expect((await call(`${s.api}/xapi/statementPipes`, { auth: authA })).body.xapiStatementPipes.map((p: { id: string }) => p.id)).toContain(id);
    // Another application's pipe looks like one that does not exist.
    expect((await call(`${s.api}/xapi/statementPipes/${id}`, { auth: authB })).status).toBe(404);
    expect((await call(`${s.api}/xapi/statementPipes/${id}`, { method: 'PUT', auth: authB, json: { target } })).status).toBe(404);
    expect((await call(`${s.api}/xapi/statementPipes/${id}`, { method: 'DELETE', auth: authB })).status).toBe(404);
    expect((await call(`${s.api}/xapi/statementPipes`, { auth: authB })).body).toEqual({ xapiStatementPipes: [] });
    expect((await call(`${s.api}/xapi/statementPipes/${id}`, { method: 'DELETE', auth: authA })).status).toBe(204);
    expect((await call(`${s.api}/xapi/statementPipes/${id}`, { auth: authA })).status).toBe(404);
  });

  it('forwards from one application of ours to another, following more, and keeps forwarding new statements', async () => {
    const batch = Array.from({ length: 230 }, (_, i) => statement(i));
    await lrsPost(appA, authA, batch.slice(0, 120));
    await lrsPost(appA, authA, batch.slice(120));
    const created = await call(`${s.api}/xapi/statementPipes`, {
      method: 'POST',
      auth: authA,
      json: { source: { url: `${s.baseUrl}/lrs/${appA}/statements`, userName: appA, password: secretA }, target: { url: `${s.baseUrl}/lrs/${appB}/`, userName: 'pipe-in', password: 'pipe-in-secret' } },
    });
    expect(created.status).toBe(200);
    const id = created.body.result as string;
    const inB = await waitFor(() => lrsIds(appB, authB), (ids) => ids.length >= 230);
    expect(new Set(inB)).toEqual(new Set(batch.map((x) => x.id)));
    const newest = (await call(`${s.baseUrl}/lrs/${appA}/statements?limit=1`, { auth: authA, headers: { 'x-experience-api-version': '1.0.3' } })).body.statements[0].stored as string;
    const pipe = await waitFor(() => getPipe(id), (p) => p.lastForwardedStatementDate === newest);
    expect(pipe).toMatchObject({ id, attempts: 0, lastForwardedStatementDate: newest });
    expect(pipe.moreUrl).toBeUndefined();

    const later = [statement(1000), statement(1001)];
    await lrsPost(appA, authA, later);
    const after = await waitFor(() => lrsIds(appB, authB), (ids) => ids.length >= 232);
    expect(after).toHaveLength(232);
    expect(after).toEqual(expect.arrayContaining(later.map((x) => x.id)));
    expect((await call(`${s.api}/xapi/statementPipes/${id}`, { method: 'DELETE', auth: authA })).status).toBe(204);
  });

  it('retries with backoff while a separate LRS is down, then forwards every statement of our LRS once', async () => {
    peer.down = true;
    const created = await call(`${s.api}/xapi/statementPipes`, { method: 'POST', auth: authA, json: { target: { url: peer.url, userName: 'peer', password: 'peer-secret' } } });
    const id = created.body.result as string;
    const failing = await waitFor(() => getPipe(id), (p) => p.attempts >= 2);
    expect(failing.attempts).toBeGreaterThanOrEqual(2);
    expect(Date.parse(failing.visibleAfter)).toBeGreaterThan(Date.now() - 5_000);
    expect(peer.received.size).toBe(0);

    peer.down = false;
    const ours = await lrsIds(appA, authA);
    await waitFor(() => peer.received.size, (n) => n >= ours.length);
    expect(new Set(peer.received.keys())).toEqual(new Set(ours));
    expect([...peer.received.values()].every((n) => n === 1)).toBe(true);
    expect(await waitFor(() => getPipe(id), (p) => p.attempts === 0)).toMatchObject({ attempts: 0, source: { url: `${s.baseUrl}/lrs/${appA}/statements` } });
    expect((await call(`${s.api}/xapi/statementPipes/${id}`, { method: 'DELETE', auth: authA })).status).toBe(204);
  });

  it('pulls from a separate LRS into ours; 409 to an edit during a run; an edit forwards everything again', async () => {
    const remote = Array.from({ length: 350 }, (_, i) => statement(5000 + i));
    peer.seed(remote);
    // The peer also holds what the previous test forwarded to it: the pipe reads all of it.
    const all = peer.statements.map((x) => x.id as string);
    peer.readDelayMs = 250;
    const readsBefore = peer.reads;
    const created = await call(`${s.api}/xapi/statementPipes`, {
      method: 'POST',
      auth: authB,
      json: { source: { url: peer.url, userName: 'peer', password: 'peer-secret' }, target: { url: `${s.baseUrl}/lrs/${appB}`, userName: 'pipe-in', password: 'pipe-in-secret' } },
    });
    const id = created.body.result as string;
    await waitFor(() => peer.reads, (n) => n > readsBefore, 10_000);
    const busy = await call(`${s.api}/xapi/statementPipes/${id}`, { method: 'PUT', auth: authB, json: { target: { url: peer2.url, userName: 'second', password: 'second-secret' } } });
    expect(busy.status).toBe(409);
    expect(busy.body.message).toMatch(/being processed/);
    const inB = await waitFor(() => lrsIds(appB, authB), (ids) => all.every((r) => ids.includes(r)));
    expect(inB).toEqual(expect.arrayContaining(all));
    expect((await getPipe(id, authB)).target.url).toBe(`${s.baseUrl}/lrs/${appB}`);

    peer.readDelayMs = 0;
    const editAt = await waitFor(
      async () => (await call(`${s.api}/xapi/statementPipes/${id}`, { method: 'PUT', auth: authB, json: { target: { url: peer2.url, userName: 'second', password: 'second-secret' } } })).status,
      (st) => st === 200,
    );
    expect(editAt).toBe(200);
    await waitFor(() => peer2.received.size, (n) => n >= all.length);
    expect(new Set(peer2.received.keys())).toEqual(new Set(all));
    // An edit starts over: everything is forwarded again.
    expect((await call(`${s.api}/xapi/statementPipes/${id}`, { method: 'PUT', auth: authB, json: {} })).status).toBe(200);
    await waitFor(() => [...peer2.received.values()], (counts) => counts.every((n) => n >= 2));
    expect([...peer2.received.values()].every((n) => n === 2)).toBe(true);
    expect((await call(`${s.api}/xapi/statementPipes/${id}`, { method: 'DELETE', auth: authB })).status).toBe(204);
  });

  it('works through the official client (XapiApi)', async () => {
    const apiClient = new sc.ApiClient();
    apiClient.basePath = s.api;
    Object.assign(apiClient.authentications.APP_NORMAL, { username: appA, password: secretA });
    const xapi = new sc.XapiApi(apiClient);
    const body = sc.XapiStatementPipePostSchema.constructFromObject({ source: { url: 'http://127.0.0.1:9/a/', userName: 'a', password: 'b' }, target: { url: 'http://127.0.0.1:9/b/' } });
    const created = await op(xapi, 'createStatementPipe', body);
    const id = created.result as string;
    const got = await op(xapi, 'getStatementPipe', id);
    expect(got).toMatchObject({ id, attempts: expect.any(Number), source: { url: 'http://127.0.0.1:9/a/', userName: 'a', password: 'b' }, target: { url: 'http://127.0.0.1:9/b/' } });
    const list = await op(xapi, 'getStatementPipes');
    expect(list.xapiStatementPipes.map((p: { id: string }) => p.id)).toContain(id);
    // The pipe's first run against the unreachable example LRS may hold it for a moment: retry on 409.
    const put = sc.XapiStatementPipePutSchema.constructFromObject({ target: { url: 'http://127.0.0.1:9/c/' } });
    const updated = await waitFor(
      () => op(xapi, 'setStatementPipe', id, put).catch((e: { status?: number }) => ({ result: `status ${e.status}` })),
      (r: { result: string }) => r.result === id,
    );
    expect(updated.result).toBe(id);
    expect((await op(xapi, 'getStatementPipe', id)).target.url).toBe('http://127.0.0.1:9/c/');
    await op(xapi, 'deleteStatementPipe', id);
    expect((await failure(xapi, 'getStatementPipe', id)).status).toBe(404);
  });
});
