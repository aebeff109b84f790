import { countQueries } from '../support/query-counter';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

describe('authentication, tokens and scopes', () => {
  let s: TestServer;
  let app: string;
  let mgmt: string;

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
  });
  afterAll(async () => s?.close());

  async function appToken(auth: string, scope: string, expiration?: number) {
    const form = new URLSearchParams({ scope, ...(expiration !== undefined ? { expiration: String(expiration) } : {}) });
    return call(`${s.api}/oauth/authenticate/application/token`, {
      method: 'POST',
      auth,
      body: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }

  it('answers ping with basic credentials and 401 {error} without', async () => {
    const ok = await call(`${s.api}/ping`, { auth: app });
    expect(ok.status).toBe(200);
    expect(ok.body.apiMessage).toBe('pong');
    expect(new Date(ok.body.currentTime).getTime()).toBeGreaterThan(Date.now() - 60_000);

    const none = await call(`${s.api}/ping`);
    expect(none.status).toBe(401);
    expect(typeof none.body.error).toBe('string');
    expect(none.headers.get('www-authenticate')).toContain('Basic');
  });

  it('checks keys and tokens from memory: no database round trip per request', async () => {
    const token = (await appToken(app, 'read:ping')).body.access_token as string;
    await call(`${s.api}/ping`, { auth: app });
    await call(`${s.api}/ping`, { auth: `Bearer ${token}` });
    const counter = countQueries(s.app);
    try {
      for (let i = 0; i < 25; i++) {
        expect((await call(`${s.api}/ping`, { auth: app })).status).toBe(200);
        expect((await call(`${s.api}/ping`, { auth: `Bearer ${token}` })).status).toBe(200);
      }
      expect(counter.count).toBe(0);
    } finally {
      counter.stop();
    }
  });

  it('refuses a wrong secret, an unknown application and a garbled header with 401', async () => {
    for (const auth of [basic(s.firstStart.application.appId, 'wrong'), basic('NOSUCHAPP', 'x'), 'Basic !!!', 'Digest abc', 'Bearer']) {
      const r = await call(`${s.api}/ping`, { auth });
      expect(r.status).toBe(401);
      expect(r.body.error).toEqual(expect.any(String));
    }
  });

  it('answers about', async () => {
    const r = await call(`${s.api}/about`, { auth: app });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+/), distribution: 'lcds' });
  });

  it('issues bearer tokens by form (GetAppToken) that carry their scopes and expire', async () => {
    const t = await appToken(app, 'read:ping read:course', 600);
    expect(t.status).toBe(200);
    expect(t.body).toEqual({ access_token: expect.any(String), expires_in: 600, token_type: 'Bearer' });
    const bearer = `Bearer ${t.body.access_token}`;
    expect((await call(`${s.api}/ping`, { auth: bearer })).status).toBe(200);

    const narrow = await appToken(app, 'read:course');
    const denied = await call(`${s.api}/ping`, { auth: `Bearer ${narrow.body.access_token}` });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/read:ping/);

    const admin = await appToken(app, 'admin');
    expect((await call(`${s.api}/ping`, { auth: `Bearer ${admin.body.access_token}` })).status).toBe(200);

    // Verified once while valid (TokenService remembers verified tokens), then refused once it expired.
    const short = await appToken(app, 'read:ping', 2);
    expect((await call(`${s.api}/ping`, { auth: `Bearer ${short.body.access_token}` })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 3100));
    const expired = await call(`${s.api}/ping`, { auth: `Bearer ${short.body.access_token}` });
    expect(expired.status).toBe(401);
    expect(expired.body.error).toMatch(/expired/i);
  });

  it('refuses a tampered token and a token signed with another key', async () => {
    const t = await appToken(app, 'read:ping');
    const [h, p, sig] = (t.body.access_token as string).split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, scope: 'admin' })).toString('base64url');
    for (const token of [`${h}.${forged}.${sig}`, `${h}.${p}.${sig.slice(0, -2)}xx`, 'not-a-token']) {
      const r = await call(`${s.api}/ping`, { auth: `Bearer ${token}` });
      expect(r.status).toBe(401);
    }
  });

  it('issues tokens by TokenRequestSchema (CreateToken)', async () => {
    const expiry = new Date(Date.now() + 3600_000).toISOString();
    const r = await call(`${s.api}/appManagement/token`, { method: 'POST', auth: app, json: { permissions: { scopes: ['read:ping'], applicationName: 'reporting' }, expiry } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ result: expect.any(String) });
    expect((await call(`${s.api}/ping`, { auth: `Bearer ${r.body.result}` })).status).toBe(200);

    const past = await call(`${s.api}/appManagement/token`, { method: 'POST', auth: app, json: { permissions: { scopes: ['read'] }, expiry: '2001-01-01T00:00:00Z' } });
    expect(past.status).toBe(400);
    expect(past.body.message).toMatch(/expiry/);

    const badScope = await call(`${s.api}/appManagement/token`, { method: 'POST', auth: app, json: { permissions: { scopes: ['read:everything'] }, expiry } });
    expect(badScope.status).toBe(400);
    expect(badScope.body.message).toMatch(/read:everything/);

    const wrongType = await call(`${s.api}/appManagement/token`, { method: 'POST', auth: app, json: { permissions: { scopes: 'read' }, expiry: 5 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toMatch(/permissions\.scopes/);
    expect(wrongType.body.message).toMatch(/expiry/);
  });

  it('does not let a bearer token obtain tokens or a normal application obtain management scopes', async () => {
    const t = await appToken(app, 'admin');
    const viaBearer = await call(`${s.api}/appManagement/token`, {
      method: 'POST',
      auth: `Bearer ${t.body.access_token}`,
      json: { permissions: { scopes: ['read'] }, expiry: new Date(Date.now() + 60_000).toISOString() },
    });
    expect(viaBearer.status).toBe(403);
    const mgmtScope = await appToken(app, 'read:appmgmt');
    expect(mgmtScope.status).toBe(400);
  });

  it('keeps management operations to management applications', async () => {
    const normal = await call(`${s.api}/appManagement/applications`, { auth: app });
    expect(normal.status).toBe(403);
    expect(normal.body.message).toMatch(/management/);

    const normalToken = await appToken(app, 'admin');
    expect((await call(`${s.api}/appManagement/applications`, { auth: `Bearer ${normalToken.body.access_token}` })).status).toBe(403);

    const mgmtToken = await appToken(mgmt, 'read:appmgmt');
    const list = await call(`${s.api}/appManagement/applications`, { auth: `Bearer ${mgmtToken.body.access_token}` });
    expect(list.status).toBe(200);
    const create = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: `Bearer ${mgmtToken.body.access_token}`, json: { name: 'x' } });
    expect(create.status).toBe(403);
  });

  it('stops every token of a deleted application', async () => {
    const created = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'short-lived' } });
    const creds = await call(`${s.api}/appManagement/${created.body.id}/credentials`, { auth: mgmt });
    const childBasic = basic(created.body.id, creds.body.credentials[0].credential);
    const token = await appToken(childBasic, 'read:ping');
    expect((await call(`${s.api}/ping`, { auth: `Bearer ${token.body.access_token}` })).status).toBe(200);
    expect((await call(`${s.api}/appManagement/applications/${created.body.id}`, { method: 'DELETE', auth: mgmt })).status).toBe(204);
    expect((await call(`${s.api}/ping`, { auth: `Bearer ${token.body.access_token}` })).status).toBe(401);
    expect((await call(`${s.api}/ping`, { auth: childBasic })).status).toBe(401);
  });
});
