import { randomUUID } from 'node:crypto';
import { fixture, importCourse } from '../support/courses';
import { createClients, failure, op, sc } from '../support/official-client';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * GetCourseStatements / GetCourseVersionStatements: the statements of the application's LRS whose
 * context.registration is one of the course's registrations (a version: registrations with an instance on it).
 */
describe('course statements', () => {
  let s: TestServer;
  let app: string;
  const xapi = { ada: randomUUID(), bob: randomUUID(), carol: randomUUID(), other: randomUUID() };
  const lrs = (path: string) => `${s.baseUrl}/lrs/${s.firstStart.application.appId}${path}`;
  const statement = (registration: string, n: number) => ({
    actor: { mbox: 'mailto:learner@example.com', objectType: 'Agent' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced', display: { 'en-US': 'experienced' } },
    object: { objectType: 'Activity', id: `http://example.com/activities/${n}` },
    context: { registration },
  });
  const register = async (registrationId: string, courseId: string, learner: string, xapiRegistrationId: string) => {
    const created = await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId, courseId, learner: { id: learner }, xapiRegistrationId } });
    expect(created.status).toBe(204);
  };
  const post = async (batch: object[]) => {
    const posted = await call(lrs('/statements'), { method: 'POST', auth: app, json: batch, headers: { 'x-experience-api-version': '1.0.3' } });
    expect(posted.status).toBe(200);
  };
  /** Every statement of a list, following `more` (more alone, as clients page). */
  const walk = async (path: string) => {
    const ids: string[] = [];
    let url = `${s.api}${path}`;
    for (let pages = 0; pages < 10; pages++) {
      const r = await call(url, { auth: app });
      expect(r.status).toBe(200);
      ids.push(...r.body.statements.map((x: { objectActivity: { id: string } }) => x.objectActivity.id));
      if (!r.body.more) return ids;
      url = `${s.api}${path.split('?')[0]}?more=${encodeURIComponent(r.body.more)}`;
    }
    throw new Error('more than 10 pages');
  };
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `http://example.com/activities/${from + i}`);

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'golf', fixture('scorm12-golf-runtime-basic.zip'));
    await importCourse(s.api, app, 'other', fixture('scorm12-golf-runtime-basic.zip'));
    // ada and bob on version 1; carol after version 2 is imported, so on version 2.
    await register('reg-ada', 'golf', 'ada', xapi.ada);
    await register('reg-bob', 'golf', 'bob', xapi.bob);
    await register('reg-other', 'other', 'ada', xapi.other);
    await importCourse(s.api, app, 'golf', fixture('scorm12-golf-runtime-basic.zip'), { mayCreateNewVersion: 'true' });
    await register('reg-carol', 'golf', 'carol', xapi.carol);
    await post([
      ...Array.from({ length: 120 }, (_, i) => statement(xapi.ada, i)),
      ...Array.from({ length: 40 }, (_, i) => statement(xapi.bob, 200 + i)),
      ...Array.from({ length: 5 }, (_, i) => statement(xapi.carol, 300 + i)),
      ...Array.from({ length: 5 }, (_, i) => statement(xapi.other, 400 + i)),
      statement(randomUUID(), 500),
    ]);
  });
  afterAll(async () => s?.close());

  it("returns the statements of the course's registrations, oldest first, paged with more", async () => {
    const first = await call(`${s.api}/courses/golf/xAPIStatements`, { auth: app });
    expect(first.status).toBe(200);
    expect(first.body.statements).toHaveLength(100);
    expect(first.body.statements[0]).toMatchObject({ objectActivity: { id: 'http://example.com/activities/0' }, context: { registration: xapi.ada } });
    expect(first.body.statements[0].object).toBeUndefined();
    expect(first.body.more).toEqual(expect.any(String));
    expect(await walk('/courses/golf/xAPIStatements')).toEqual([...range(0, 120), ...range(200, 240), ...range(300, 305)]);
    expect(await walk('/courses/other/xAPIStatements')).toEqual(range(400, 405));
  });

  it('filters by learnerId (carried by more to the pages after the first), by version and by time', async () => {
    expect(await walk('/courses/golf/xAPIStatements?learnerId=ada')).toEqual(range(0, 120));
    expect(await walk('/courses/golf/xAPIStatements?learnerId=nobody')).toEqual([]);
    expect(await walk('/courses/golf/versions/1/xAPIStatements')).toEqual([...range(0, 120), ...range(200, 240)]);
    expect(await walk('/courses/golf/versions/2/xAPIStatements')).toEqual(range(300, 305));
    expect(await walk('/courses/golf/versions/1/xAPIStatements?learnerId=bob')).toEqual(range(200, 240));
    expect(await walk('/courses/golf/versions/2/xAPIStatements?learnerId=bob')).toEqual([]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await call(`${s.api}/courses/golf/xAPIStatements?since=${future}`, { auth: app })).body.statements).toEqual([]);
    expect((await call(`${s.api}/courses/golf/xAPIStatements?until=2000-01-01T00:00:00Z`, { auth: app })).body.statements).toEqual([]);
  });

  it('answers 404 for unknown courses and versions and for other applications, 400 for bad input and foreign tokens', async () => {
    expect((await call(`${s.api}/courses/nope/xAPIStatements`, { auth: app })).status).toBe(404);
    expect((await call(`${s.api}/courses/golf/versions/9/xAPIStatements`, { auth: app })).status).toBe(404);
    expect((await call(`${s.api}/courses/golf/versions/x/xAPIStatements`, { auth: app })).status).toBe(400);
    const bad = await call(`${s.api}/courses/golf/xAPIStatements?since=soon`, { auth: app });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/since/);
    const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    expect((await call(`${s.api}/courses/golf/xAPIStatements`, { auth: mgmt })).status).toBe(404);

    // A token is good for the list it came from only.
    const more = (await call(`${s.api}/courses/golf/xAPIStatements`, { auth: app })).body.more as string;
    const token = encodeURIComponent(more);
    expect((await call(`${s.api}/courses/golf/xAPIStatements?more=${token}`, { auth: app })).status).toBe(200);
    expect((await call(`${s.api}/courses/other/xAPIStatements?more=${token}`, { auth: app })).status).toBe(400);
    expect((await call(`${s.api}/courses/golf/versions/1/xAPIStatements?more=${token}`, { auth: app })).status).toBe(400);
    expect((await call(`${s.api}/courses/golf/xAPIStatements?learnerId=ada&more=${token}`, { auth: app })).status).toBe(400);
    expect((await call(`${s.api}/registrations/reg-ada/xAPIStatements?more=${token}`, { auth: app })).status).toBe(400);
    const regMore = (await call(`${s.api}/registrations/reg-ada/xAPIStatements`, { auth: app })).body.more as string;
    expect((await call(`${s.api}/courses/golf/xAPIStatements?more=${encodeURIComponent(regMore)}`, { auth: app })).status).toBe(400);
  });

  it('works through the official client', async () => {
    const clients = createClients(s.api, { normal: [s.firstStart.application.appId, s.firstStart.application.secretKey] });
    const first = await op(clients.course, 'getCourseStatements', 'golf', { learnerId: 'bob' });
    expect(first).toBeInstanceOf(sc.XapiStatementResult);
    expect(first.statements).toHaveLength(40);
    expect(first.statements[0].objectActivity.id).toBe('http://example.com/activities/200');
    expect(first.statements[0].verb.id).toBe('http://adlnet.gov/expapi/verbs/experienced');
    expect(first.statements[0].context.registration).toBe(xapi.bob);
    expect(first.more).toBeFalsy();

    const page1 = await op(clients.course, 'getCourseVersionStatements', 'golf', 1, { since: new Date(0) });
    expect(page1.statements).toHaveLength(100);
    const page2 = await op(clients.course, 'getCourseVersionStatements', 'golf', 1, { more: page1.more });
    expect(page2.statements.map((x: any) => x.objectActivity.id)).toEqual([...range(100, 120), ...range(200, 240)]);
    expect(page2.more).toBeFalsy();

    expect((await failure(clients.course, 'getCourseStatements', 'nope', {})).status).toBe(404);
    expect((await failure(clients.course, 'getCourseVersionStatements', 'golf', 9, {})).status).toBe(404);
  });
});
