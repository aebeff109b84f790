import { importCourse } from '../support/courses';
import { CMI5_BLOCK, CMI5_CATEGORY, CMI5_COURSE, cmi5Au, cmi5LaunchOf, cmi5Package, cmi5Statement, SESSION_EXT } from '../support/cmi5';
import { followLaunch, learnerRegistrations, waitFor } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';
import { PlayerSessionReaper } from '../../src/modules/player/player-session-reaper';

const X = { 'x-experience-api-version': '1.0.3' };

describe('cmi5 courses: launch (fetch URL, LMS.LaunchData, launched), the LRS enforcing the cmi5 rules, progress and satisfied', () => {
  let s: TestServer;
  let app: string;
  let appId: string;
  const learner = { id: 'learner-c', firstName: 'Ada', lastName: 'Lovelace' };
  const { createReg, link, progress } = learnerRegistrations(() => s, () => app, learner);

  /** Follows a launch link to the player page and reads the cmi5 parameters of its content URL. */
  const launch = async (registrationId: string) => {
    const { page, html } = await followLaunch(s.baseUrl, await link(registrationId));
    return { page, html, ...cmi5LaunchOf(html) };
  };
  const fetchToken = async (url: string) => {
    const r = await fetch(url, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    return (await r.json()) as Record<string, string>;
  };
  const launchData = async (l: { endpoint: string; actor: unknown; registration: string; activityId: string }, auth: string) => {
    const q = new URLSearchParams({ stateId: 'LMS.LaunchData', activityId: l.activityId, agent: JSON.stringify(l.actor), registration: l.registration });
    const r = await fetch(`${l.endpoint}/activities/state?${q.toString()}`, { headers: { authorization: auth, ...X } });
    expect(r.status).toBe(200);
    return (await r.json());
  };
  /** What a cmi5 AU does after fetching its token: LMS.LaunchData, then the learner's preferences (cmi5 11.0.0.0-3), before initialized. */
  const start = async (l: { endpoint: string; actor: unknown; registration: string; activityId: string }, auth: string) => {
    const sessionId = (await launchData(l, auth)).contextTemplate.extensions[SESSION_EXT] as string;
    const prefs = new URLSearchParams({ profileId: 'cmi5LearnerPreferences', agent: JSON.stringify(l.actor) });
    expect((await fetch(`${l.endpoint}/agents/profile?${prefs.toString()}`, { headers: { authorization: auth, ...X } })).status).toBe(404);
    return sessionId;
  };
  const put = (endpoint: string, auth: string, st: Record<string, unknown>) =>
    fetch(`${endpoint}/statements?statementId=${String(st.id)}`, { method: 'PUT', headers: { authorization: auth, 'content-type': 'application/json', ...X }, body: JSON.stringify(st) });
  const registrationStatements = async (registration: string) =>
    ((await (await fetch(`${s.config.publicUrl}/lrs/${appId}/statements?registration=${registration}&ascending=true`, { headers: { authorization: app, ...X } })).json()) as { statements: any[] }).statements;

  beforeAll(async () => {
    s = await startTestServer();
    appId = s.firstStart.application.appId;
    app = basic(appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'c-one', { name: 'c-one.zip', data: await cmi5Package([{ moveOn: 'CompletedAndPassed', masteryScore: 0.8 }]), type: 'application/zip' });
    await importCourse(s.api, app, 'c-two', { name: 'c-two.zip', data: await cmi5Package([{ moveOn: 'Completed' }, { moveOn: 'NotApplicable', launchMethod: 'OwnWindow' }]), type: 'application/zip' });
    await importCourse(s.api, app, 'c-na', { name: 'c-na.zip', data: await cmi5Package([{ moveOn: 'NotApplicable' }]), type: 'application/zip' });
  }, 60_000);
  afterAll(async () => s?.close());

  it('launches the AU with endpoint, fetch, actor, registration and activityId; fetch answers one auth token; LMS.LaunchData and launched are written first', async () => {
    await createReg('rc-launch', 'c-one');
    const l = await launch('rc-launch');
    expect(l.contentUrl).toMatch(/^content\/au1\.html\?x=1&endpoint=/);
    expect(l.endpoint).toBe(`${s.config.publicUrl}/lrs/${appId}`);
    expect(l.actor).toEqual({ objectType: 'Agent', name: 'Lovelace, Ada', account: { homePage: s.config.publicUrl, name: 'learner-c' } });
    expect(l.registration).toBe((await call(`${s.api}/registrations/rc-launch`, { auth: app })).body.xapiRegistrationId);
    expect(l.activityId).toMatch(/^https?:\/\//);
    expect(l.activityId).not.toBe(cmi5Au(1));
    expect(l.html).toContain('"noApi":true');

    const first = await fetchToken(l.fetch);
    expect(Object.keys(first)).toEqual(['auth-token']);
    const second = await fetchToken(l.fetch);
    expect(second).toEqual({ 'error-code': '1', 'error-text': expect.any(String) });
    expect(await fetchToken(`${l.fetch}x`)).toMatchObject({ 'error-code': '3' });
    const auth = `Basic ${first['auth-token']}`;

    const data = await launchData(l, auth);
    expect(data).toMatchObject({ launchMode: 'Normal', launchMethod: 'AnyWindow', moveOn: 'CompletedAndPassed', masteryScore: 0.8, launchParameters: 'params 1', entitlementKey: { courseStructure: 'key 1' } });
    expect(data.contextTemplate.contextActivities.grouping).toEqual([{ objectType: 'Activity', id: cmi5Au(1) }]);
    const sessionId = data.contextTemplate.extensions[SESSION_EXT] as string;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(data.returnURL).toMatch(/\/player\/s\/.+\/return$/);

    const list = await registrationStatements(l.registration);
    expect(list.map((st) => st.verb.id)).toEqual(['http://adlnet.gov/expapi/verbs/launched']);
    expect(list[0].object.id).toBe(l.activityId);
    expect(list[0].context.contextActivities.category).toEqual([{ id: CMI5_CATEGORY }]);
    expect(list[0].context.extensions).toMatchObject({ [SESSION_EXT]: sessionId, 'https://w3id.org/xapi/cmi5/context/extensions/launchmode': 'Normal', 'https://w3id.org/xapi/cmi5/context/extensions/moveon': 'CompletedAndPassed', 'https://w3id.org/xapi/cmi5/context/extensions/masteryscore': 0.8 });
    const launchUrl = new URL(list[0].context.extensions['https://w3id.org/xapi/cmi5/context/extensions/launchurl'] as string);
    expect(launchUrl.pathname).toMatch(/\/player\/s\/.+\/content\/au1\.html$/);
    expect(launchUrl.searchParams.get('x')).toBe('1');

    // The AU may not change LMS.LaunchData, nor write learner preferences that are not cmi5's.
    const q = new URLSearchParams({ stateId: 'LMS.LaunchData', activityId: l.activityId, agent: JSON.stringify(l.actor), registration: l.registration });
    expect((await fetch(`${l.endpoint}/activities/state?${q.toString()}`, { method: 'PUT', headers: { authorization: auth, 'content-type': 'application/json', ...X }, body: '{}' })).status).toBe(403);
    const prefs = new URLSearchParams({ profileId: 'cmi5LearnerPreferences', agent: JSON.stringify(l.actor) });
    expect((await fetch(`${l.endpoint}/agents/profile?${prefs.toString()}`, { method: 'PUT', headers: { authorization: auth, 'content-type': 'application/json', ...X }, body: '{"languagePreference":"not a list","audioPreference":"on"}' })).status).toBe(403);
    expect((await fetch(`${l.endpoint}/agents/profile?profileId=cmi5LearnerPreferences`, { method: 'PUT', headers: { authorization: auth, 'content-type': 'application/json', ...X }, body: '{}' })).status).toBe(400);
  });

  it('refuses statements that break the cmi5 rules with 403; completed + passed satisfy the AU, the LMS issues satisfied for block and course; terminated ends the token', async () => {
    await createReg('rc-rules', 'c-one');
    const l = await launch('rc-rules');
    const auth = `Basic ${(await fetchToken(l.fetch))['auth-token']}`;
    const sessionId = await start(l, auth);
    const ms = { 'https://w3id.org/xapi/cmi5/context/extensions/masteryscore': 0.8 };

    const refused = async (st: Record<string, unknown>, why: RegExp) => {
      const r = await put(l.endpoint, auth, st);
      expect(r.status).toBe(403);
      expect(((await r.json()) as { message: string }).message).toMatch(why);
    };
    await refused(cmi5Statement(l, sessionId, 'completed', { completion: true, duration: 'PT1S' }), /first statement of a session must be initialized/);
    expect((await put(l.endpoint, auth, cmi5Statement(l, sessionId, 'initialized'))).status).toBe(204);
    await refused(cmi5Statement(l, sessionId, 'initialized'), /initialized may be sent once/);
    await refused(cmi5Statement(l, 'another-session', 'completed', { completion: true, duration: 'PT1S' }), /session id/);
    await refused(cmi5Statement(l, sessionId, 'completed', { completion: true }), /duration/);
    await refused(cmi5Statement(l, sessionId, 'passed', { success: true, duration: 'PT1S', score: { scaled: 0.7 } }, ms), /below the masteryScore/);
    await refused(cmi5Statement(l, sessionId, 'passed', { success: true, duration: 'PT1S', score: { scaled: 0.9 } }), /masteryScore extension/);
    await refused({ ...cmi5Statement(l, sessionId, 'completed', { completion: true, duration: 'PT1S' }), object: { id: cmi5Au(1) } }, /AU activity id/);
    await refused({ ...cmi5Statement(l, sessionId, 'completed', { completion: true, duration: 'PT1S' }), timestamp: '2026-01-01T10:00:00-06:00' }, /UTC/);

    expect((await put(l.endpoint, auth, cmi5Statement(l, sessionId, 'passed', { success: true, duration: 'PT1S', score: { scaled: 0.9 } }, ms))).status).toBe(204);
    let p = await progress('rc-rules');
    expect(p).toMatchObject({ registrationCompletion: 'INCOMPLETE', registrationSuccess: 'UNKNOWN' });
    expect(p.activityDetails.children[0].children[0]).toMatchObject({ id: cmi5Au(1), activitySuccess: 'PASSED', score: { scaled: 0.9 } });
    await refused(cmi5Statement(l, sessionId, 'failed', { success: false, duration: 'PT1S', score: { scaled: 0.1 } }, ms), /once per session/);
    expect((await put(l.endpoint, auth, cmi5Statement(l, sessionId, 'completed', { completion: true, duration: 'PT1S' }))).status).toBe(204);
    p = await progress('rc-rules');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: { scaled: 0.9 } });
    expect(p.activityDetails).toMatchObject({ id: CMI5_COURSE, activityCompletion: 'COMPLETED', children: [{ id: CMI5_BLOCK, activityCompletion: 'COMPLETED' }] });
    expect(p.activityDetails.cmi5).toBeUndefined();

    expect((await put(l.endpoint, auth, cmi5Statement(l, sessionId, 'terminated', { duration: 'PT5S' }))).status).toBe(204);
    const verbs = (await registrationStatements(l.registration)).map((st) => `${String(st.verb.id).split('/').pop()}:${st.object.definition?.type?.split('/').pop() ?? ''}`);
    expect(verbs).toEqual(['launched:', 'initialized:', 'passed:', 'completed:', 'satisfied:block', 'satisfied:course', 'terminated:']);
    // The session's duration (terminated's) is the AU's time, and the registration's.
    p = await progress('rc-rules');
    expect(p.totalSecondsTracked).toBe(5);
    expect(p.activityDetails.children[0].children[0].timeTracked).toBe('0000:00:05');
    // After terminated the token is dead for every resource.
    expect((await put(l.endpoint, auth, cmi5Statement(l, sessionId, 'completed', { completion: true, duration: 'PT1S' }))).status).toBe(401);
    const q = new URLSearchParams({ stateId: 'LMS.LaunchData', activityId: l.activityId, agent: JSON.stringify(l.actor), registration: l.registration });
    expect((await fetch(`${l.endpoint}/activities/state?${q.toString()}`, { headers: { authorization: auth, ...X } })).status).toBe(401);
  });

  it('an AU that sends initialized without reading cmi5LearnerPreferences is accepted and the lapse is in the launch history log; LcdsCmi5StrictMode refuses it', async () => {
    const historyLog = async (reg: string) => (await call(`${s.api}/registrations/${reg}/launchHistory?includeHistoryLog=true`, { auth: app })).body.launchHistory.at(-1).historyLog as string;
    // cmi5 11.0 makes reading the preferences the AU's obligation, and gives the LMS no right to refuse for it.
    await createReg('rc-lapse', 'c-one');
    const l = await launch('rc-lapse');
    const auth = `Basic ${(await fetchToken(l.fetch))['auth-token']}`;
    const sessionId = (await launchData(l, auth)).contextTemplate.extensions[SESSION_EXT] as string;
    const initialized = cmi5Statement(l, sessionId, 'initialized');
    expect((await put(l.endpoint, auth, initialized)).status).toBe(204);
    let log = await historyLog('rc-lapse');
    expect(log).toContain(` lrs statement initialized ${String(initialized.id)}: accepted\n`);
    expect(log).toMatch(/ cmi5 lapse of the AU \(accepted; LcdsCmi5StrictMode refuses it\): the AU must read the agent profile cmi5LearnerPreferences before initialized \(cmi5 11\.0\.0\.0-3\)\n/);
    // What section 9 lets the LMS reject is still refused, and said in the log.
    const again = cmi5Statement(l, sessionId, 'initialized');
    expect((await put(l.endpoint, auth, again)).status).toBe(403);
    expect(await historyLog('rc-lapse')).toContain(` lrs statement initialized ${String(again.id)}: refused: initialized may be sent once per session (cmi5 9.3.2.0-3)\n`);

    // Strict mode (for AU developers): the lapse is refused.
    await createReg('rc-strict', 'c-one');
    expect((await call(`${s.api}/registrations/rc-strict/configuration`, { method: 'POST', auth: app, json: { settings: [{ settingId: 'LcdsCmi5StrictMode', value: 'true' }] } })).status).toBe(204);
    const st = await launch('rc-strict');
    const strictAuth = `Basic ${(await fetchToken(st.fetch))['auth-token']}`;
    const strictSession = (await launchData(st, strictAuth)).contextTemplate.extensions[SESSION_EXT] as string;
    const refused = await put(st.endpoint, strictAuth, cmi5Statement(st, strictSession, 'initialized'));
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toMatch(/cmi5LearnerPreferences before initialized \(cmi5 11\.0\.0\.0-3\)/);
    const prefs = new URLSearchParams({ profileId: 'cmi5LearnerPreferences', agent: JSON.stringify(st.actor) });
    expect((await fetch(`${st.endpoint}/agents/profile?${prefs.toString()}`, { headers: { authorization: strictAuth, ...X } })).status).toBe(404);
    expect((await put(st.endpoint, strictAuth, cmi5Statement(st, strictSession, 'initialized'))).status).toBe(204);
    log = await historyLog('rc-strict');
    expect(log).toMatch(/ lrs statement initialized \S+: refused: the AU must read the agent profile cmi5LearnerPreferences/);
    expect(log).toMatch(/ lrs read agent profile cmi5LearnerPreferences\n.* lrs statement initialized \S+: accepted\n/);
  });

  it('a session left without terminated is abandoned at the next launch; completed is refused in a later session of the same registration', async () => {
    await createReg('rc-abandon', 'c-two');
    const l = await launch('rc-abandon');
    const auth = `Basic ${(await fetchToken(l.fetch))['auth-token']}`;
    const sessionId = await start(l, auth);
    expect((await put(l.endpoint, auth, cmi5Statement(l, sessionId, 'initialized'))).status).toBe(204);
    expect((await put(l.endpoint, auth, cmi5Statement(l, sessionId, 'completed', { completion: true, duration: 'PT1S' }))).status).toBe(204);

    const again = await launch('rc-abandon');
    expect(again.activityId).toBe(l.activityId);
    expect((await put(l.endpoint, auth, cmi5Statement(l, sessionId, 'terminated', { duration: 'PT5S' }))).status).toBe(401);
    const list = await registrationStatements(l.registration);
    const verbs = list.map((st) => String(st.verb.id).split('/').pop());
    // The second AU (NotApplicable) was satisfied at the first launch; completing the first satisfied block and course.
    expect(verbs).toEqual(['launched', 'initialized', 'completed', 'satisfied', 'satisfied', 'abandoned', 'launched']);
    const abandoned = list[5];
    expect(abandoned).toMatchObject({ object: { id: l.activityId }, context: { registration: l.registration, extensions: { [SESSION_EXT]: sessionId } } });
    expect(abandoned.result.duration).toMatch(/^PT\d+S$/);

    const auth2 = `Basic ${(await fetchToken(again.fetch))['auth-token']}`;
    const session2 = await start(again, auth2);
    expect((await put(again.endpoint, auth2, cmi5Statement(again, session2, 'initialized'))).status).toBe(204);
    const r = await put(again.endpoint, auth2, cmi5Statement(again, session2, 'completed', { completion: true, duration: 'PT1S' }));
    expect(r.status).toBe(403);
    const p = await waitFor(() => progress('rc-abandon'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED' });
    expect(p.activityDetails.children[0].children.map((c: { activityCompletion: string }) => c.activityCompletion)).toEqual(['COMPLETED', 'UNKNOWN']);
  });

  it('the session reaper abandons a cmi5 session left open when its player session expires', async () => {
    await createReg('rc-reaped', 'c-one');
    const l = await launch('rc-reaped');
    const auth = `Basic ${(await fetchToken(l.fetch))['auth-token']}`;
    const sessionId = await start(l, auth);
    expect((await put(l.endpoint, auth, cmi5Statement(l, sessionId, 'initialized'))).status).toBe(204);
    expect(await s.app.get(PlayerSessionReaper).reap(new Date(Date.now() + 9 * 3600_000))).toBeGreaterThan(0);
    const list = await registrationStatements(l.registration);
    expect(list.map((st) => String(st.verb.id).split('/').pop())).toEqual(['launched', 'initialized', 'abandoned']);
    expect(list[2].context.extensions[SESSION_EXT]).toBe(sessionId);
  });

  it('a course preview launches the AU in Browse mode, as the preview learner in a registration of its own', async () => {
    const r = await call(`${s.api}/courses/c-one/preview`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    expect(r.status).toBe(200);
    const launched = await fetch(r.body.launchLink as string, { redirect: 'manual' });
    const l = cmi5LaunchOf(await (await fetch(new URL(launched.headers.get('location')!, s.baseUrl))).text());
    expect(l.actor).toMatchObject({ account: { homePage: s.config.publicUrl, name: 'preview' } });
    const first = await fetch(l.fetch, { method: 'POST' });
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    const auth = `Basic ${((await first.json()) as Record<string, string>)['auth-token']}`;
    expect(await launchData(l, auth)).toMatchObject({ launchMode: 'Browse', moveOn: 'CompletedAndPassed' });
  });

  it('concurrent calls of the fetch URL: exactly one gets the auth token', async () => {
    await createReg('rc-race', 'c-one');
    const l = await launch('rc-race');
    const answers = await Promise.all(Array.from({ length: 6 }, () => fetchToken(l.fetch)));
    expect(answers.filter((a) => a['auth-token'] !== undefined)).toHaveLength(1);
    expect(answers.filter((a) => a['error-code'] === '1')).toHaveLength(5);
  });

  it('an AU sending its statements all at once (answers, completed, passed): every one is stored and the result is recorded', async () => {
    await createReg('rc-burst', 'c-one');
    const l = await launch('rc-burst');
    const auth = `Basic ${(await fetchToken(l.fetch))['auth-token']}`;
    const sessionId = await start(l, auth);
    expect((await put(l.endpoint, auth, cmi5Statement(l, sessionId, 'initialized'))).status).toBe(204);
    const answered = (i: number) => {
      const st = cmi5Statement(l, sessionId, 'answered', { success: i % 2 === 0 });
      return { ...st, object: { objectType: 'Activity', id: `${l.activityId}/q${i}` }, context: { ...(st.context as object), contextActivities: { parent: [{ id: l.activityId }] } } };
    };
    const ms = { 'https://w3id.org/xapi/cmi5/context/extensions/masteryscore': 0.8 };
    const burst = [
      ...Array.from({ length: 16 }, (_, i) => answered(i)),
      cmi5Statement(l, sessionId, 'completed', { completion: true, duration: 'PT4S' }),
      cmi5Statement(l, sessionId, 'passed', { success: true, duration: 'PT4S', score: { scaled: 0.85 } }, ms),
    ];
    const statuses = await Promise.all(burst.map(async (st) => (await put(l.endpoint, auth, st)).status));
    expect(statuses).toEqual(burst.map(() => 204));
    const p = await progress('rc-burst');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: { scaled: 0.85 } });
    expect((await registrationStatements(l.registration)).filter((st) => String(st.verb.id).endsWith('/answered'))).toHaveLength(16);
  });

  it('OwnWindow: the page tells the player to give the window to the AU; returnURL leads to the redirectOnExitUrl', async () => {
    await createReg('rc-own', 'c-two');
    const first = await launch('rc-own');
    expect(first.ownWindow).toBe(false); // AU 1 is AnyWindow
    const launched = await fetch(await link('rc-own', { redirectOnExitUrl: 'https://example.com/done', startSco: cmi5Au(2) }), { redirect: 'manual' });
    const html = await (await fetch(new URL(launched.headers.get('location')!, s.baseUrl))).text();
    const l = cmi5LaunchOf(html);
    expect(l.ownWindow).toBe(true);
    const auth = `Basic ${(await fetchToken(l.fetch))['auth-token']}`;
    const data = await launchData(l, auth);
    expect(data.launchMethod).toBe('OwnWindow');
    // The AU replaced the player page: a top-level navigation to the returnURL goes on to the redirectOnExitUrl.
    const back = await fetch(data.returnURL as string, { redirect: 'manual', headers: { 'sec-fetch-dest': 'document' } });
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe('https://example.com/done');
    // In a frame (an AnyWindow AU in the player), the page hands back to the player (its script), which stays.
    const framed = await fetch(data.returnURL as string, { redirect: 'manual', headers: { 'sec-fetch-dest': 'iframe' } });
    expect(framed.status).toBe(200);
    expect(await framed.text()).toContain('auReturned');
    // The first session was abandoned by the second launch: its fetch URL is over.
    expect(await fetchToken(first.fetch)).toMatchObject({ 'error-code': '2' });
  });
  it('moveOn NotApplicable: the AU, its block and the course are satisfied when the registration is created; registration and course activity agree', async () => {
    await createReg('rc-na', 'c-na');
    const created = await progress('rc-na');
    // Satisfied means completed; nothing passed, so success stays unknown.
    expect(created).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'UNKNOWN', activityDetails: { activityCompletion: 'COMPLETED', activitySuccess: 'UNKNOWN' } });
    expect(created.completedDate).toEqual(expect.any(String));
    const registration = (await call(`${s.api}/registrations/rc-na`, { auth: app })).body.xapiRegistrationId as string;
    const satisfied = await registrationStatements(registration);
    expect(satisfied.map((st) => [String(st.verb.id).split('/').pop(), st.object.definition?.type.split('/').pop()])).toEqual([
      ['satisfied', 'block'],
      ['satisfied', 'course'],
    ]);
    // A launch changes none of it, and issues no satisfied statement again.
    await launch('rc-na');
    const launched = await progress('rc-na');
    expect(launched).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'UNKNOWN', completedDate: created.completedDate, activityDetails: { activityCompletion: 'COMPLETED', activitySuccess: 'UNKNOWN' } });
    expect((await registrationStatements(registration)).map((st) => String(st.verb.id).split('/').pop())).toEqual(['satisfied', 'satisfied', 'launched']);
  });

  it('an AU that only completes satisfies the course: COMPLETED, not PASSED; the registration, the course activity and its block agree', async () => {
    await createReg('rc-completes', 'c-two');
    const l = await launch('rc-completes');
    const launched = await progress('rc-completes');
    // Launched: the course is under way, in the registration as in its activity.
    expect(launched).toMatchObject({ registrationCompletion: 'INCOMPLETE', activityDetails: { activityCompletion: 'INCOMPLETE' } });
    const auth = `Basic ${(await fetchToken(l.fetch))['auth-token']}`;
    const sessionId = await start(l, auth);
    expect((await put(l.endpoint, auth, cmi5Statement(l, sessionId, 'initialized'))).status).toBe(204);
    expect((await put(l.endpoint, auth, cmi5Statement(l, sessionId, 'completed', { completion: true, duration: 'PT1S' }))).status).toBe(204);
    const p = await waitFor(() => progress('rc-completes'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'UNKNOWN', activityDetails: { activityCompletion: 'COMPLETED', activitySuccess: 'UNKNOWN' } });
    expect(p.activityDetails.children[0]).toMatchObject({ activityCompletion: 'COMPLETED', activitySuccess: 'UNKNOWN' });
    expect(p.completedDate).toEqual(expect.any(String));
  });
});
