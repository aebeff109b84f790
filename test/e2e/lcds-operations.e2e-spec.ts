import { DataSource } from 'typeorm';
import { JobQueue, defineQueue, UnrecoverableJobError } from '../../src/platform/queue/job-queue';
import { cliJson, ensureCliBuilt, runCli } from '../support/cli';
import { fixture, importCourse } from '../support/courses';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

const FRAGILE = defineQueue<{ tag: string }>({ name: 'test.fragile', maxAttempts: 2, backoffMs: 50 });

async function waitFor<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * LCDS's own operations under /api/v2/lcds (tag lcds): the audit log (every audited change appears with who, what,
 * when, and no secret reaches its rows; `lcds audit`), the job queues (counts, failed jobs, retry) and an
 * application's administrators. On the embedded stack, and on MariaDB + Redis (Bull) when configured.
 */
describe('LCDS operations: audit log, job queues, administrators', () => {
  let s: TestServer;
  let app: string;
  let appId: string;
  let mgmt: string;
  /** Every secret sent or answered in this file: none may appear in the audit log. */
  const secrets: string[] = [];
  const cli = (args: string[]) => runCli(s.stack.env, s.stack.dataDir, args);
  const audit = async (auth: string, query = '') => {
    const r = await call(`${s.api}/lcds/audit${query}`, { auth });
    expect(r.status).toBe(200);
    return r.body.entries as Array<{ action: string; appId: string; actorKind: string; actorAppId: string; actorCredentialId: string; source: string; targets: Record<string, string>; fields: string[] }>;
  };

  beforeAll(async () => {
    ensureCliBuilt();
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true' });
    appId = s.firstStart.application.appId;
    app = basic(appId, s.firstStart.application.secretKey);
    mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    secrets.push(s.firstStart.application.secretKey, s.firstStart.management.secretKey);
    await importCourse(s.api, app, 'golf', fixture('scorm2004-3rd-golf-runtime-basic.zip'));
  }, 180_000);
  afterAll(async () => s?.close());

  it('records application and key changes of a management application under the application they concern', async () => {
    const created = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'audited' } });
    const child = created.body.id as string;
    expect((await call(`${s.api}/appManagement/applications/${child}`, { method: 'PUT', auth: mgmt, json: { name: 'audited, renamed' } })).status).toBe(204);
    const key = await call(`${s.api}/appManagement/${child}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'ci key' } });
    secrets.push(key.body.credential);
    expect((await call(`${s.api}/appManagement/${child}/credentials/${key.body.id}`, { method: 'PUT', auth: mgmt, json: { name: 'ci key', active: false } })).status).toBe(204);
    expect((await call(`${s.api}/appManagement/${child}/credentials/${key.body.id}`, { method: 'DELETE', auth: mgmt })).status).toBe(204);
    expect((await call(`${s.api}/lcds/applications/${child}/account`, { method: 'PUT', auth: mgmt, json: { regLimit: 10, email: 'ops@example.com' } })).status).toBe(204);
    expect((await call(`${s.api}/lcds/applications/${child}/admins`, { method: 'POST', auth: mgmt, json: { email: 'boss@example.com' } })).status).toBe(204);
    expect((await call(`${s.api}/lcds/applications/${child}/admins/boss@example.com`, { method: 'DELETE', auth: mgmt })).status).toBe(204);
    // A failed change is not recorded.
    expect((await call(`${s.api}/appManagement/${child}/credentials/nope`, { method: 'DELETE', auth: mgmt })).status).toBe(404);

    const entries = await audit(mgmt, `?appId=${child}`);
    expect(entries.map((e) => e.action)).toEqual([
      'LcdsRemoveApplicationAdmin',
      'LcdsAddApplicationAdmin',
      'LcdsUpdateApplicationAccount',
      'DeleteCredential',
      'UpdateCredential',
      'CreateCredential',
      'UpdateApplication',
      'CreateApplication',
    ]);
    for (const e of entries) {
      expect(e).toMatchObject({ appId: child, actorKind: 'basic', actorAppId: s.firstStart.management.appId, actorCredentialId: expect.any(String), source: expect.stringMatching(/127\.0\.0\.1/) });
    }
    const by = (action: string) => entries.find((e) => e.action === action)!;
    expect(by('CreateCredential')).toMatchObject({ targets: { childAppId: child, credentialId: key.body.id }, fields: ['name'] });
    expect(by('UpdateCredential')).toMatchObject({ targets: { childAppId: child, credentialId: key.body.id }, fields: ['active', 'name'] });
    expect(by('LcdsUpdateApplicationAccount').fields).toEqual(['email', 'regLimit']);
    expect(by('LcdsAddApplicationAdmin').targets).toMatchObject({ email: 'boss@example.com' });
    // The application itself reads them too; another application's log is refused to a normal application.
    expect((await call(`${s.api}/lcds/audit?appId=${child}`, { auth: app })).status).toBe(403);
  });

  it('records xAPI credential, statement pipe, configuration and erasure changes of the application', async () => {
    const xsecret = 'xapi-secret-never-logged-1';
    secrets.push(xsecret);
    const xc = await call(`${s.api}/xapi/credentials`, { method: 'POST', auth: app, json: { name: 'lrs in', secret: xsecret, isEnabled: true, auth: 'BASICAUTH', permissionsLevel: 'ROOT' } });
    expect(xc.status).toBe(200);
    const xid = xc.body.result as string;
    expect((await call(`${s.api}/xapi/credentials/${xid}`, { method: 'PUT', auth: app, json: { name: 'lrs in', secret: `${xsecret}-2`, isEnabled: false, auth: 'BASICAUTH', permissionsLevel: 'ROOT' } })).status).toBe(204);
    secrets.push(`${xsecret}-2`);
    expect((await call(`${s.api}/xapi/credentials/${xid}`, { method: 'DELETE', auth: app })).status).toBe(204);

    const pipePassword = 'pipe-password-never-logged';
    secrets.push(pipePassword);
    const target = { url: 'http://127.0.0.1:9/xapi/', userName: 'out', password: pipePassword };
    const pipe = await call(`${s.api}/xapi/statementPipes`, { method: 'POST', auth: app, json: { source: { url: 'http://127.0.0.1:9/xapi/statements', userName: 'u', password: pipePassword }, target } });
    expect(pipe.status).toBe(200);
    const pid = pipe.body.result as string;
    // A run of the pipe may hold it for a moment (409): the PUT is tried again then.
    const put = await waitFor(() => call(`${s.api}/xapi/statementPipes/${pid}`, { method: 'PUT', auth: app, json: { target } }), (r) => r.status !== 409);
    expect(put.status).toBe(200);
    expect((await call(`${s.api}/xapi/statementPipes/${pid}`, { method: 'DELETE', auth: app })).status).toBe(204);

    const settingValue = 'https://postback.example.com/secret-path-never-logged';
    secrets.push(settingValue);
    expect((await call(`${s.api}/appManagement/configuration`, { method: 'POST', auth: app, json: { settings: [{ settingId: 'ApiRollupRegistrationPostBackUrl', value: settingValue }] } })).status).toBe(204);
    expect((await call(`${s.api}/appManagement/configuration/ApiRollupRegistrationPostBackUrl`, { method: 'DELETE', auth: app })).status).toBe(204);

    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'erase-me', courseId: 'golf', learner: { id: 'learner-x' } } })).status).toBe(204);
    expect((await cli(['apps', 'admins', 'add', '--app', appId, '--email', 'admin@example.com'])).code).toBe(0);
    expect((await call(`${s.api}/learner/learner-x/delete-information?userEmail=admin@example.com`, { method: 'POST', auth: app })).status).toBe(204);

    // Through a bearer token: the token's id is the actor's credential.
    const token = (await call(`${s.api}/appManagement/token`, { method: 'POST', auth: app, json: { permissions: { scopes: ['read:audit'] }, expiry: new Date(Date.now() + 600_000).toISOString() } })).body.result as string;
    expect((await call(`${s.api}/lcds/audit`, { auth: `Bearer ${token}` })).status).toBe(200);
    const noScope = (await call(`${s.api}/appManagement/token`, { method: 'POST', auth: app, json: { permissions: { scopes: ['read:course'] }, expiry: new Date(Date.now() + 600_000).toISOString() } })).body.result as string;
    expect((await call(`${s.api}/lcds/audit`, { auth: `Bearer ${noScope}` })).status).toBe(403);

    const entries = await audit(app);
    expect(entries.map((e) => e.action)).toEqual([
      'DeleteAllLearnerData',
      'LcdsAddApplicationAdmin',
      'DeleteApplicationConfigurationSetting',
      'SetApplicationConfiguration',
      'DeleteStatementPipe',
      'SetStatementPipe',
      'CreateStatementPipe',
      'DeleteXapiCredential',
      'SetXapiCredential',
      'CreateXapiCredential',
    ]);
    const by = (action: string) => entries.find((e) => e.action === action)!;
    expect(by('CreateXapiCredential')).toMatchObject({ actorAppId: appId, targets: { xapiCredentialId: xid }, fields: ['auth', 'isEnabled', 'name', 'permissionsLevel', 'secret'] });
    expect(by('CreateStatementPipe')).toMatchObject({ targets: { statementPipeId: pid }, fields: ['source.password', 'source.url', 'source.userName', 'target.password', 'target.url', 'target.userName'] });
    expect(by('SetApplicationConfiguration').fields).toEqual(['ApiRollupRegistrationPostBackUrl']);
    expect(by('DeleteApplicationConfigurationSetting').targets).toEqual({ settingId: 'ApiRollupRegistrationPostBackUrl' });
    // Who asked for the erasure is kept; the erased learner's id is not (the erasure leaves no trace of the learner).
    expect(by('DeleteAllLearnerData').targets).toEqual({ userEmail: 'admin@example.com' });
    expect(by('LcdsAddApplicationAdmin')).toMatchObject({ actorKind: 'cli', actorAppId: null, source: expect.stringMatching(/^cli:/) });
    // since / action filters.
    expect((await audit(app, '?action=SetXapiCredential')).map((e) => e.action)).toEqual(['SetXapiCredential']);
    expect(await audit(app, `?since=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);
    expect((await call(`${s.api}/lcds/audit?since=yesterday`, { auth: app })).status).toBe(400);
    expect((await call(`${s.api}/lcds/audit?more=forged`, { auth: app })).status).toBe(400);
  });

  it('no secret reaches the audit table; `lcds audit --app` prints the log as a table', async () => {
    const rows = await s.app.get(DataSource).query<unknown[]>('SELECT * FROM audit_entry');
    expect(rows.length).toBeGreaterThanOrEqual(18);
    const text = JSON.stringify(rows);
    for (const secret of secrets) expect(text).not.toContain(secret);

    const table = await cli(['audit', '--app', appId]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^when\s+action\s+who\s+from\s+targets\s+fields$/);
    expect(lines[2]).toMatch(/DeleteAllLearnerData\s+.*\(basic .*127\.0\.0\.1\s+userEmail=admin@example.com/);
    expect(table.stdout).not.toContain('learner-x');
    expect(table.stdout).toContain('SetXapiCredential');
    for (const secret of secrets) expect(table.stdout).not.toContain(secret);
    const json = cliJson<Array<{ action: string }>>(await cli(['audit', '--app', appId, '--action', 'CreateStatementPipe', '--json']));
    expect(json.map((e) => e.action)).toEqual(['CreateStatementPipe']);
    // Changes made with the CLI are recorded too.
    const created = cliJson<{ credentialId: string; secretKey: string }>(await cli(['credentials', 'create', '--app', appId, '--name', 'from cli', '--json']));
    const last = (await audit(app))[0];
    expect(last).toMatchObject({ action: 'CreateCredential', actorKind: 'cli', targets: { credentialId: created.credentialId } });
    expect(JSON.stringify(await s.app.get(DataSource).query('SELECT * FROM audit_entry'))).not.toContain(created.secretKey);
  });

  it('pages the audit log with more', async () => {
    for (let i = 0; i < 101; i++) {
      expect((await call(`${s.api}/appManagement/configuration/PlayerLaunchType`, { method: 'DELETE', auth: app })).status).toBe(204);
    }
    const first = await call(`${s.api}/lcds/audit?action=DeleteApplicationConfigurationSetting`, { auth: app });
    expect(first.body.entries).toHaveLength(100);
    const second = await call(`${s.api}/lcds/audit?more=${encodeURIComponent(first.body.more as string)}`, { auth: app });
    expect(second.body.entries).toHaveLength(2);
    expect(second.body.more).toBeUndefined();
    // A token of one application is refused for another.
    const other = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    expect((await call(`${s.api}/lcds/audit?more=${encodeURIComponent(first.body.more as string)}`, { auth: other })).status).toBe(400);
  }, 60_000);

  it('job queues: counts by queue and state, a failed job with its error, retried until it completes', async () => {
    const queue = s.app.get(JobQueue);
    let failing = true;
    queue.register(FRAGILE, (payload) => {
      if (failing) return Promise.reject(new UnrecoverableJobError(`cannot reach ${payload.tag} yet`));
      return Promise.resolve({ ok: true });
    });
    const jobId = await queue.enqueue(FRAGILE, { tag: 'the peer' }, { appId });
    await waitFor(() => queue.get(jobId), (j) => j?.status === 'failed');

    const counts = await call(`${s.api}/lcds/jobs`, { auth: app });
    expect(counts.status).toBe(200);
    expect(counts.body.queues).toContainEqual({ queue: 'test.fragile', queued: 0, running: 0, completed: 0, failed: 1 });
    const failed = await call(`${s.api}/lcds/jobs/failed`, { auth: app });
    expect(failed.body.jobs).toEqual([expect.objectContaining({ id: jobId, queue: 'test.fragile', appId, attempts: 1, maxAttempts: 2, error: 'cannot reach the peer yet' })]);

    // Another application does not see it, nor retry it; a management application sees every job.
    const otherApp = (await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'jobless' } })).body.id as string;
    const otherKey = (await call(`${s.api}/appManagement/${otherApp}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'k' } })).body.credential as string;
    const other = basic(otherApp, otherKey);
    expect((await call(`${s.api}/lcds/jobs/failed`, { auth: other })).body.jobs).toEqual([]);
    expect((await call(`${s.api}/lcds/jobs/${jobId}/retry`, { method: 'POST', auth: other })).status).toBe(404);
    expect((await call(`${s.api}/lcds/jobs/failed`, { auth: mgmt })).body.jobs.map((j: { id: string }) => j.id)).toContain(jobId);

    failing = false;
    expect((await call(`${s.api}/lcds/jobs/${jobId}/retry`, { method: 'POST', auth: app })).status).toBe(204);
    expect((await waitFor(() => queue.get(jobId), (j) => j?.status === 'completed'))?.status).toBe('completed');
    expect((await call(`${s.api}/lcds/jobs/${jobId}/retry`, { method: 'POST', auth: app })).status).toBe(409);
    expect((await call(`${s.api}/lcds/jobs`, { auth: app })).body.queues).toContainEqual({ queue: 'test.fragile', queued: 0, running: 0, completed: 1, failed: 0 });
    expect((await audit(app))[0]).toMatchObject({ action: 'LcdsRetryJob', targets: { jobId } });
  });

  it('administrators: list, add, remove through /lcds; a normal application is refused; an unknown application is 404', async () => {
    expect((await call(`${s.api}/lcds/applications/${appId}/admins`, { method: 'POST', auth: mgmt, json: { email: 'second@example.com' } })).status).toBe(204);
    const list = await call(`${s.api}/lcds/applications/${appId}/admins`, { auth: mgmt });
    expect(list.body.admins.map((a: { email: string }) => a.email)).toEqual(['admin@example.com', 'second@example.com']);
    expect((await call(`${s.api}/lcds/applications/${appId}/admins`, { method: 'POST', auth: mgmt, json: { email: 'not an address' } })).status).toBe(400);
    expect((await call(`${s.api}/lcds/applications/${appId}/admins`, { method: 'POST', auth: mgmt, json: {} })).status).toBe(400);
    expect((await call(`${s.api}/lcds/applications/${appId}/admins/nobody@example.com`, { method: 'DELETE', auth: mgmt })).status).toBe(404);
    expect((await call(`${s.api}/lcds/applications/${appId}/admins`, { auth: app })).status).toBe(403);
    expect((await call(`${s.api}/lcds/applications/no-such-app/admins`, { auth: mgmt })).status).toBe(404);
  });

  it('the OpenAPI document lists the operations under the lcds tag with their scopes', async () => {
    const doc = (await call(`${s.api}/openapi.json`)).body as { paths: Record<string, Record<string, { operationId: string; tags: string[]; 'x-lcds-scopes': string[] }>> };
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p));
    const find = (id: string) => ops.find((o) => o.operationId === id)!;
    expect(find('LcdsGetAuditLog')).toMatchObject({ tags: ['lcds'], 'x-lcds-scopes': ['read:audit', 'read'] });
    expect(find('LcdsGetJobCounts')).toMatchObject({ tags: ['lcds'], 'x-lcds-scopes': ['read:jobs', 'read'] });
    expect(find('LcdsRetryJob')).toMatchObject({ tags: ['lcds'], 'x-lcds-scopes': ['write:jobs', 'write'] });
    expect(find('LcdsGetApplicationAdmins')).toMatchObject({ tags: ['lcds'] });
  });
});
