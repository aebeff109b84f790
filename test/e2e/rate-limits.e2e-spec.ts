import { importCourse } from '../support/courses';
import { scoPackage } from '../support/player';
import { basic, call, startExtraNode, startTestServer, type TestServer } from '../support/test-server';
import { isProductionStack } from '../support/test-stack';

/**
 * #22 point 3: LCDS_RATE_LIMIT per application and per credential, the LRS's and the player's own budgets, 429 with
 * Retry-After, RateLimit-* headers and a MessageSchema body; one tenant spending its budget leaves others theirs.
 */
describe('rate limits per application', () => {
  let s: TestServer;
  let mgmt: string;
  let appA: string;
  let keyA1: string;
  let appB: { id: string; auth: string };
  const env = { LCDS_RATE_LIMIT: '40', LCDS_RATE_LIMIT_CREDENTIAL: '30', LCDS_RATE_LIMIT_LRS: '3', LCDS_RATE_LIMIT_PLAYER: '4' };
  const ping = (auth: string, api = s.api) => call(`${api}/ping`, { auth });

  beforeAll(async () => {
    s = await startTestServer(env);
    mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    appA = s.firstStart.application.appId;
    keyA1 = basic(appA, s.firstStart.application.secretKey);
    const created = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'tenant B' } });
    const key = await call(`${s.api}/appManagement/${created.body.id}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'b' } });
    appB = { id: created.body.id, auth: basic(created.body.id, key.body.credential) };
  }, 120_000);
  afterAll(async () => s?.close());

  it('answers 429 with Retry-After, RateLimit-* and a message past a credential\'s budget, then past the application\'s', async () => {
    const first = await ping(keyA1);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('30');
    let remaining = Number(first.headers.get('ratelimit-remaining'));
    expect(remaining).toBe(29);
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    while (remaining > 0) {
      const r = await ping(keyA1);
      expect(r.status).toBe(200);
      expect(Number(r.headers.get('ratelimit-remaining'))).toBe(remaining - 1);
      remaining--;
    }
    const refused = await ping(keyA1);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/^Rate limit exceeded: 30 API requests with this key or token per minute; retry in \d+ s$/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');

    // Another key of the same application has its own credential budget, and what is left of the application's (40).
    const key2 = await call(`${s.api}/appManagement/${appA}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'second' } });
    const keyA2 = basic(appA, key2.body.credential);
    let ok = 0;
    for (;;) {
      const r = await ping(keyA2);
      if (r.status !== 200) {
        expect(r.status).toBe(429);
        expect(r.body.message).toMatch(/40 API requests of this application per minute/);
        break;
      }
      ok++;
    }
    // 31 of keyA1 (the refused one spent a point too) and 9 of keyA2: the application's 40.
    expect(ok).toBe(9);
    // Tokens of the application spend its budget as well: obtaining one is refused now.
    const token = await call(`${s.api}/oauth/authenticate/application/token`, {
      method: 'POST',
      auth: keyA2,
      body: new URLSearchParams({ scope: 'read:ping' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(token.status).toBe(429);
  });

  it('leaves other applications their own budget', async () => {
    const r = await ping(appB.auth);
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit-remaining')).toBe('29');
  });

  it('the LRS has its own budget per application', async () => {
    expect((await call(`${s.api}/xapi/credentials/rl`, { method: 'PUT', auth: appB.auth, json: { name: 'rl', secret: 'rl-secret', isEnabled: true, auth: 'BASICAUTH', permissionsLevel: 'ROOT' } })).status).toBe(204);
    const lrs = (base = s.baseUrl) => call(`${base}/lrs/${appB.id}/statements?limit=1`, { auth: basic('rl', 'rl-secret'), headers: { 'x-experience-api-version': '1.0.3' } });
    for (let i = 0; i < 3; i++) expect((await lrs()).status).toBe(200);
    const refused = await lrs();
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/3 LRS requests of this application per minute/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The API of the same application is another budget.
    expect((await ping(appB.auth)).status).toBe(200);
  });

  it('the player\'s commits have their own budget per application, answered 429 with Retry-After', async () => {
    await importCourse(s.api, appB.auth, 'rl-course', { name: 'rl.zip', data: await scoPackage('2004', '') });
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: appB.auth, json: { registrationId: 'rl-reg', courseId: 'rl-course', learner: { id: 'rl-l' } } })).status).toBe(204);
    const link = await call(`${s.api}/registrations/rl-reg/launchLink`, { method: 'POST', auth: appB.auth, json: { redirectOnExitUrl: 'message' } });
    const res = await fetch(link.body.launchLink as string, { redirect: 'manual' });
    const player = new URL(res.headers.get('location')!, s.baseUrl).toString();
    const commit = (seq: number) =>
      fetch(`${player}commit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seq, activityId: 'sco-1', cmi: { 'cmi.location': `p${seq}` } }) });
    for (let seq = 1; seq <= 4; seq++) expect((await commit(seq)).status).toBe(200);
    const refused = await commit(5);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as { message: string }).message).toMatch(/4 runtime commits of this application per minute/);
  }, 60_000);

  (isProductionStack() ? it : it.skip)('is shared by every node through Redis', async () => {
    const other = await startExtraNode(s.stack, { ...env, LCDS_BOOTSTRAP: 'false' });
    try {
      const created = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'tenant C' } });
      const key = await call(`${s.api}/appManagement/${created.body.id}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'c' } });
      const c = basic(created.body.id, key.body.credential);
      for (let i = 0; i < 15; i++) expect((await ping(c)).status).toBe(200);
      const there = await ping(c, other.api);
      expect(there.status).toBe(200);
      expect(there.headers.get('ratelimit-remaining')).toBe('14');
    } finally {
      await other.close();
    }
  });
});
