import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { importSPKI, jwtVerify, JWTPayload } from 'jose';
import { DataSource } from 'typeorm';
import { fixture, importCourse } from '../support/courses';
import { createClients, errorBody, failure, op, sc } from '../support/official-client';
import { followLaunch, learnerRegistrations, waitFor } from '../support/player';
import { basic, call, otherApplication, startTestServer, TestServer } from '../support/test-server';

/** What the partner server of these tests received: each request, and whether its token verified with the key it was given. */
interface PartnerRequest {
  method: string;
  path: string;
  body: any;
  claims: JWTPayload | null;
  error: string | null;
}

/**
 * A partner of the AI plugin, written here: verifies each request's bearer JWT with the public key the test hands it
 * (from GET /aiplugin/key), records it, answers statuses the test sets.
 */
async function startPartner() {
  const requests: PartnerRequest[] = [];
  const statuses = new Map<string, string>();
  let publicKey = '';
  const read = (req: IncomingMessage) => new Promise<string>((resolve) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => resolve(text));
  });
  const server: Server = createServer((req, res) => {
    void (async () => {
      const text = await read(req);
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      let claims: JWTPayload | null = null;
      let error: string | null = null;
      try {
        claims = (await jwtVerify(token, await importSPKI(publicKey, 'ES256'), { audience: 'aiplugin' })).payload;
      } catch (err) {
        error = (err as Error).message;
      }
      const path = req.url ?? '';
      requests.push({ method: req.method ?? '', path, body: text ? JSON.parse(text) : null, claims, error });
      if (error) return void res.writeHead(401).end();
      if (req.method === 'POST' && path === '/courses') return void res.writeHead(202).end();
      const status = statuses.get(path);
      if (req.method === 'GET') return void (status ? res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status })) : res.writeHead(404).end());
      if (req.method === 'DELETE') return void res.writeHead(204).end();
      res.writeHead(405).end();
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    statuses,
    trust: (pem: string) => void (publicKey = pem),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const configOf = (html: string) => JSON.parse(/<script id="lcds-config" type="application\/json">(.*?)<\/script>/s.exec(html)![1]);

describe('AI plugin service (/aiplugin, /zoomi) with a partner', () => {
  let s: TestServer;
  let partner: Awaited<ReturnType<typeof startPartner>>;
  let app: string;
  let appId: string;
  let otherApp: string;
  let zoomi: any;
  const regs = learnerRegistrations(() => s, () => app, { id: 'ai-learner', firstName: 'Ada', lastName: 'Lovelace' });

  beforeAll(async () => {
    partner = await startPartner();
    s = await startTestServer({ LCDS_AIPLUGIN_URL: `${partner.url}/` });
    appId = s.firstStart.application.appId;
    app = basic(appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'ai-golf', fixture('scorm12-golf-runtime-basic.zip'));
    zoomi = new sc.ZoomiApi(createClients(s.api, { normal: [appId, s.firstStart.application.secretKey] }).apiClient);
    otherApp = await otherApplication(s);
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    await partner?.close();
  });

  it('company id: 404 until set, set by either name (and by the official client), 400 without one', async () => {
    expect((await call(`${s.api}/aiplugin`, { auth: app })).status).toBe(404);
    expect((await call(`${s.api}/aiplugin`, { method: 'PUT', auth: app, json: { zoomi_company_id: 'acme' } })).status).toBe(204);
    expect((await call(`${s.api}/aiplugin`, { auth: app })).body).toEqual({ result: 'acme' });
    expect((await call(`${s.api}/aiplugin`, { method: 'PUT', auth: app, json: { companyId: 'acme-2' } })).status).toBe(204);
    expect((await op(zoomi, 'getApplicationZoomiCompanyId')).result).toBe('acme-2');
    await op(zoomi, 'setApplicationZoomiCompanyId', Object.assign(new sc.ZoomiCompanyId(), { zoomiCompanyId: 'acme-3' }));
    expect((await call(`${s.api}/zoomi`, { auth: app })).body).toEqual({ result: 'acme-3' });
    for (const json of [{}, { zoomi_company_id: 7 }, { zoomi_company_id: '' }, { zoomi_company_id: 'a', companyId: 'b' }]) {
      const r = await call(`${s.api}/aiplugin`, { method: 'PUT', auth: app, json });
      expect(r.status).toBe(400);
      expect(typeof r.body.message).toBe('string');
    }
    // Another application has none of it.
    expect((await call(`${s.api}/aiplugin`, { auth: otherApp })).status).toBe(404);
  });

  it('enabled per course version, with nti/cta; 404 for unknown or another application’s course or version', async () => {
    expect(await op(zoomi, 'getCourseZoomiEnabled', 'ai-golf', 1)).toMatchObject({ enabled: false });
    expect((await call(`${s.api}/aiplugin/course/ai-golf/version/1/enabled`, { method: 'PUT', auth: app, json: { nti: 'n1', cta: 'c1' } })).status).toBe(204);
    expect((await call(`${s.api}/aiplugin/course/ai-golf/version/1/enabled`, { auth: app })).body).toEqual({ enabled: true });
    await op(zoomi, 'setCourseZoomiEnabled', 'ai-golf', 1, Object.assign(new sc.EnabledSchema(), { enabled: false }));
    expect((await op(zoomi, 'getCourseZoomiEnabled', 'ai-golf', 1)).enabled).toBe(false);
    for (const path of ['course/nope/version/1', 'course/ai-golf/version/9', 'course/ai-golf/version/1/enabled']) {
      const auth = path.endsWith('enabled') ? otherApp : app;
      const r = await call(`${s.api}/aiplugin/${path.replace('/enabled', '')}/enabled`, { auth });
      expect(r.status).toBe(404);
      expect((await call(`${s.api}/zoomi/${path.replace('/enabled', '')}`, { auth })).status).toBe(404);
    }
    expect((await call(`${s.api}/aiplugin/course/ai-golf/version/x/enabled`, { auth: app })).status).toBe(400);
    expect((await call(`${s.api}/aiplugin/course/ai-golf/version/1/enabled`, { method: 'PUT', auth: app, json: { enabled: 'yes' } })).status).toBe(400);
    expect(errorBody(await failure(zoomi, 'getCourseZoomiEnabled', 'nope', 1)).message).toMatch(/not found/);
  });

  it('status imports the version to the partner with a verifiable signature, then answers the partner’s status strings', async () => {
    const key = (await op(zoomi, 'getApplicationZoomiPublicKey')).result as string;
    expect(key).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect((await call(`${s.api}/aiplugin/key`, { auth: app })).body.result).toBe(key);
    // The private key is stored sealed, never as PEM.
    const [stored] = await s.app.get(DataSource).query('SELECT private_key AS k FROM ai_plugin_app WHERE app_id = ?', [appId]);
    expect(stored.k).toMatch(/^v1\./);
    expect(stored.k).not.toContain('PRIVATE KEY');
    partner.trust(key);
    await call(`${s.api}/aiplugin/course/ai-golf/version/1/enabled`, { method: 'PUT', auth: app, json: { enabled: true, nti: 'n2', cta: 'c2' } });

    expect((await call(`${s.api}/aiplugin/course/ai-golf/version/1`, { auth: app })).body).toEqual({ result: 'IMPORT_QUEUED' });
    const imported = await waitFor(() => Promise.resolve(partner.requests.find((r) => r.method === 'POST')), (r) => r !== undefined);
    expect(imported!.error).toBeNull();
    expect(imported!.claims).toMatchObject({ iss: appId, aud: 'aiplugin', op: 'import', courseId: 'ai-golf', version: 1, companyId: 'acme-3' });
    expect(imported!.body).toEqual({ companyId: 'acme-3', applicationId: appId, courseId: 'ai-golf', version: 1, title: expect.any(String), nti: 'n2', cta: 'c2' });

    const statusPath = `/courses/${encodeURIComponent(appId)}/ai-golf/1`;
    await waitFor(async () => (await call(`${s.api}/aiplugin/course/ai-golf/version/1`, { auth: app })).body.result, (r) => r === 'NOT_IMPORTED');
    partner.statuses.set(statusPath, 'PROCESSING');
    expect((await op(zoomi, 'getZoomiCourseStatus', 'ai-golf', 1)).result).toBe('PROCESSING');
    partner.statuses.set(statusPath, 'READY');
    expect((await call(`${s.api}/zoomi/course/ai-golf/version/1`, { auth: app })).body).toEqual({ result: 'READY' });
    expect(partner.requests.filter((r) => r.method === 'GET').every((r) => r.error === null && r.claims?.op === 'status')).toBe(true);

    // ImportCourseVersionToZoomi: new options, imported again.
    const before = partner.requests.filter((r) => r.method === 'POST').length;
    await op(zoomi, 'importCourseVersionToZoomi', 'ai-golf', 1, Object.assign(new sc.ZoomiCourseOptionsSchema(), { nti: 'n3', cta: 'c3' }));
    const again = await waitFor(() => Promise.resolve(partner.requests.filter((r) => r.method === 'POST')), (r) => r.length > before);
    expect(again[again.length - 1].body).toMatchObject({ nti: 'n3', cta: 'c3' });
    expect((await call(`${s.api}/zoomi/course/ai-golf/version/1/import`, { method: 'PUT', auth: app, json: { nti: 'n' } })).status).toBe(400);
    expect((await call(`${s.api}/zoomi/course/ai-golf/version/1/import`, { method: 'PUT', auth: otherApp, json: { nti: 'n', cta: 'c' } })).status).toBe(404);
  });

  it('a launch of an enabled version carries a signed launch token and the partner script; a disabled one nothing of the partner', async () => {
    const key = (await call(`${s.api}/aiplugin/key`, { auth: app })).body.result as string;
    await regs.createReg('ai-reg-1', 'ai-golf');
    const { html, page } = await followLaunch(s.baseUrl, await regs.link('ai-reg-1'));
    const cfg = configOf(html);
    // The page's policy lets the partner's script run and talk to its origin.
    const csp = (await fetch(page)).headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`script-src 'self' ${new URL(partner.url).origin}`);
    expect(cfg.aiPlugin).toMatchObject({ nti: 'n3', cta: 'c3' });
    expect(html).toContain(`<script src="${partner.url}/launch.js" defer></script>`);
    const { payload } = await jwtVerify(cfg.aiPlugin.token, await importSPKI(key, 'ES256'), { audience: 'aiplugin', issuer: appId });
    expect(payload).toMatchObject({ application: appId, course: 'ai-golf', version: 1, registration: 'ai-reg-1', learner: 'ai-learner', nti: 'n3', cta: 'c3' });
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(300);

    await call(`${s.api}/aiplugin/course/ai-golf/version/1/enabled`, { method: 'PUT', auth: app, json: { enabled: false } });
    const off = await followLaunch(s.baseUrl, await regs.link('ai-reg-1'));
    expect(configOf(off.html).aiPlugin).toBeNull();
    expect(off.html).not.toContain(partner.url);
  });

  it('DELETE course removes it at the partner; DELETE key makes a new pair and old signatures stop verifying', async () => {
    const oldKey = (await call(`${s.api}/aiplugin/key`, { auth: app })).body.result as string;
    await call(`${s.api}/aiplugin/course/ai-golf/version/1/enabled`, { method: 'PUT', auth: app, json: { enabled: true } });
    const { html } = await followLaunch(s.baseUrl, await regs.link('ai-reg-1'));
    const oldToken = configOf(html).aiPlugin.token as string;

    await op(zoomi, 'deleteZoomiCourse', 'ai-golf', 1);
    expect(partner.requests.at(-1)).toMatchObject({ method: 'DELETE', path: `/courses/${encodeURIComponent(appId)}/ai-golf/1`, error: null });
    expect((await call(`${s.api}/aiplugin/course/ai-golf/version/1`, { method: 'DELETE', auth: otherApp })).status).toBe(404);

    await op(zoomi, 'deleteApplicationZoomiKeys');
    const newKey = (await call(`${s.api}/aiplugin/key`, { auth: app })).body.result as string;
    expect(newKey).not.toBe(oldKey);
    await expect(jwtVerify(oldToken, await importSPKI(newKey, 'ES256'))).rejects.toThrow();
    // The partner still trusting the old key refuses the new signatures.
    const n = partner.requests.length;
    expect((await call(`${s.api}/aiplugin/course/ai-golf/version/1`, { auth: app })).body).toEqual({ result: 'IMPORT_QUEUED' });
    const refused = await waitFor(() => Promise.resolve(partner.requests.slice(n)), (r) => r.length > 0);
    expect(refused[0].error).not.toBeNull();
    partner.trust(newKey);
    await waitFor(() => Promise.resolve(partner.requests.slice(n).filter((r) => r.error === null && r.method === 'POST')), (r) => r.length > 0, 20_000);
    await waitFor(async () => (await call(`${s.api}/aiplugin/course/ai-golf/version/1`, { auth: app })).body.result, (r) => r === 'NOT_IMPORTED');
  });

  it('deleting the course removes it at the partner and forgets its settings (a new course of that id starts disabled)', async () => {
    const m = partner.requests.length;
    expect((await call(`${s.api}/courses/ai-golf`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect(partner.requests.slice(m)).toEqual([expect.objectContaining({ method: 'DELETE', path: `/courses/${encodeURIComponent(appId)}/ai-golf/1`, error: null })]);
    await importCourse(s.api, app, 'ai-golf', fixture('scorm12-golf-runtime-basic.zip'));
    expect((await call(`${s.api}/aiplugin/course/ai-golf/version/1/enabled`, { auth: app })).body).toEqual({ enabled: false });
  });
});

describe('AI plugin service without a partner', () => {
  let s: TestServer;
  let app: string;

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'ai-solo', fixture('scorm12-golf-runtime-basic.zip'));
  }, 180_000);
  afterAll(async () => {
    await s?.close();
  });

  it('the operations work and the status says NOT_CONFIGURED; launches carry nothing', async () => {
    expect((await call(`${s.api}/aiplugin/key`, { auth: app })).body.result).toMatch(/BEGIN PUBLIC KEY/);
    expect((await call(`${s.api}/aiplugin/course/ai-solo/version/1/enabled`, { method: 'PUT', auth: app })).status).toBe(204);
    expect((await call(`${s.api}/aiplugin/course/ai-solo/version/1`, { auth: app })).body).toEqual({ result: 'NOT_CONFIGURED' });
    expect((await call(`${s.api}/aiplugin/course/ai-solo/version/1`, { method: 'DELETE', auth: app })).status).toBe(204);
    const regs = learnerRegistrations(() => s, () => app, { id: 'solo' });
    await regs.createReg('solo-reg', 'ai-solo');
    expect(configOf((await followLaunch(s.baseUrl, await regs.link('solo-reg'))).html).aiPlugin).toBeNull();
  });
});
