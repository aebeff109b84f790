import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixture, importCourse } from '../support/courses';
import { followLaunch, learnerRegistrations, waitFor } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';
import { COURSE_ACTIVITY, statement, tincanPackage, xapiLaunchOf } from '../support/xapi-launch';

describe('xAPI (TinCan) courses: launch parameters, a registration-bound LRS token, progress from statements', () => {
  let s: TestServer;
  let app: string;
  const learner = { id: 'learner-x', firstName: 'Grace', lastName: 'Hopper' };
  const { createReg, link, progress } = learnerRegistrations(() => s, () => app, learner);

  /** Follows a registration's launch link to the player page, and reads the TinCan parameters of its content URL. */
  const launch = async (registrationId: string) => {
    const { page, html } = await followLaunch(s.baseUrl, await link(registrationId));
    return { page, html, ...xapiLaunchOf(html) };
  };
  const post = (endpoint: string, auth: string, body: unknown) =>
    fetch(`${endpoint}statements`, { method: 'POST', headers: { authorization: auth, 'x-experience-api-version': '1.0.3', 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const xapiRegistrationOf = async (registrationId: string) => (await call(`${s.api}/registrations/${registrationId}`, { auth: app })).body.xapiRegistrationId as string;

  beforeAll(async () => {
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true' });
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'gen-xapi', { name: 'gen-xapi.zip', data: await tincanPackage('<!doctype html><title>xAPI</title><p>content</p>'), type: 'application/zip' });
    await importCourse(s.api, app, 'golf-xapi', fixture('xapi-tincan-golfexample.zip'));
  }, 60_000);
  afterAll(async () => s?.close());

  it('launches the content with endpoint, auth, actor, registration and activity_id, and no SCORM API or commits on the page', async () => {
    await createReg('rx-launch', 'gen-xapi');
    const { html, contentUrl, endpoint, auth, actor, registration, activityId } = await launch('rx-launch');
    expect(contentUrl).toMatch(/^content\/index\.html\?endpoint=/);
    expect(endpoint).toBe(`${s.config.publicUrl}/lrs/${s.firstStart.application.appId}/`);
    expect(auth).toMatch(/^Basic [A-Za-z0-9+/=]+$/);
    expect(actor).toEqual({ objectType: 'Agent', name: 'Hopper, Grace', account: { homePage: s.config.publicUrl, name: 'learner-x' } });
    expect(registration).toBe(await xapiRegistrationOf('rx-launch'));
    expect(activityId).toBe(COURSE_ACTIVITY);
    expect(html).toContain('"tracking":false');
    expect(html).toContain('"noApi":true');
    // The token reads the LRS's about resource and its own registration's statements.
    expect((await fetch(`${endpoint}about`, { headers: { authorization: auth } })).status).toBe(200);
    const read = await fetch(`${endpoint}statements?registration=${registration}`, { headers: { authorization: auth, 'x-experience-api-version': '1.0.3' } });
    expect(read.status).toBe(200);
  });

  it('takes completion, success and score from the statements the content sends; the launch history follows', async () => {
    await createReg('rx-pass', 'gen-xapi');
    const { endpoint, auth, actor, registration, activityId } = await launch('rx-pass');
    let p = await progress('rx-pass');
    expect(p).toMatchObject({ registrationCompletion: 'UNKNOWN', registrationSuccess: 'UNKNOWN' });

    // Statements that decide nothing: another activity's completion, an "experienced".
    expect((await post(endpoint, auth, [statement(actor, 'experienced', activityId, registration), statement(actor, 'completed', `${activityId}/page-1`, registration)])).status).toBe(200);
    expect((await post(endpoint, auth, statement(actor, 'passed', activityId, registration, { success: true, completion: true, score: { scaled: 0.85 } }, '2026-11-20T10:00:00.000Z'))).status).toBe(200);
    p = await waitFor(() => progress('rx-pass'), (v) => v.registrationSuccess === 'PASSED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: { scaled: 0.85 } });
    expect(p.activityDetails).toMatchObject({ id: COURSE_ACTIVITY, activityCompletion: 'COMPLETED', activitySuccess: 'PASSED', attempts: 1 });
    // UseStatementTimestampInRegistrationUpdates (default true): completed at the statement's timestamp.
    expect(p.completedDate).toBe('2026-11-20T10:00:00.000Z');

    const history = await call(`${s.api}/registrations/rx-pass/launchHistory`, { auth: app });
    expect(history.status).toBe(200);
    expect(history.body.launchHistory).toHaveLength(1);
    expect(history.body.launchHistory[0]).toMatchObject({ completionStatus: 'COMPLETED', successStatus: 'PASSED', score: { scaled: 0.85 } });
    // The launch's history log lists the statements the content sent with its launch token.
    const log = (await call(`${s.api}/registrations/rx-pass/launchHistory?includeHistoryLog=true`, { auth: app })).body.launchHistory[0].historyLog as string;
    expect(log).toMatch(/ lrs statement experienced [0-9a-f-]{36}: stored\n.* lrs statement completed [0-9a-f-]{36}: stored\n.* lrs statement passed [0-9a-f-]{36}: stored\n/s);
  });

  it('a failed statement fails the registration; completed alone completes it with success unknown', async () => {
    await createReg('rx-fail', 'gen-xapi');
    const f = await launch('rx-fail');
    expect((await post(f.endpoint, f.auth, statement(f.actor, 'failed', f.activityId, f.registration, { score: { scaled: 0.4 } }))).status).toBe(200);
    const failed = await waitFor(() => progress('rx-fail'), (v) => v.registrationSuccess === 'FAILED');
    expect(failed).toMatchObject({ registrationCompletion: 'UNKNOWN', registrationSuccess: 'FAILED', score: { scaled: 0.4 } });

    await createReg('rx-done', 'gen-xapi');
    const d = await launch('rx-done');
    expect((await post(d.endpoint, d.auth, statement(d.actor, 'completed', d.activityId, d.registration))).status).toBe(200);
    const done = await waitFor(() => progress('rx-done'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(done).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'UNKNOWN' });
  });

  it('the launch token writes no statements for another registration or another actor', async () => {
    await createReg('rx-a', 'gen-xapi');
    await createReg('rx-b', 'gen-xapi');
    const a = await launch('rx-a');
    const otherRegistration = await xapiRegistrationOf('rx-b');
    const otherRes = await post(a.endpoint, a.auth, statement(a.actor, 'passed', a.activityId, otherRegistration));
    expect(otherRes.status).toBe(403);
    expect(await otherRes.text()).toContain('context.registration');
    const otherActor = { objectType: 'Agent', account: { homePage: s.config.publicUrl, name: 'someone-else' } };
    const actorRes = await post(a.endpoint, a.auth, statement(otherActor, 'passed', a.activityId, a.registration));
    expect(actorRes.status).toBe(403);
    expect(await actorRes.text()).toContain('actor');
    // A statement about another learner, sent with the application's own credential, does not complete the registration.
    expect((await post(a.endpoint, app, statement(otherActor, 'completed', a.activityId, a.registration))).status).toBe(200);
    expect((await post(a.endpoint, a.auth, statement(a.actor, 'experienced', a.activityId, a.registration))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await progress('rx-a')).toMatchObject({ registrationCompletion: 'UNKNOWN' });
    expect(await progress('rx-b')).toMatchObject({ registrationCompletion: 'UNKNOWN' });
  });

  it('a progress change from statements sends the registration postback', async () => {
    const bodies: any[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'rx-hook', courseId: 'gen-xapi', learner, postBack: { url, authType: 'HTTPBASIC', resultsFormat: 'COURSE' } } })).status).toBe(204);
      const { endpoint, auth, actor, registration, activityId } = await launch('rx-hook');
      expect((await post(endpoint, auth, statement(actor, 'passed', activityId, registration, { score: { scaled: 1 } }))).status).toBe(200);
      const last = await waitFor(() => Promise.resolve(bodies.at(-1)), (b) => b?.registrationSuccess === 'PASSED', 15_000);
      expect(last).toMatchObject({ id: 'rx-hook', registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: { scaled: 1 } });
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('a course preview launches the content as the preview learner in a registration of its own', async () => {
    const r = await call(`${s.api}/courses/gen-xapi/preview`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    expect(r.status).toBe(200);
    const launched = await fetch(r.body.launchLink as string, { redirect: 'manual' });
    const html = await (await fetch(new URL(launched.headers.get('location')!, s.baseUrl))).text();
    const { endpoint, auth, actor, registration, activityId } = xapiLaunchOf(html);
    expect(actor).toMatchObject({ account: { homePage: s.config.publicUrl, name: 'preview' } });
    expect(registration).toMatch(/^[0-9a-f-]{36}$/);
    expect(activityId).toBe(COURSE_ACTIVITY);
    expect((await post(endpoint, auth, statement(actor, 'completed', activityId, registration))).status).toBe(200);
  });

  it('content hosted elsewhere (an absolute launch URL) is framed at its URL with the launch parameters', async () => {
    await importCourse(s.api, app, 'remote-xapi', { name: 'remote-xapi.zip', data: await tincanPackage('<!doctype html><p>unused</p>', 'https://content.example.com/course/start.html?lang=en'), type: 'application/zip' });
    await createReg('rx-remote', 'remote-xapi');
    const { contentUrl, registration, activityId } = await launch('rx-remote');
    const url = new URL(contentUrl);
    expect(`${url.origin}${url.pathname}`).toBe('https://content.example.com/course/start.html');
    expect(url.searchParams.get('lang')).toBe('en');
    expect(url.searchParams.get('registration')).toBe(registration);
    expect(activityId).toBe(COURSE_ACTIVITY);
  });

  it('launches the TinCan golf example fixture with its activity id', async () => {
    await createReg('rx-golf', 'golf-xapi');
    const { contentUrl, activityId, registration, page } = await launch('rx-golf');
    const course = (await call(`${s.api}/courses/golf-xapi`, { auth: app })).body;
    expect(activityId).toBe(course.xapiActivityId ?? course.rootActivity?.externalIdentifier ?? activityId);
    expect(registration).toBe(await xapiRegistrationOf('rx-golf'));
    const content = await fetch(new URL(contentUrl, page));
    expect(content.status).toBe(200);
  });
});
