import { basic, call, startTestServer, TestServer } from '../support/test-server';

describe('application management', () => {
  let s: TestServer;
  let mgmt: string;

  beforeAll(async () => {
    s = await startTestServer();
    mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
  });
  afterAll(async () => s?.close());

  const createApp = async (name: string) => {
    const r = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name } });
    expect(r.status).toBe(200);
    return r.body as { id: string; name: string };
  };

  it('creates, reads, updates and deletes an application with the real schemas', async () => {
    const created = await createApp('Sales training');
    expect(created).toEqual({ id: expect.stringMatching(/^[A-Z0-9]{10}$/), name: 'Sales training' });

    const info = await call(`${s.api}/appManagement/applications/${created.id}?includeCourseCount=true&includeRegistrationCount=true`, { auth: mgmt });
    expect(info.status).toBe(200);
    expect(info.body).toEqual({
      id: created.id,
      name: 'Sales training',
      createDate: expect.any(String),
      updateDate: expect.any(String),
      allowDelete: true,
      courseCount: 0,
      registrationCount: 0,
    });

    const plain = await call(`${s.api}/appManagement/applications/${created.id}`, { auth: mgmt });
    expect(plain.body.courseCount).toBeUndefined();

    expect((await call(`${s.api}/appManagement/applications/${created.id}`, { method: 'PUT', auth: mgmt, json: { name: 'Renamed', allowDelete: false } })).status).toBe(204);
    const after = await call(`${s.api}/appManagement/applications/${created.id}`, { auth: mgmt });
    expect(after.body.name).toBe('Renamed');
    expect(after.body.allowDelete).toBe(false);
    expect(new Date(after.body.updateDate).getTime()).toBeGreaterThanOrEqual(new Date(info.body.updateDate).getTime());
    // A field may be left out, not sent as null (that reached the NOT NULL column: a 500).
    for (const json of [{ name: null }, { allowDelete: null }]) {
      const nul = await call(`${s.api}/appManagement/applications/${created.id}`, { method: 'PUT', auth: mgmt, json });
      expect({ json, status: nul.status }).toEqual({ json, status: 400 });
    }
    expect((await call(`${s.api}/appManagement/applications/${created.id}`, { auth: mgmt })).body).toMatchObject({ name: 'Renamed', allowDelete: false });

    const refused = await call(`${s.api}/appManagement/applications/${created.id}`, { method: 'DELETE', auth: mgmt });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/allowDelete/);
    await call(`${s.api}/appManagement/applications/${created.id}`, { method: 'PUT', auth: mgmt, json: { allowDelete: true } });
    expect((await call(`${s.api}/appManagement/applications/${created.id}`, { method: 'DELETE', auth: mgmt })).status).toBe(204);
    const gone = await call(`${s.api}/appManagement/applications/${created.id}`, { auth: mgmt });
    expect(gone.status).toBe(404);
    expect(gone.body.message).toMatch(created.id);

    const self = await call(`${s.api}/appManagement/applications/${s.firstStart.management.appId}`, { method: 'DELETE', auth: mgmt });
    expect(self.status).toBe(400);
  });

  it('lists applications (deprecated list) and pages GetApplications with signed more tokens', async () => {
    const names = Array.from({ length: 105 }, (_, i) => `paged-${String(i).padStart(3, '0')}`);
    for (const n of names) await createApp(n);
    const all = await call(`${s.api}/appManagement/applications`, { auth: mgmt });
    expect(all.body.applications.length).toBeGreaterThanOrEqual(107);
    expect(all.body.applications[0]).toEqual({ id: expect.any(String), name: expect.any(String) });

    const first = await call(`${s.api}/appManagement/applicationList?filter=paged-&filterBy=app_name&orderBy=app_name_asc&includeTotalCount=true`, { auth: mgmt });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-total-count')).toBe('105');
    expect(first.body.applications).toHaveLength(100);
    expect(first.body.applications[0].name).toBe('paged-000');
    expect(first.body.more).toEqual(expect.any(String));

    const second = await call(`${s.api}/appManagement/applicationList?more=${encodeURIComponent(first.body.more)}`, { auth: mgmt });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-total-count')).toBeNull();
    expect(second.body.applications.map((a: { name: string }) => a.name)).toEqual(names.slice(100));
    expect(second.body.more).toBeUndefined();

    const [payload, sig] = (first.body.more as string).split('.');
    const edited = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('paged-', 'other')).toString('base64url');
    const tampered = await call(`${s.api}/appManagement/applicationList?more=${edited}.${sig}`, { auth: mgmt });
    expect(tampered.status).toBe(400);
    expect(tampered.body.message).toMatch(/more/);

    const desc = await call(`${s.api}/appManagement/applicationList?filter=paged-0&filterBy=app_name&orderBy=created_desc`, { auth: mgmt });
    expect(desc.body.applications[0].name).toBe('paged-099');

    const since = new Date(Date.now() + 60_000).toISOString();
    const none = await call(`${s.api}/appManagement/applicationList?since=${since}`, { auth: mgmt });
    expect(none.body.applications).toEqual([]);

    const badDate = await call(`${s.api}/appManagement/applicationList?since=yesterday`, { auth: mgmt });
    expect(badDate.status).toBe(400);
    expect(badDate.body.message).toMatch(/since/);
    const badOrder = await call(`${s.api}/appManagement/applicationList?orderBy=sideways`, { auth: mgmt });
    expect(badOrder.status).toBe(400);
    expect(badOrder.body.message).toMatch(/orderBy/);
    const badBool = await call(`${s.api}/appManagement/applicationList?includeTotalCount=yes`, { auth: mgmt });
    expect(badBool.status).toBe(400);
    expect(badBool.body.message).toMatch(/includeTotalCount/);
  });

  it('manages several secret keys; a disabled or deleted key stops working at once', async () => {
    const child = await createApp('keys');
    const list = await call(`${s.api}/appManagement/${child.id}/credentials`, { auth: mgmt });
    expect(list.status).toBe(200);
    expect(list.body.credentials).toHaveLength(1);
    const first = list.body.credentials[0];
    expect(first).toEqual({
      id: expect.any(String),
      name: expect.any(String),
      credential: expect.any(String),
      pensCredential: expect.any(String),
      status: 'active',
      created: expect.any(String),
      updated: expect.any(String),
    });

    const second = await call(`${s.api}/appManagement/${child.id}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'CI', active: true } });
    expect(second.status).toBe(200);
    expect(second.body.name).toBe('CI');
    const k1 = basic(child.id, first.credential);
    const k2 = basic(child.id, second.body.credential);
    expect((await call(`${s.api}/ping`, { auth: k1 })).status).toBe(200);
    expect((await call(`${s.api}/ping`, { auth: k2 })).status).toBe(200);

    for (const json of [{ name: null }, { active: null }]) {
      const nul = await call(`${s.api}/appManagement/${child.id}/credentials/${first.id}`, { method: 'PUT', auth: mgmt, json });
      expect({ json, status: nul.status, message: nul.body.message }).toEqual({ json, status: 400, message: expect.stringMatching(Object.keys(json)[0]) });
    }
    expect((await call(`${s.api}/appManagement/${child.id}/credentials/${first.id}`, { method: 'PUT', auth: mgmt, json: { active: false } })).status).toBe(204);
    expect((await call(`${s.api}/ping`, { auth: k1 })).status).toBe(401);
    expect((await call(`${s.api}/ping`, { auth: k2 })).status).toBe(200);
    await call(`${s.api}/appManagement/${child.id}/credentials/${first.id}`, { method: 'PUT', auth: mgmt, json: { active: true, name: 'back' } });
    expect((await call(`${s.api}/ping`, { auth: k1 })).status).toBe(200);

    expect((await call(`${s.api}/appManagement/${child.id}/credentials/${second.body.id}`, { method: 'DELETE', auth: mgmt })).status).toBe(204);
    expect((await call(`${s.api}/ping`, { auth: k2 })).status).toBe(401);

    const unknown = await call(`${s.api}/appManagement/${child.id}/credentials/nope`, { method: 'DELETE', auth: mgmt });
    expect(unknown.status).toBe(404);
    const otherApps = await call(`${s.api}/appManagement/${s.firstStart.application.appId}/credentials/${first.id}`, { method: 'PUT', auth: mgmt, json: { active: false } });
    expect(otherApps.status).toBe(404);
    expect((await call(`${s.api}/appManagement/NOSUCH/credentials`, { auth: mgmt })).status).toBe(404);
  });

  it('stores secrets encrypted at rest', async () => {
    const child = await createApp('sealed');
    const list = await call(`${s.api}/appManagement/${child.id}/credentials`, { auth: mgmt });
    const secret: string = list.body.credentials[0].credential;
    const ds = s.app.get(require('typeorm').DataSource);
    const rows: Array<{ secret_sealed: string }> = await ds.query('SELECT secret_sealed FROM application_credential WHERE app_id = ?', [child.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].secret_sealed).not.toContain(secret);
    expect(rows[0].secret_sealed).toMatch(/^v1\./);
  });
});
