import { randomUUID } from 'node:crypto';
import { fixture, importCourse } from '../support/courses';
import { createClients, op, sc } from '../support/official-client';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/** GetRegistrationStatements / GetRegistrationInstanceStatements read the application's LRS by context.registration. */
describe('registration statements', () => {
  let s: TestServer;
  let app: string;
  const xapiRegistrationId = randomUUID();
  const lrs = (path: string) => `${s.baseUrl}/lrs/${s.firstStart.application.appId}${path}`;
  const statement = (registration: string, object: object, verb = 'http://adlnet.gov/expapi/verbs/experienced') => ({
    actor: { mbox: 'mailto:ada@example.com', objectType: 'Agent' },
    verb: { id: verb, display: { 'en-US': 'experienced' } },
    object,
    context: { registration },
  });

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'golf', fixture('scorm12-golf-runtime-basic.zip'));
    const created = await call(`${s.api}/registrations`, {
      method: 'POST',
      auth: app,
      json: { registrationId: 'reg-1', courseId: 'golf', learner: { id: 'ada' }, xapiRegistrationId },
    });
    expect(created.status).toBe(204);
    const batch = [
      ...Array.from({ length: 104 }, (_, i) => statement(xapiRegistrationId, { objectType: 'Activity', id: `http://example.com/activities/${i}` })),
      statement(xapiRegistrationId, { objectType: 'Agent', mbox: 'mailto:coach@example.com' }, 'http://adlnet.gov/expapi/verbs/interacted'),
      statement(randomUUID(), { objectType: 'Activity', id: 'http://example.com/other-registration' }),
    ];
    const posted = await call(lrs('/statements'), { method: 'POST', auth: app, json: batch, headers: { 'x-experience-api-version': '1.0.3' } });
    expect(posted.status).toBe(200);
  });
  afterAll(async () => s?.close());

  it('returns the registration statements in the XapiStatementResult shape, paged with more', async () => {
    const first = await call(`${s.api}/registrations/reg-1/xAPIStatements`, { auth: app });
    expect(first.status).toBe(200);
    expect(first.body.statements).toHaveLength(100);
    expect(first.body.statements[0]).toMatchObject({ objectActivity: { id: 'http://example.com/activities/0' }, context: { registration: xapiRegistrationId } });
    expect(first.body.statements[0].object).toBeUndefined();
    const second = await call(`${s.api}/registrations/reg-1/xAPIStatements?more=${encodeURIComponent(first.body.more)}`, { auth: app });
    expect(second.body.statements).toHaveLength(5);
    expect(second.body.statements[4]).toMatchObject({ objectAgentGroup: { mbox: 'mailto:coach@example.com' } });
    expect(second.body.more).toBeUndefined();
    const ids = [...first.body.statements, ...second.body.statements].map((x: { objectActivity?: { id: string } }) => x.objectActivity?.id);
    expect(ids).not.toContain('http://example.com/other-registration');
  });

  it('filters by time, serves the instance, and keeps other applications out', async () => {
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await call(`${s.api}/registrations/reg-1/xAPIStatements?since=${future}`, { auth: app })).body.statements).toEqual([]);
    const instance = await call(`${s.api}/registrations/reg-1/instances/0/xAPIStatements`, { auth: app });
    expect(instance.body.statements).toHaveLength(100);
    expect((await call(`${s.api}/registrations/nope/xAPIStatements`, { auth: app })).status).toBe(404);
    expect((await call(`${s.api}/registrations/reg-1/instances/9/xAPIStatements`, { auth: app })).status).toBe(404);
    expect((await call(`${s.api}/registrations/reg-1/xAPIStatements?since=soon`, { auth: app })).status).toBe(400);
    const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    expect((await call(`${s.api}/registrations/reg-1/xAPIStatements`, { auth: mgmt })).status).toBe(404);
  });

  it('works through the official client', async () => {
    const clients = createClients(s.api, { normal: [s.firstStart.application.appId, s.firstStart.application.secretKey] });
    const registrationApi = new sc.RegistrationApi(clients.apiClient);
    const result = await op(registrationApi, 'getRegistrationStatements', 'reg-1', {});
    expect(result).toBeInstanceOf(sc.XapiStatementResult);
    expect(result.statements).toHaveLength(100);
    expect(result.statements[0].objectActivity.id).toBe('http://example.com/activities/0');
    expect(result.statements[0].verb.id).toBe('http://adlnet.gov/expapi/verbs/experienced');
    expect(result.more).toEqual(expect.any(String));
  });
});
