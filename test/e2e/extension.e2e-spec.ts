import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { ConfigError, loadConfig } from '../../src/config/app-config';
import { ExtensionLoadError, loadExtensions } from '../../src/platform/extensions/extension-loader';
import { importCourse } from '../support/courses';
import { completeThroughCommits, EXAMPLE, EXAMPLE_ROUTE, requireBuiltExample } from '../support/extension';
import { scoPackage, waitFor } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

describe('extensions: the example registration-completed-export loaded through LCDS_EXTENSIONS', () => {
  let s: TestServer;
  let app: string;
  let other: string;

  beforeAll(async () => {
    requireBuiltExample();
    s = await startTestServer({ LCDS_EXTENSIONS: EXAMPLE });
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    const created = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'other' } });
    const key = await call(`${s.api}/appManagement/${created.body.id}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'key', active: true } });
    expect(key.status).toBe(200);
    other = basic(created.body.id, key.body.credential);
    await importCourse(s.api, app, 'x2004', { name: 'x2004.zip', data: await scoPackage('2004', ''), type: 'application/zip' });
  }, 90_000);
  afterAll(async () => {
    await s?.close();
  });

  const token = async (scope: string) => {
    const r = await call(`${s.api}/oauth/authenticate/application/token`, {
      method: 'POST',
      auth: app,
      body: new URLSearchParams({ scope }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(200);
    return `Bearer ${r.body.access_token}`;
  };
  const completions = (auth: string | undefined, query = '') => call(`${s.baseUrl}${EXAMPLE_ROUTE}${query}`, auth ? { auth } : {});

  const complete = (registrationId: string) => completeThroughCommits(s.baseUrl, app, registrationId, 'x2004');

  it("runs the extension's migration with LCDS's", async () => {
    const ds = s.app.get(DataSource);
    const applied = await ds.query<Array<{ name: string }>>(`SELECT name FROM schema_migrations WHERE name = 'RegistrationCompletedExport1767000000000'`);
    expect(applied).toHaveLength(1);
    expect(await ds.query(`SELECT COUNT(*) AS n FROM ext_registration_completed_export`)).toEqual([{ n: 0 }]);
  });

  it('serves its route under /ext/{name}/ with LCDS authentication: 401 without credentials, 403 without the scope', async () => {
    const none = await completions(undefined);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBeTruthy();
    const wrongScope = await completions(await token('read:course'));
    expect(wrongScope.status).toBe(403);
    expect((await completions(await token('read:registration'))).status).toBe(200);
    expect((await completions(app)).status).toBe(200);
    expect((await completions('Basic ' + Buffer.from('nobody:nothing').toString('base64'))).status).toBe(401);
  });

  it('answers bad query values with a 400 naming them', async () => {
    const r = await completions(app, '?limit=lots');
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('limit');
    expect((await completions(app, '?before=yesterday')).status).toBe(400);
  });

  it('writes one row when a learner completes a registration, seen only by its application', async () => {
    await complete('ext-done');
    const listed = await waitFor(
      () => completions(app),
      (r) => r.body.completions?.length === 1,
    );
    expect(listed.status).toBe(200);
    expect(listed.body.completions).toEqual([
      expect.objectContaining({ registrationId: 'ext-done', instance: 0, courseId: 'x2004', learnerId: 'l-ext-done', success: 'PASSED', score: 0.9, totalSecondsTracked: 20 }),
    ]);
    expect(new Date(listed.body.completions[0].completedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect((await completions(other)).body).toEqual({ completions: [] });
    // The durable delivery is a finished job of the domain-event queue.
    const jobs = await s.app
      .get(DataSource)
      .query<Array<{ status: string }>>(`SELECT status FROM job WHERE queue = 'domain-event' AND payload LIKE '%registration-completed-export.rows%' AND payload LIKE '%ext-done%'`);
    expect(jobs.map((j) => j.status)).toEqual(['completed']);
  });

  it('writes no row for a registration that is not completed', async () => {
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'ext-open', courseId: 'x2004', learner: { id: 'l-open' } } })).status).toBe(204);
    await new Promise((r) => setTimeout(r, 500));
    expect((await completions(app)).body.completions.map((c: { registrationId: string }) => c.registrationId)).toEqual(['ext-done']);
  });
});

describe('extensions: a broken one stops the start with a message naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lcds-ext-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names an extension that cannot be found', () => {
    const missing = join(dir, 'nowhere');
    expect(() => loadExtensions([missing])).toThrow(ExtensionLoadError);
    expect(() => loadExtensions([missing])).toThrow(`Extension "${missing}" (LCDS_EXTENSIONS) was not found`);
    expect(() => loadExtensions(['lcds-no-such-extension'])).toThrow('Extension "lcds-no-such-extension" (LCDS_EXTENSIONS) was not found');
  });

  it('names an extension whose code throws while loading, or that exports no Nest module', () => {
    const throwing = join(dir, 'throwing.js');
    writeFileSync(throwing, "throw new Error('database password missing');\n");
    expect(() => loadExtensions([throwing])).toThrow(`Extension "${throwing}" (LCDS_EXTENSIONS) failed while loading: database password missing`);
    const plain = join(dir, 'plain.js');
    writeFileSync(plain, 'module.exports = { default: function notAModule() {} };\n');
    expect(() => loadExtensions([plain])).toThrow(`Extension "${plain}" (LCDS_EXTENSIONS) has no default export that is a Nest module`);
  });

  it('refuses a relative specifier in LCDS_EXTENSIONS', () => {
    expect(() => loadConfig({ DATA_DIR: dir, LCDS_EXTENSIONS: './my-extension' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: dir, LCDS_EXTENSIONS: './my-extension' })).toThrow(/LCDS_EXTENSIONS: "\.\/my-extension" must be an npm package name/);
  });
});
