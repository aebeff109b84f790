import { fixture, importCourse } from '../support/courses';
import { cliJson, ensureCliBuilt, runCli } from '../support/cli';
import { Clients, createClients, errorBody, failure, invoke, op, sc } from '../support/official-client';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * The Reporting service through the official SCORM Cloud client (v3): GetAccountInfo with the figures of the
 * application, the registration limit set with the CLI (strict: CreateRegistration answers 403), and the report
 * viewer's grant and link, at the real API's paths and at the contract's.
 */
describe('Reporting service (official client)', () => {
  let s: TestServer;
  let clients: Clients;
  let reporting: any;
  let registrations: any;
  let auth: string;
  let appId: string;

  const register = (registrationId: string) =>
    invoke(
      registrations,
      'createRegistration',
      Object.assign(new sc.CreateRegistrationSchema(), { courseId: 'report-golf', registrationId, learner: Object.assign(new sc.LearnerSchema(), { id: `learner-${registrationId}` }) }),
      {},
    );
  const cli = (args: string[]) => runCli(s.stack.env, s.stack.dataDir, args);

  beforeAll(async () => {
    ensureCliBuilt();
    s = await startTestServer();
    appId = s.firstStart.application.appId;
    auth = basic(appId, s.firstStart.application.secretKey);
    await importCourse(s.api, auth, 'report-golf', fixture('scorm2004-3rd-golf-runtime-basic.zip'));
    clients = createClients(s.api, { normal: [appId, s.firstStart.application.secretKey] });
    reporting = new sc.ReportingApi(clients.apiClient);
    registrations = new sc.RegistrationApi(clients.apiClient);
  }, 180_000);
  afterAll(async () => {
    await s?.close();
  });

  it("GetAccountInfo answers the application's figures: this month's and all registrations, courses, creation date", async () => {
    await register('r1');
    await register('r2');
    const info = await op(reporting, 'getAccountInfo');
    expect(info).toBeInstanceOf(sc.ReportageAccountInfoSchema);
    const now = new Date();
    expect(info.usage.monthStart.toISOString()).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString());
    expect(info.usage).toMatchObject({ regCount: 2, totalRegistrations: 2, totalCourses: 1 });
    expect(info.createDate).toBeInstanceOf(Date);
    expect(info.strictLimit).toBe(false);
    expect(info.regLimit).toBeUndefined();
    expect(info.email).toBeUndefined();
  });

  it('a strict registration limit set with the CLI makes CreateRegistration answer 403 past it; not strict, it is only reported', async () => {
    const set = cliJson<Record<string, unknown>>(await cli(['apps', 'account', '--app', appId, '--reg-limit', '3', '--strict', '--email', 'ops@example.com', '--company', 'Acme Learning', '--json']));
    expect(set).toEqual({ appId, regLimit: 3, strictLimit: true, email: 'ops@example.com', company: 'Acme Learning' });
    const info = await op(reporting, 'getAccountInfo');
    expect(info).toMatchObject({ regLimit: 3, strictLimit: true, email: 'ops@example.com', company: 'Acme Learning' });

    expect((await register('r3')).response.status).toBe(204);
    const refused = await failure(registrations, 'createRegistration', Object.assign(new sc.CreateRegistrationSchema(), { courseId: 'report-golf', registrationId: 'r4', learner: { id: 'l4' } }), {});
    expect(refused.status).toBe(403);
    expect(errorBody(refused).message).toMatch(/limit of 3 registrations this month/);
    expect((await call(`${s.api}/registrations/r4`, { auth })).status).toBe(404);
    // At the limit, an id that exists is still answered as taken (400), not as over the limit, and nothing changes.
    const taken = await failure(registrations, 'createRegistration', Object.assign(new sc.CreateRegistrationSchema(), { courseId: 'report-golf', registrationId: 'r3', learner: { id: 'someone-else' } }), {});
    expect(taken.status).toBe(400);
    expect(errorBody(taken).message).toMatch(/'r3' already exists/);
    expect((await call(`${s.api}/registrations/r3`, { auth })).body.learner.id).toBe('learner-r3');

    cliJson(await cli(['apps', 'account', '--app', appId, '--no-strict', '--json']));
    expect((await register('r4')).response.status).toBe(204);
    expect((await op(reporting, 'getAccountInfo')).usage.regCount).toBe(4);

    const bad = await cli(['apps', 'account', '--app', appId, '--reg-limit', 'lots']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--reg-limit must be a whole number or 'none'/);
    cliJson(await cli(['apps', 'account', '--app', appId, '--reg-limit', 'none', '--email', '', '--json']));
    const cleared = await op(reporting, 'getAccountInfo');
    expect(cleared.regLimit).toBeUndefined();
    expect(cleared.email).toBeUndefined();
    expect(cleared.company).toBe('Acme Learning');
  });

  it('GetReportageAuthToken and GetReportageLink make a link that opens the page, whose token reads reports only', async () => {
    const grant = await op(reporting, 'getReportageAuthToken', 'DOWNONLY', { admin: false });
    expect(grant).toBeInstanceOf(sc.ReportageAuthTokenSchema);
    expect(grant.authEnabled).toBe(true);
    expect(grant.queryString).toMatch(/^auth=[\w-]+\.[\w-]+$/);

    const { reportageLink } = await op(reporting, 'getReportageLink', grant.queryString, `${s.baseUrl}/reports/courses/report-golf?from=2026-01-01`);
    expect(reportageLink).toMatch(new RegExp(`^${s.baseUrl.replace(/[.]/g, '\\.')}/reports/courses/report-golf\\?from=2026-01-01#token=`));
    const token = decodeURIComponent(new URL(reportageLink).hash.slice('#token='.length));

    // The link's token reads the Reporting service, nothing else, and cannot make links of its own.
    expect((await call(`${s.api}/reporting/accountInfo`, { auth: `Bearer ${token}` })).status).toBe(200);
    expect((await call(`${s.api}/courses`, { auth: `Bearer ${token}` })).status).toBe(403);
    expect((await call(`${s.api}/reporting/reportageAuth?navPermission=FREENAV`, { auth: `Bearer ${token}` })).status).toBe(403);

    // The application's overview is PUBLIC_URL/reports/ itself; a path is read against PUBLIC_URL.
    const overview = await op(reporting, 'getReportageLink', grant.queryString, '/reports/');
    expect(overview.reportageLink.startsWith(`${s.baseUrl}/reports/#token=`)).toBe(true);
  });

  it("the contract's paths answer the same; bad input is a 400 with a message", async () => {
    const viewerAuth = await call(`${s.api}/reporting/viewerAuth?navPermission=NONAV&admin=true`, { auth });
    expect(viewerAuth.status).toBe(200);
    expect(viewerAuth.body).toEqual({ queryString: expect.stringMatching(/^auth=/), authEnabled: true });
    const link = await call(`${s.api}/reporting/viewerLink?${new URLSearchParams({ auth: viewerAuth.body.queryString, reportUrl: `${s.baseUrl}/reports/learners/learner-r1` })}`, { auth });
    expect(link.status).toBe(200);
    expect(link.body.reportageLink).toMatch(/\/reports\/learners\/learner-r1#token=/);

    const badNav = await failure(reporting, 'getReportageAuthToken', 'SOMETIMES', {});
    expect(badNav.status).toBe(400);
    expect(errorBody(badNav).message).toMatch(/navPermission must be one of NONAV, DOWNONLY, FREENAV/);
    const outside = await failure(reporting, 'getReportageLink', viewerAuth.body.queryString, 'https://elsewhere.example.com/reports/');
    expect(outside.status).toBe(400);
    expect(errorBody(outside).message).toMatch(/reportUrl must be a page of the report viewer/);
    const notAPage = await failure(reporting, 'getReportageLink', viewerAuth.body.queryString, `${s.baseUrl}/reports/courses/`);
    expect(notAPage.status).toBe(400);
    const tampered = await failure(reporting, 'getReportageLink', viewerAuth.body.queryString.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A')), '/reports/');
    expect(tampered.status).toBe(400);
    expect(errorBody(tampered).message).toMatch(/auth is not a query string answered by GetReportageAuthToken/);

    // Another application's grant is not this application's.
    const mgmt = s.firstStart.management;
    const other = await call(`${s.api}/reporting/reportageAuth?navPermission=FREENAV`, { auth: basic(mgmt.appId, mgmt.secretKey) });
    expect(other.status).toBe(200);
    const foreign = await failure(reporting, 'getReportageLink', other.body.queryString, '/reports/');
    expect(foreign.status).toBe(400);
  });

  it("a management application sets an application's limit and contact through LCDS's own operation; bad input is a 400", async () => {
    const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    const url = `${s.api}/lcds/applications/${appId}/account`;
    expect((await call(url, { method: 'PUT', auth: mgmt, json: { regLimit: 2, strictLimit: true, email: 'billing@example.com', company: null } })).status).toBe(204);
    expect((await call(url, { auth: mgmt })).body).toEqual({ appId, regLimit: 2, strictLimit: true, email: 'billing@example.com', company: null });
    expect(await op(reporting, 'getAccountInfo')).toMatchObject({ regLimit: 2, strictLimit: true, email: 'billing@example.com' });
    // Past the limit (4 registrations this month already): refused.
    expect((await failure(registrations, 'createRegistration', Object.assign(new sc.CreateRegistrationSchema(), { courseId: 'report-golf', registrationId: 'r9', learner: { id: 'l9' } }), {})).status).toBe(403);

    const bad = await call(url, { method: 'PUT', auth: mgmt, json: { regLimit: -1, email: 'not an address' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/regLimit must not be less than 0/);
    expect(bad.body.message).toMatch(/email must be an e-mail address/);
    expect((await call(`${s.api}/lcds/applications/NOSUCHAPP/account`, { method: 'PUT', auth: mgmt, json: { regLimit: 1 } })).status).toBe(404);
    // An application's own key is not a management key.
    expect((await call(url, { method: 'PUT', auth, json: { regLimit: null } })).status).toBe(403);
    expect((await call(url, { method: 'PUT', auth: mgmt, json: { regLimit: null, strictLimit: false } })).status).toBe(204);
  });

  it("the report viewer's data: figures of the application's registrations; unknown or another application's ids are 404, bad filters 400", async () => {
    const app = await call(`${s.api}/lcds/reports/application`, { auth });
    expect(app.status).toBe(200);
    expect(app.body.totals).toMatchObject({ registrations: 4, started: 0, completed: 0 });
    expect(app.body.courses).toEqual([expect.objectContaining({ courseId: 'report-golf', registrations: 4, completed: 0 })]);
    const course = await call(`${s.api}/lcds/reports/courses/report-golf?learnerId=learner-r1`, { auth });
    expect(course.status).toBe(200);
    expect(course.body.totals.registrations).toBe(1);
    expect(course.body.registrations.map((r: { id: string }) => r.id)).toEqual(['r1']);

    const badDate = await call(`${s.api}/lcds/reports/application?from=yesterday`, { auth });
    expect(badDate.status).toBe(400);
    expect(badDate.body.message).toMatch(/from must be an ISO 8601 date-time/);
    expect((await call(`${s.api}/lcds/reports/courses/nope`, { auth })).status).toBe(404);
    expect((await call(`${s.api}/lcds/reports/registrations/nope`, { auth })).status).toBe(404);
    const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    expect((await call(`${s.api}/lcds/reports/courses/report-golf`, { auth: mgmt })).status).toBe(404);
    expect((await call(`${s.api}/lcds/reports/registrations/r1`, { auth: mgmt })).status).toBe(404);
  });

  it('scopes: read or read:reporting', async () => {
    const tokenFor = async (scope: string) =>
      (await call(`${s.api}/oauth/authenticate/application/token`, { method: 'POST', auth, body: new URLSearchParams({ scope, expiration: '300' }), headers: { 'content-type': 'application/x-www-form-urlencoded' } })).body.access_token as string;
    const courseOnly = createClients(s.api, { bearer: await tokenFor('read:course') });
    expect((await failure(new sc.ReportingApi(courseOnly.apiClient), 'getAccountInfo')).status).toBe(403);
    const reportingOnly = createClients(s.api, { bearer: await tokenFor('read:reporting') });
    expect((await op(new sc.ReportingApi(reportingOnly.apiClient), 'getAccountInfo')).usage.totalCourses).toBe(1);
  });
});
