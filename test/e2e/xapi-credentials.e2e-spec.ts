import { createClients, errorBody, failure, invoke, op, sc } from '../support/official-client';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * xAPI credentials (API V2 /xapi/credentials): CRUD, both shapes of `auth`/`permissionsLevel`, paging, scopes,
 * tenant isolation, their effect on the LRS, and every operation through the official JavaScript client (XapiApi).
 *
 * Wire format: responses carry `auth` / `permissionsLevel` as the objects the generated clients model
 * (`{xapiCredentialAuthType}` / `{xapiCredentialPermissionsLevel}`): XapiCredentialAuthTypeSchema.constructFromObject
 * reads only that property, so a bare string would reach the client's caller as an empty object.
 */
describe('xAPI credentials', () => {
  let s: TestServer;
  let appId: string;
  let app: string;
  let other: string;

  const body = (over: Record<string, unknown> = {}) => ({ name: 'Tin Can AP', info: 'for the player', secret: 's3cret-value', isEnabled: true, auth: 'BASICAUTH', permissionsLevel: 'DEFAULT', ...over });
  const token = async (scope: string) =>
    (
      await call(`${s.api}/oauth/authenticate/application/token`, {
        method: 'POST',
        auth: app,
        body: new URLSearchParams({ scope }),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
    ).body.access_token as string;

  beforeAll(async () => {
    s = await startTestServer();
    appId = s.firstStart.application.appId;
    app = basic(appId, s.firstStart.application.secretKey);
    const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    const created = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'other' } });
    const key = await call(`${s.api}/appManagement/${created.body.id}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'k' } });
    other = basic(created.body.id, key.body.credential);
  });
  afterAll(async () => s?.close());

  it('creates, reads, edits (PUT) and deletes; PUT of an unknown id creates it', async () => {
    const created = await call(`${s.api}/xapi/credentials`, { method: 'POST', auth: app, json: body() });
    expect(created.status).toBe(200);
    const id = created.body.result as string;
    expect(id).toMatch(/^[A-Za-z0-9_-]{20}$/);
    const got = await call(`${s.api}/xapi/credentials/${id}`, { auth: app });
    expect(got.body).toEqual({
      id,
      name: 'Tin Can AP',
      info: 'for the player',
      secret: 's3cret-value',
      isEnabled: true,
      auth: { xapiCredentialAuthType: 'BASICAUTH' },
      permissionsLevel: { xapiCredentialPermissionsLevel: 'DEFAULT' },
    });

    // The clients' object shapes are accepted as well as bare strings.
    const edit = await call(`${s.api}/xapi/credentials/${id}`, {
      method: 'PUT',
      auth: app,
      json: body({ name: 'Renamed', secret: 'new-secret', isEnabled: false, auth: { xapiCredentialAuthType: 'OAUTH' }, permissionsLevel: { xapiCredentialPermissionsLevel: 'READONLY' } }),
    });
    expect(edit.status).toBe(204);
    expect((await call(`${s.api}/xapi/credentials/${id}`, { auth: app })).body).toMatchObject({
      name: 'Renamed',
      secret: 'new-secret',
      isEnabled: false,
      auth: { xapiCredentialAuthType: 'OAUTH' },
      permissionsLevel: { xapiCredentialPermissionsLevel: 'READONLY' },
    });

    expect((await call(`${s.api}/xapi/credentials/my-own-key`, { method: 'PUT', auth: app, json: body({ secret: undefined }) })).status).toBe(204);
    const generated = await call(`${s.api}/xapi/credentials/my-own-key`, { auth: app });
    expect(generated.body.secret).toMatch(/^[A-Za-z0-9_-]{40}$/);

    expect((await call(`${s.api}/xapi/credentials/${id}`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect((await call(`${s.api}/xapi/credentials/${id}`, { auth: app })).status).toBe(404);
    expect((await call(`${s.api}/xapi/credentials/${id}`, { method: 'DELETE', auth: app })).status).toBe(404);
  });

  it('validates bodies and ids', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [body({ name: undefined }), /name/],
      [body({ isEnabled: 'yes' }), /isEnabled/],
      [body({ auth: 'DIGEST' }), /auth must be one of BASICAUTH, OAUTH/],
      [body({ auth: { xapiCredentialAuthType: 'nope' } }), /auth must be one of/],
      [body({ permissionsLevel: 'GOD' }), /permissionsLevel must be one of/],
      [body({ permissionsLevel: undefined }), /permissionsLevel/],
      [body({ extra: 1 }), /extra/],
    ];
    for (const [json, message] of cases) {
      const res = await call(`${s.api}/xapi/credentials`, { method: 'POST', auth: app, json });
      expect({ json, status: res.status, message: res.body.message }).toEqual({ json, status: 400, message: expect.stringMatching(message) });
    }
    expect((await call(`${s.api}/xapi/credentials/a:b`, { method: 'PUT', auth: app, json: body() })).status).toBe(400);
  });

  it('lists with paging, filters and total count', async () => {
    for (let i = 0; i < 105; i++) {
      await call(`${s.api}/xapi/credentials/bulk-${String(i).padStart(3, '0')}`, { method: 'PUT', auth: app, json: body({ name: `Bulk ${i}` }) });
    }
    const first = await call(`${s.api}/xapi/credentials?filter=bulk-&includeTotalCount=true`, { auth: app });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-total-count')).toBe('105');
    expect(first.body.xapiCredentials).toHaveLength(100);
    expect(first.body.xapiCredentials[0]).toMatchObject({ id: 'bulk-000', auth: { xapiCredentialAuthType: 'BASICAUTH' } });
    const second = await call(`${s.api}/xapi/credentials?more=${encodeURIComponent(first.body.more)}`, { auth: app });
    expect(second.headers.get('x-total-count')).toBeNull();
    expect(second.body.xapiCredentials.map((c: any) => c.id)).toEqual(['bulk-100', 'bulk-101', 'bulk-102', 'bulk-103', 'bulk-104']);
    expect(second.body.more).toBeUndefined();
    const byName = await call(`${s.api}/xapi/credentials?filterBy=credential_name&filter=${encodeURIComponent('Bulk 104')}`, { auth: app });
    expect(byName.body.xapiCredentials.map((c: any) => c.id)).toEqual(['bulk-104']);
    const future = await call(`${s.api}/xapi/credentials?since=${new Date(Date.now() + 60_000).toISOString()}`, { auth: app });
    expect(future.body).toEqual({ xapiCredentials: [] });
    expect((await call(`${s.api}/xapi/credentials?orderBy=name_asc`, { auth: app })).status).toBe(400);
  });

  it('keeps applications apart', async () => {
    await call(`${s.api}/xapi/credentials/shared-name`, { method: 'PUT', auth: app, json: body({ name: 'mine' }) });
    expect((await call(`${s.api}/xapi/credentials/shared-name`, { auth: other })).status).toBe(404);
    expect((await call(`${s.api}/xapi/credentials/shared-name`, { method: 'DELETE', auth: other })).status).toBe(404);
    expect((await call(`${s.api}/xapi/credentials`, { auth: other })).body).toEqual({ xapiCredentials: [] });
    // The same id in the other application is a credential of its own.
    expect((await call(`${s.api}/xapi/credentials/shared-name`, { method: 'PUT', auth: other, json: body({ name: 'theirs' }) })).status).toBe(204);
    expect((await call(`${s.api}/xapi/credentials/shared-name`, { auth: app })).body.name).toBe('mine');
  });

  it('enforces the scopes of the contract', async () => {
    const read = await token('read:xapicredential');
    const write = await token('write:xapicredential');
    const del = await token('delete:xapicredential');
    const course = await token('read:course');
    const bearer = (t: string) => `Bearer ${t}`;
    expect((await call(`${s.api}/xapi/credentials`, { auth: bearer(read) })).status).toBe(200);
    expect((await call(`${s.api}/xapi/credentials`, { auth: bearer(course) })).status).toBe(403);
    expect((await call(`${s.api}/xapi/credentials`, { method: 'POST', auth: bearer(read), json: body() })).status).toBe(403);
    const created = await call(`${s.api}/xapi/credentials`, { method: 'POST', auth: bearer(write), json: body() });
    expect(created.status).toBe(200);
    expect((await call(`${s.api}/xapi/credentials/${created.body.result}`, { method: 'DELETE', auth: bearer(write) })).status).toBe(403);
    expect((await call(`${s.api}/xapi/credentials/${created.body.result}`, { method: 'DELETE', auth: bearer(del) })).status).toBe(204);
    expect((await call(`${s.api}/xapi/credentials`, { auth: bearer(await token('read')) })).status).toBe(200);
    expect((await call(`${s.api}/xapi/credentials`)).status).toBe(401);
  });

  it('takes effect on the LRS at once: disabling, changing the secret, downgrading and deleting', async () => {
    const lrs = (auth: string, method = 'GET') =>
      call(`${s.baseUrl}/lrs/${appId}/statements`, {
        method,
        auth,
        headers: { 'x-experience-api-version': '1.0.3' },
        ...(method === 'POST' ? { json: { actor: { mbox: 'mailto:a@b.c' }, verb: { id: 'http://x.y/v' }, object: { id: 'http://x.y/a' } } } : {}),
      });
    await call(`${s.api}/xapi/credentials/live`, { method: 'PUT', auth: app, json: body({ secret: 'one', permissionsLevel: 'ROOT' }) });
    expect((await lrs(basic('live', 'one'))).status).toBe(200);
    expect((await lrs(basic('live', 'one'), 'POST')).status).toBe(200);
    await call(`${s.api}/xapi/credentials/live`, { method: 'PUT', auth: app, json: body({ secret: 'one', permissionsLevel: 'READONLY' }) });
    expect((await lrs(basic('live', 'one'), 'POST')).status).toBe(403);
    await call(`${s.api}/xapi/credentials/live`, { method: 'PUT', auth: app, json: body({ secret: 'two', permissionsLevel: 'ROOT' }) });
    expect((await lrs(basic('live', 'one'))).status).toBe(401);
    expect((await lrs(basic('live', 'two'))).status).toBe(200);
    await call(`${s.api}/xapi/credentials/live`, { method: 'PUT', auth: app, json: body({ secret: 'two', isEnabled: false }) });
    expect((await lrs(basic('live', 'two'))).status).toBe(401);
    await call(`${s.api}/xapi/credentials/live`, { method: 'PUT', auth: app, json: body({ secret: 'two', permissionsLevel: 'ROOT' }) });
    expect((await lrs(basic('live', 'two'))).status).toBe(200);
    await call(`${s.api}/xapi/credentials/live`, { method: 'DELETE', auth: app });
    expect((await lrs(basic('live', 'two'))).status).toBe(401);
  });

  describe('through the official JavaScript client (XapiApi)', () => {
    let xapi: any;
    let bearerXapi: any;

    beforeAll(async () => {
      const clients = createClients(s.api, { normal: [appId, s.firstStart.application.secretKey] });
      xapi = new sc.XapiApi(clients.apiClient);
      const withToken = createClients(s.api, { bearer: await token('read:xapicredential write:xapicredential delete:xapicredential') });
      bearerXapi = new sc.XapiApi(withToken.apiClient);
    });

    const model = (over: Record<string, unknown> = {}) =>
      Object.assign(new sc.XapiCredentialPostSchema(), {
        name: 'From the client',
        info: 'made by XapiApi',
        secret: 'client-secret',
        isEnabled: true,
        auth: Object.assign(new sc.XapiCredentialAuthTypeSchema(), { xapiCredentialAuthType: sc.XapiCredentialAuthTypeSchema.XapiCredentialAuthTypeEnum.BASICAUTH }),
        permissionsLevel: Object.assign(new sc.XapiCredentialPermissionsLevelSchema(), {
          xapiCredentialPermissionsLevel: sc.XapiCredentialPermissionsLevelSchema.XapiCredentialPermissionsLevelEnum.DEFAULT,
        }),
        ...over,
      });

    it('CreateXapiCredential, GetXapiCredential, SetXapiCredential, GetXapiCredentials, DeleteXapiCredential', async () => {
      const created = await op(xapi, 'createXapiCredential', model());
      expect(created).toBeInstanceOf(sc.StringResultSchema);
      const id = created.result as string;

      const got = await op(xapi, 'getXapiCredential', id);
      expect(got).toBeInstanceOf(sc.XapiCredentialSchema);
      expect(got).toMatchObject({ id, name: 'From the client', info: 'made by XapiApi', secret: 'client-secret', isEnabled: true });
      expect(got.auth).toBeInstanceOf(sc.XapiCredentialAuthTypeSchema);
      expect(got.auth.xapiCredentialAuthType).toBe('BASICAUTH');
      expect(got.permissionsLevel.xapiCredentialPermissionsLevel).toBe('DEFAULT');

      const set = await invoke(xapi, 'setXapiCredential', id, model({ name: 'Edited', permissionsLevel: { xapiCredentialPermissionsLevel: 'WRITEONLY' } }));
      expect(set.response.status).toBe(204);
      expect((await op(xapi, 'getXapiCredential', id)).permissionsLevel.xapiCredentialPermissionsLevel).toBe('WRITEONLY');
      expect((await invoke(xapi, 'setXapiCredential', 'client-made-id', model())).response.status).toBe(204);

      const list = await op(xapi, 'getXapiCredentials', { filter: 'client-made', includeTotalCount: true });
      expect(list).toBeInstanceOf(sc.XapiCredentialsListSchema);
      expect(list.xapiCredentials.map((c: any) => c.id)).toEqual(['client-made-id']);
      expect(list.xapiCredentials[0]).toBeInstanceOf(sc.XapiCredentialSchema);
      const since = await op(xapi, 'getXapiCredentials', { since: new Date(Date.now() + 60_000) });
      expect(since.xapiCredentials).toEqual([]);

      const deleted = await invoke(xapi, 'deleteXapiCredential', id);
      expect(deleted.response.status).toBe(204);
      const missing = await failure(xapi, 'getXapiCredential', id);
      expect(missing.status).toBe(404);
      expect(errorBody(missing).message).toMatch(/not found/);
      expect((await failure(xapi, 'deleteXapiCredential', id)).status).toBe(404);
      const bad = await failure(xapi, 'createXapiCredential', model({ permissionsLevel: { xapiCredentialPermissionsLevel: 'GOD' } }));
      expect(bad.status).toBe(400);
    });

    it('pages GetXapiCredentials with more, and works with a bearer token', async () => {
      const first = await op(xapi, 'getXapiCredentials', { filter: 'bulk-' });
      expect(first.xapiCredentials).toHaveLength(100);
      const second = await op(xapi, 'getXapiCredentials', { more: first.more });
      expect(second.xapiCredentials).toHaveLength(5);
      const id = (await op(bearerXapi, 'createXapiCredential', model())).result;
      expect((await op(bearerXapi, 'getXapiCredential', id)).name).toBe('From the client');
      expect((await invoke(bearerXapi, 'deleteXapiCredential', id)).response.status).toBe(204);
    });
  });
});
