import { ClientAuth, Clients, createClients, failure, invoke, op, sc } from '../support/official-client';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * Compatibility: the official SCORM Cloud API V2 JavaScript client (v3, callback-based, superagent 3.7)
 * pointed at a live LCDS. Every call goes through the client's own request building, authentication and
 * model deserialisation, so this catches wrong field names, statuses and content types as a real user would.
 *
 * Client behaviour worth knowing (node_modules/@rusticisoftware/scormcloud-api-v2-client-javascript/src/rustici-software-cloud-v2/):
 * - ApiClient.applyAuthToRequest applies EVERY configured auth of an operation's authNames, in order; the last one wins
 *   the Authorization header. Operations list ['APP_NORMAL', 'OAUTH'] or ['APP_MANAGEMENT', 'OAUTH'], so a client that
 *   has a bearer token configured sends Bearer even when basic credentials are set too.
 * - CreateToken and GetAppToken list only 'APP_NORMAL': a client holding only APP_MANAGEMENT credentials sends no
 *   Authorization at all for them.
 * - Every request carries `Content-Type: application/json` (GET and DELETE included, with no body) and
 *   `Accept: application/json`; GetAppToken sends an x-www-form-urlencoded body with `expiration` as a string.
 * - Dates (TokenRequestSchema.expiry, since/until) are sent as Date#toISOString(); response dates are `new Date(str)`.
 * - Booleans in responses go through `Boolean(data)`: a string "false" would become true, so booleans must be JSON booleans.
 * - 204 answers deserialise to null; operations without a return type (update*, delete*) ignore the body.
 * - Errors are superagent errors: `error.status` and `error.response.body` (`{message}`, or `{error}` for 401).
 * - With `apiClient.cache = false` every GET carries an extra `_=<epoch ms>` query parameter.
 */

describe('official SCORM Cloud JavaScript client (v3) against LCDS', () => {
  let s: TestServer;
  let normal: Clients;
  let management: Clients;

  const clients = (auth: ClientAuth): Clients => createClients(s.api, auth);

  const createApp = async (name: string) => {
    const request = new sc.ApplicationRequestSchema();
    request.name = name;
    return op(management.mgmt, 'createApplication', request);
  };

  beforeAll(async () => {
    s = await startTestServer();
    const { application, management: mgmtApp } = s.firstStart;
    normal = clients({ normal: [application.appId, application.secretKey] });
    management = clients({ management: [mgmtApp.appId, mgmtApp.secretKey] });
  });
  afterAll(async () => s?.close());

  it('pings and reads about with basic credentials', async () => {
    const pong = await op(normal.ping, 'pingAppId');
    expect(pong).toBeInstanceOf(sc.PingSchema);
    expect(pong.apiMessage).toBe('pong');
    expect(typeof pong.currentTime).toBe('string');
    expect(Math.abs(new Date(pong.currentTime).getTime() - Date.now())).toBeLessThan(60_000);

    const about = await op(normal.about, 'getAbout');
    expect(about).toBeInstanceOf(sc.AboutSchema);
    expect(about.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(about.distribution).toBe('lcds');
  });

  it('gets an application token by form (GetAppToken) and uses it as OAUTH', async () => {
    const token = await op(normal.auth, 'getAppToken', 'read:ping read:about', { expiration: 600 });
    expect(token).toBeInstanceOf(sc.ApplicationToken);
    expect(token.accessToken).toEqual(expect.any(String));
    expect(token.accessToken.length).toBeGreaterThan(20);
    expect(token.expiresIn).toBe(600);
    expect(token.tokenType).toBe('Bearer');

    const viaToken = clients({ bearer: token.accessToken });
    expect((await op(viaToken.ping, 'pingAppId')).apiMessage).toBe('pong');
    expect((await op(viaToken.about, 'getAbout')).distribution).toBe('lcds');

    // Default expiration (300 s) when the option is left out.
    const fallback = await op(normal.auth, 'getAppToken', 'read:ping', {});
    expect(fallback.expiresIn).toBe(300);

    // A token without read:ping is refused with 403 {message}.
    const narrow = await op(normal.auth, 'getAppToken', 'read:course', { expiration: 60 });
    const denied = await failure(clients({ bearer: narrow.accessToken }).ping, 'pingAppId');
    expect(denied.status).toBe(403);
    expect(denied.response?.body.message).toMatch(/read:ping/);

    // The client applies every configured auth in order; OAUTH comes last, so Bearer wins over APP_NORMAL.
    const both = clients({ normal: [s.firstStart.application.appId, s.firstStart.application.secretKey], bearer: 'not-a-token' });
    expect((await failure(both.ping, 'pingAppId')).status).toBe(401);
  });

  it('creates a token by TokenRequestSchema (CreateToken) whose result works as a bearer', async () => {
    const permissions = new sc.PermissionsSchema();
    permissions.scopes = ['read:ping'];
    permissions.applicationName = 'official-client';
    const request = new sc.TokenRequestSchema(permissions, new Date(Date.now() + 3600_000));
    const created = await op(normal.mgmt, 'createToken', request);
    expect(created).toBeInstanceOf(sc.StringResultSchema);
    expect(created.result).toEqual(expect.any(String));

    const pong = await op(clients({ bearer: created.result }).ping, 'pingAppId');
    expect(pong.apiMessage).toBe('pong');

    const expired = new sc.TokenRequestSchema(permissions, new Date('2001-01-01T00:00:00Z'));
    const refused = await failure(normal.mgmt, 'createToken', expired);
    expect(refused.status).toBe(400);
    expect(refused.response?.body.message).toMatch(/expiry/);

    // CreateToken lists only APP_NORMAL: a client with only management credentials sends no Authorization.
    const unauthenticated = await failure(management.mgmt, 'createToken', request);
    expect(unauthenticated.status).toBe(401);
  });

  it('creates, lists, reads, updates and deletes an application', async () => {
    const created = await createApp('Official client app');
    expect(created).toBeInstanceOf(sc.ApplicationSchema);
    expect(created.id).toMatch(/^[A-Z0-9]{10}$/);
    expect(created.name).toBe('Official client app');

    const list = await op(management.mgmt, 'getApplicationList');
    expect(list).toBeInstanceOf(sc.ApplicationListSchema);
    expect(list.applications.every((a: unknown) => a instanceof sc.ApplicationSchema)).toBe(true);
    expect(list.applications).toContainEqual(expect.objectContaining({ id: created.id, name: 'Official client app' }));
    expect(list.applications.map((a: { id: string }) => a.id)).toEqual(expect.arrayContaining([s.firstStart.application.appId, s.firstStart.management.appId]));

    const info = await op(management.mgmt, 'getApplicationInfo', created.id, { includeCourseCount: true, includeRegistrationCount: true });
    expect(info).toBeInstanceOf(sc.ApplicationInfoSchema);
    expect(info.id).toBe(created.id);
    expect(info.name).toBe('Official client app');
    expect(info.allowDelete).toBe(true);
    expect(info.courseCount).toBe(0);
    expect(info.registrationCount).toBe(0);
    expect(info.createDate).toBeInstanceOf(Date);
    expect(info.updateDate).toBeInstanceOf(Date);
    expect(Number.isNaN(info.createDate.getTime())).toBe(false);
    expect(Math.abs(info.createDate.getTime() - Date.now())).toBeLessThan(60_000);

    const plain = await op(management.mgmt, 'getApplicationInfo', created.id, {});
    expect(plain.courseCount).toBeUndefined();
    expect(plain.registrationCount).toBeUndefined();

    const update = new sc.UpdateApplicationSchema();
    update.name = 'Renamed by client';
    update.allowDelete = false;
    const updated = await invoke(management.mgmt, 'updateApplication', created.id, update);
    expect(updated.response.status).toBe(204);
    expect(updated.data).toBeNull();
    const after = await op(management.mgmt, 'getApplicationInfo', created.id, {});
    expect(after.name).toBe('Renamed by client');
    expect(after.allowDelete).toBe(false);
    expect(after.updateDate.getTime()).toBeGreaterThanOrEqual(info.updateDate.getTime());

    const protectedDelete = await failure(management.mgmt, 'deleteApplication', created.id);
    expect(protectedDelete.status).toBe(400);
    expect(protectedDelete.response?.body.message).toMatch(/allowDelete/);

    const allow = new sc.UpdateApplicationSchema();
    allow.allowDelete = true;
    await op(management.mgmt, 'updateApplication', created.id, allow);
    const deleted = await invoke(management.mgmt, 'deleteApplication', created.id);
    expect(deleted.response.status).toBe(204);
    expect(deleted.data).toBeNull();

    const gone = await failure(management.mgmt, 'getApplicationInfo', created.id, {});
    expect(gone.status).toBe(404);
    expect(gone.response?.body.message).toMatch(created.id);
  });

  it('pages GetApplications with filter, order, total count and the more token', async () => {
    const names = Array.from({ length: 105 }, (_, i) => `client-paged-${String(i).padStart(3, '0')}`);
    for (let i = 0; i < names.length; i += 15) await Promise.all(names.slice(i, i + 15).map((n) => createApp(n)));

    const first = await invoke(management.mgmt, 'getApplications', {
      filter: 'client-paged-',
      filterBy: 'app_name',
      orderBy: 'app_name_asc',
      includeTotalCount: true,
      includeCourseCount: true,
      includeRegistrationCount: true,
    });
    expect(first.data).toBeInstanceOf(sc.ApplicationInfoListSchema);
    expect(first.response.headers['x-total-count']).toBe('105');
    expect(first.data.applications).toHaveLength(100);
    expect(first.data.applications[0]).toBeInstanceOf(sc.ApplicationInfoSchema);
    expect(first.data.applications.map((a: { name: string }) => a.name)).toEqual(names.slice(0, 100));
    expect(first.data.applications[0].createDate).toBeInstanceOf(Date);
    expect(first.data.applications[0].allowDelete).toBe(true);
    expect(first.data.applications[0].courseCount).toBe(0);
    expect(first.data.applications[0].registrationCount).toBe(0);
    expect(first.data.more).toEqual(expect.any(String));

    const second = await invoke(management.mgmt, 'getApplications', { more: first.data.more });
    expect(second.response.headers['x-total-count']).toBeUndefined();
    expect(second.data.applications.map((a: { name: string }) => a.name)).toEqual(names.slice(100));
    expect(second.data.more).toBeUndefined();

    const desc = await op(management.mgmt, 'getApplications', { filter: 'client-paged-00', filterBy: 'app_name', orderBy: 'app_name_desc' });
    expect(desc.applications.map((a: { name: string }) => a.name)).toEqual(names.slice(0, 10).reverse());

    // since/until are Date objects, sent as toISOString().
    const future = await op(management.mgmt, 'getApplications', { since: new Date(Date.now() + 60_000), datetimeFilter: 'created' });
    expect(future.applications).toEqual([]);
    const past = await op(management.mgmt, 'getApplications', { until: new Date(Date.now() - 3600_000) });
    expect(past.applications).toEqual([]);

    const badOrder = await failure(management.mgmt, 'getApplications', { orderBy: 'sideways' });
    expect(badOrder.status).toBe(400);
    expect(badOrder.response?.body.message).toMatch(/orderBy/);
  });

  it('manages secret keys: created keys work, disabled and deleted keys stop working', async () => {
    const child = await createApp('client keys');
    const list = await op(management.mgmt, 'getCredentials', child.id);
    expect(list).toBeInstanceOf(sc.CredentialListSchema);
    expect(list.credentials).toHaveLength(1);
    const original = list.credentials[0];
    expect(original).toBeInstanceOf(sc.CredentialSchema);
    expect(original.id).toEqual(expect.any(String));
    expect(original.name).toEqual(expect.any(String));
    expect(original.credential).toEqual(expect.any(String));
    expect(original.pensCredential).toEqual(expect.any(String));
    expect(original.status).toBe('active');

    const request = new sc.CredentialRequestSchema();
    request.name = 'CI key';
    request.active = true;
    const created = await op(management.mgmt, 'createCredential', child.id, request);
    expect(created).toBeInstanceOf(sc.CredentialCreatedSchema);
    expect(created.name).toBe('CI key');
    expect(created.status).toBe('active');
    expect(created.credential).toEqual(expect.any(String));
    expect(created.credential).not.toBe(original.credential);

    const viaOriginal = clients({ normal: [child.id, original.credential] });
    const viaCreated = clients({ normal: [child.id, created.credential] });
    expect((await op(viaOriginal.ping, 'pingAppId')).apiMessage).toBe('pong');
    expect((await op(viaCreated.ping, 'pingAppId')).apiMessage).toBe('pong');

    const listed = await op(management.mgmt, 'getCredentials', child.id);
    expect(listed.credentials.map((c: { id: string }) => c.id).sort()).toEqual([original.id, created.id].sort());

    const disable = new sc.CredentialRequestSchema();
    disable.active = false;
    const updated = await invoke(management.mgmt, 'updateCredential', child.id, created.id, disable);
    expect(updated.response.status).toBe(204);
    expect(updated.data).toBeNull();
    const disabled = await failure(viaCreated.ping, 'pingAppId');
    expect(disabled.status).toBe(401);
    expect(disabled.response?.body.error).toEqual(expect.any(String));
    expect((await op(viaOriginal.ping, 'pingAppId')).apiMessage).toBe('pong');
    const afterDisable = await op(management.mgmt, 'getCredentials', child.id);
    expect(afterDisable.credentials.find((c: { id: string }) => c.id === created.id).status).not.toBe('active');

    const enable = new sc.CredentialRequestSchema();
    enable.active = true;
    enable.name = 'CI key again';
    await op(management.mgmt, 'updateCredential', child.id, created.id, enable);
    expect((await op(viaCreated.ping, 'pingAppId')).apiMessage).toBe('pong');

    const deleted = await invoke(management.mgmt, 'deleteCredential', child.id, created.id);
    expect(deleted.response.status).toBe(204);
    expect(deleted.data).toBeNull();
    expect((await failure(viaCreated.ping, 'pingAppId')).status).toBe(401);
    const remaining = await op(management.mgmt, 'getCredentials', child.id);
    expect(remaining.credentials.map((c: { id: string }) => c.id)).toEqual([original.id]);

    const unknownKey = await failure(management.mgmt, 'deleteCredential', child.id, 'nope');
    expect(unknownKey.status).toBe(404);
  });

  it('reports errors with the statuses and bodies of the real service', async () => {
    const { application, management: mgmtApp } = s.firstStart;

    // A normal application's credentials used for a management operation: 403 {message}.
    const normalAsManagement = clients({ management: [application.appId, application.secretKey] });
    const forbidden = await failure(normalAsManagement.mgmt, 'getApplicationList');
    expect(forbidden.status).toBe(403);
    expect(forbidden.response?.body.message).toMatch(/management/);

    // Wrong secret: 401 {error}.
    const wrongSecret = await failure(clients({ normal: [application.appId, 'wrong-secret'] }).ping, 'pingAppId');
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.response?.body.error).toEqual(expect.any(String));
    const wrongManagementSecret = await failure(clients({ management: [mgmtApp.appId, 'wrong-secret'] }).mgmt, 'getApplicationList');
    expect(wrongManagementSecret.status).toBe(401);

    // Management operations list only APP_MANAGEMENT and OAUTH: APP_NORMAL credentials are not sent at all.
    const noManagementAuth = await failure(clients({ normal: [mgmtApp.appId, mgmtApp.secretKey] }).mgmt, 'getApplicationList');
    expect(noManagementAuth.status).toBe(401);

    // Unknown childAppId: 404 {message} naming it.
    for (const [method, args] of [
      ['getApplicationInfo', ['NOSUCHAPP0', {}]],
      ['getCredentials', ['NOSUCHAPP0']],
      ['deleteApplication', ['NOSUCHAPP0']],
    ] as const) {
      const missing = await failure(management.mgmt, method, ...args);
      expect(missing.status).toBe(404);
      expect(missing.response?.body.message).toMatch(/NOSUCHAPP0/);
    }
  });

  it('lets a management bearer token (GetAppToken with management scopes) read but not write', async () => {
    const { management: mgmtApp } = s.firstStart;
    const tokenClient = clients({ normal: [mgmtApp.appId, mgmtApp.secretKey] });
    const token = await op(tokenClient.auth, 'getAppToken', 'read:appmgmt', { expiration: 120 });
    expect(token.tokenType).toBe('Bearer');

    const viaToken = clients({ bearer: token.accessToken });
    const list = await op(viaToken.mgmt, 'getApplicationList');
    expect(list.applications.map((a: { id: string }) => a.id)).toContain(mgmtApp.appId);
    const request = new sc.ApplicationRequestSchema();
    request.name = 'not allowed';
    const refused = await failure(viaToken.mgmt, 'createApplication', request);
    expect(refused.status).toBe(403);
  });

  // apiClient.cache = false makes the client add `_=<timestamp>` to every GET (ApiClient.js callApi); unknown query
  // parameters are ignored, as the real service does.
  it('accepts the cache-busting `_` query parameter the client adds when apiClient.cache = false', async () => {
    const child = await createApp('cache-busting');
    const uncached = clients({ management: [s.firstStart.management.appId, s.firstStart.management.secretKey] });
    uncached.apiClient.cache = false;
    const info = await op(uncached.mgmt, 'getApplicationInfo', child.id, {});
    expect(info.id).toBe(child.id);
    const page = await op(uncached.mgmt, 'getApplications', { filter: child.id });
    expect(page.applications.map((a: { id: string }) => a.id)).toEqual([child.id]);
  });

  it('sees the same application through the client and plain HTTP', async () => {
    const created = await createApp('cross-check');
    const raw = await call(`${s.api}/appManagement/applications/${created.id}`, { auth: basic(s.firstStart.management.appId, s.firstStart.management.secretKey) });
    expect(raw.headers.get('content-type')).toMatch(/^application\/json/);
    const viaClient = await op(management.mgmt, 'getApplicationInfo', created.id, {});
    expect(viaClient.createDate.toISOString()).toBe(new Date(raw.body.createDate).toISOString());
    expect(raw.body.createDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
  });
});
