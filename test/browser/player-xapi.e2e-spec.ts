import { BrowserContext, Frame, Page } from 'playwright-core';
import { fixture, importCourse } from '../support/courses';
import { openPage, playerTestBed, waitFor } from '../support/player';
import { call, TestServer } from '../support/test-server';
import { tincanPackage } from '../support/xapi-launch';

/**
 * TinCan content as it is written: it reads endpoint, auth, actor, registration and activity_id from its query string,
 * looks for no SCORM API, and posts its statements to the LRS with fetch.
 */
const CONTENT = `<!doctype html><html><head><meta charset="utf-8"><title>TinCan</title><script>
var q = new URLSearchParams(location.search);
function findAPI(w) { for (var i = 0; w && i < 10; i++) { if (w.API || w.API_1484_11) return true; if (w.parent === w) break; w = w.parent; } return false; }
window.onload = function () {
  document.title = 'api=' + findAPI(window) + ';actor=' + JSON.parse(q.get('actor')).account.name;
  document.getElementById('state').textContent = q.get('endpoint') && q.get('auth') && q.get('registration') && q.get('activity_id') ? 'ready' : 'no launch parameters';
};
window.finish = function () {
  var statement = {
    actor: JSON.parse(q.get('actor')),
    verb: { id: 'http://adlnet.gov/expapi/verbs/passed', display: { 'en-US': 'passed' } },
    object: { objectType: 'Activity', id: q.get('activity_id') },
    result: { completion: true, success: true, score: { scaled: 0.9 } },
    context: { registration: q.get('registration') }
  };
  var completed = JSON.parse(JSON.stringify(statement));
  completed.verb = { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } };
  fetch(q.get('endpoint') + 'statements', {
    method: 'POST',
    headers: { 'Authorization': q.get('auth'), 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' },
    body: JSON.stringify([completed, statement])
  }).then(function (r) { document.getElementById('state').textContent = r.ok ? 'sent' : 'refused ' + r.status; });
};
</script></head><body><p id="state">loading</p><button id="finish" onclick="window.finish()">Finish</button></body></html>`;

/**
 * TinCan content that reads its query as ADL's xAPIWrapper, Lectora exports and many others do: split on `&` and `=`,
 * each part through decodeURIComponent (which leaves a `+` as it is), then calls the LRS with fetch. `lcdsRun(steps)`
 * runs LRS calls in order and answers their statuses; the calls use the launch credential as given.
 */
const DECODING_CONTENT = `<!doctype html><html><head><meta charset="utf-8"><title>TinCan</title><script>
var p = {};
location.search.slice(1).split('&').forEach(function (pair) { var i = pair.indexOf('='); if (i > 0) p[decodeURIComponent(pair.slice(0, i))] = decodeURIComponent(pair.slice(i + 1)); });
var actor = JSON.parse(p.actor);
function lrs(method, path, body, extra) {
  var headers = { 'Authorization': p.auth, 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' };
  for (var k in extra || {}) headers[k] = extra[k];
  return fetch(p.endpoint + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) }).then(function (r) { return r.status; });
}
window.lcdsRun = function (steps) {
  var out = [];
  return steps.reduce(function (chain, s) { return chain.then(function () { return lrs(s[0], s[1], s[2], s[3]).then(function (st) { out.push(st); }); }); }, Promise.resolve()).then(function () { return out; });
};
window.onload = function () { document.getElementById('state').textContent = 'ready'; };
</script></head><body><p id="state">loading</p></body></html>`;

describe('player: xAPI (TinCan) courses in a real browser', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const learner = { id: 'learner-tincan', firstName: 'Alan', lastName: 'Turing' };
  const { createReg, link, progress } = playerTestBed(learner, (bed) => ({ s, app, context } = bed), async () => {
    await importCourse(s.api, app, 'gen-tincan', { name: 'gen-tincan.zip', data: await tincanPackage(CONTENT), type: 'application/zip' });
    await importCourse(s.api, app, 'golf-tincan', fixture('xapi-tincan-golfexample.zip'));
    await importCourse(s.api, app, 'locator-tincan', fixture('xapi-tincan-locator.zip'));
    await importCourse(s.api, app, 'decode-tincan', { name: 'decode-tincan.zip', data: await tincanPackage(DECODING_CONTENT), type: 'application/zip' });
  });
  const contentFrame = (page: Page): Frame | undefined => page.frames().find((f) => f.url().includes('/content/'));

  it('the content reads its launch parameters, finds no SCORM API, and its passed statement completes and passes the registration', async () => {
    await createReg('rt-gen', 'gen-tincan');
    const page = await openPage(context, await link('rt-gen'));
    await waitFor(async () => (await contentFrame(page)?.textContent('#state').catch(() => null)) ?? null, (v) => v === 'ready');
    const frame = contentFrame(page)!;
    expect(await frame.textContent('#state')).toBe('ready');
    expect(await frame.title()).toBe('api=false;actor=learner-tincan');
    await frame.click('#finish');
    await waitFor(() => frame.textContent('#state'), (v) => v !== 'ready');
    expect(await frame.textContent('#state')).toBe('sent');
    const p = await waitFor(() => progress('rt-gen'), (v) => v.registrationSuccess === 'PASSED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: { scaled: 0.9 } });
    await page.close();
  });

  /** The decoding content of a fresh registration, ready in the player frame; its launch parameters as it read them. */
  const decodingContent = async (registrationId: string) => {
    await createReg(registrationId, 'decode-tincan');
    const page = await openPage(context, await link(registrationId));
    await waitFor(async () => (await contentFrame(page)?.textContent('#state').catch(() => null)) ?? null, (v) => v === 'ready');
    const frame = contentFrame(page)!;
    const launch = await frame.evaluate<{ auth: string; actor: string; registration: string; activity_id: string }>('p');
    const run = (steps: unknown[][]) => frame.evaluate<number[]>(`lcdsRun(${JSON.stringify(steps)})`);
    return { page, launch, run };
  };

  it('content that decodes its query with decodeURIComponent gets the credential and the learner name right: 200s from the LRS', async () => {
    const { page, launch, run } = await decodingContent('rt-decode');
    expect(launch.auth).toMatch(/^Basic [A-Za-z0-9+/=]+$/);
    expect(JSON.parse(launch.actor).name).toBe('Turing, Alan');
    const actor = JSON.parse(launch.actor);
    const passed = { actor, verb: { id: 'http://adlnet.gov/expapi/verbs/passed', display: { 'en-US': 'passed' } }, object: { objectType: 'Activity', id: launch.activity_id }, result: { success: true, completion: true }, context: { registration: launch.registration } };
    expect(await run([['POST', 'statements', [passed]], ['GET', `statements?registration=${launch.registration}`]])).toEqual([200, 200]);
    const xapiRegistration = (await call(`${s.api}/registrations/rt-decode`, { auth: app })).body.xapiRegistrationId as string;
    const stored = (await (await fetch(`${s.config.publicUrl}/lrs/${s.firstStart.application.appId}/statements?registration=${xapiRegistration}`, { headers: { authorization: app, 'x-experience-api-version': '1.0.3' } })).json()) as { statements: Array<{ actor: { name?: string } }> };
    expect(stored.statements.map((st) => st.actor.name)).toEqual(['Turing, Alan']);
    const p = await waitFor(() => progress('rt-decode'), (v) => v.registrationSuccess === 'PASSED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED' });
    await page.close();
  });

  it('TinCanInteractionsEnabled: answered statements of the learner about cmi.interaction activities become the runtime interactions GetRegistrationProgress reports; false: none', async () => {
    /** The content answers two questions (the first one twice) and completes the course. */
    const answerAndComplete = async (registrationId: string, settings: Record<string, string>) => {
      const { page, launch, run } = await decodingContent(registrationId);
      if (Object.keys(settings).length) {
        const r = await call(`${s.api}/registrations/${registrationId}/configuration`, { method: 'POST', auth: app, json: { settings: Object.entries(settings).map(([settingId, value]) => ({ settingId, value })) } });
        expect(r.status).toBe(204);
      }
      const actor = JSON.parse(launch.actor) as unknown;
      const context = { registration: launch.registration, contextActivities: { parent: [{ id: launch.activity_id }] } };
      const answered = { id: 'http://adlnet.gov/expapi/verbs/answered', display: { 'en-US': 'answered' } };
      const question = (n: number, interactionType: string, text: string, correct: string) => ({
        objectType: 'Activity',
        id: `${launch.activity_id}/questions/q${n}`,
        definition: { type: 'http://adlnet.gov/expapi/activities/cmi.interaction', description: { 'en-US': text }, interactionType, correctResponsesPattern: [correct] },
      });
      const q1 = question(1, 'choice', 'The rules of golf are maintained by:', 'USGA');
      const q2 = question(2, 'numeric', 'A typical golf course has ____ holes', '18[:]18');
      const statements = [
        { actor, verb: answered, object: q1, result: { response: 'PGA', success: false, duration: 'PT4S' }, context, timestamp: '2026-01-05T10:00:01.000Z' },
        { actor, verb: answered, object: q2, result: { response: '17', success: false, duration: 'PT9S' }, context, timestamp: '2026-01-05T10:00:03.000Z' },
        { actor, verb: answered, object: q1, result: { response: 'USGA', success: true, duration: 'PT12S' }, context, timestamp: '2026-01-05T10:00:05.000Z' },
        { actor, verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } }, object: { objectType: 'Activity', id: launch.activity_id }, context, timestamp: '2026-01-05T10:00:06.000Z' },
      ];
      expect(await run([['POST', 'statements', statements]])).toEqual([200]);
      await waitFor(() => progress(registrationId), (v) => v.registrationCompletion === 'COMPLETED');
      await page.close();
      return launch.activity_id;
    };
    const read = async (registrationId: string, query: string) => (await call(`${s.api}/registrations/${registrationId}?${query}`, { auth: app })) as { status: number; body: { registrationCompletion: string; activityDetails: { runtime?: { runtimeInteractions?: unknown[] } } } };

    const course = await answerAndComplete('rt-interactions', {});
    const full = await read('rt-interactions', 'includeRuntime=true&includeInteractionsAndObjectives=true');
    expect(full.status).toBe(200);
    expect(full.body.activityDetails.runtime?.runtimeInteractions).toEqual([
      {
        id: `${course}/questions/q1`,
        type: 'Choice',
        description: 'The rules of golf are maintained by:',
        timestamp: '2026-01-05T10:00:05.000Z',
        timestampUtc: '2026-01-05T10:00:05.000Z',
        correctResponses: ['USGA'],
        objectives: [],
        learnerResponse: 'USGA',
        result: 'correct',
        latency: 'PT12S',
      },
      {
        id: `${course}/questions/q2`,
        type: 'Numeric',
        description: 'A typical golf course has ____ holes',
        timestamp: '2026-01-05T10:00:03.000Z',
        timestampUtc: '2026-01-05T10:00:03.000Z',
        correctResponses: ['18[:]18'],
        objectives: [],
        learnerResponse: '17',
        result: 'incorrect',
        latency: 'PT9S',
      },
    ]);
    // Without includeInteractionsAndObjectives the runtime leaves them out.
    expect((await read('rt-interactions', 'includeRuntime=true')).body.activityDetails.runtime?.runtimeInteractions).toBeUndefined();

    await answerAndComplete('rt-interactions-off', { TinCanInteractionsEnabled: 'false' });
    const off = await read('rt-interactions-off', 'includeRuntime=true&includeInteractionsAndObjectives=true');
    expect([off.body.registrationCompletion, off.body.activityDetails.runtime?.runtimeInteractions ?? []]).toEqual(['COMPLETED', []]);
  });

  it('the launch credential keeps the content’s own data (activity profiles of its course, its learner’s agent profile) and nothing beyond', async () => {
    const { page, launch, run } = await decodingContent('rt-documents');
    const agent = encodeURIComponent(launch.actor);
    const other = encodeURIComponent(JSON.stringify({ objectType: 'Agent', account: { homePage: s.config.publicUrl, name: 'someone-else' } }));
    const course = encodeURIComponent(launch.activity_id);
    const board = encodeURIComponent(`${launch.activity_id}/game/highscores`);
    const create = { 'If-None-Match': '*' };
    const statuses = await run([
      // A game's high-score board under the course's activity, and on the course's activity itself.
      ['PUT', `activities/profile?activityId=${board}&profileId=scores`, { best: 42 }, create],
      ['GET', `activities/profile?activityId=${board}&profileId=scores`],
      ['POST', `activities/profile?activityId=${course}&profileId=settings`, { level: 2 }],
      ['GET', `activities/profile?activityId=${course}&profileId=settings`],
      // The learner's own agent profile, and state in the registration.
      ['PUT', `agents/profile?agent=${agent}&profileId=avatar`, { color: 'green' }, create],
      ['GET', `agents/profile?agent=${agent}&profileId=avatar`],
      ['PUT', `activities/state?activityId=${course}&agent=${agent}&registration=${launch.registration}&stateId=bookmark`, { page: 3 }],
      // Beyond: another agent's profile, another course's activity (or one that only starts like this one), another registration's state.
      ['GET', `agents/profile?agent=${other}&profileId=avatar`],
      ['PUT', `agents/profile?agent=${other}&profileId=avatar`, { color: 'red' }, create],
      ['GET', `activities/profile?activityId=${encodeURIComponent('https://example.com/other-course')}&profileId=scores`],
      ['PUT', `activities/profile?activityId=${encodeURIComponent('https://example.com/other-course')}&profileId=scores`, { best: 1 }, create],
      ['PUT', `activities/profile?activityId=${encodeURIComponent(`${launch.activity_id}-2`)}&profileId=scores`, { best: 1 }, create],
      ['GET', `activities/state?activityId=${course}&agent=${agent}&registration=${crypto.randomUUID()}&stateId=bookmark`],
    ]);
    expect(statuses).toEqual([204, 200, 204, 200, 204, 200, 204, 403, 403, 403, 403, 403, 403]);
    await page.close();
  });

  it.each([
    ['golf-tincan', 'rt-golf'],
    ['locator-tincan', 'rt-locator'],
  ])('the TinCan fixture %s launches and loads in the player frame', async (courseId, registrationId) => {
    await createReg(registrationId, courseId);
    const page = await openPage(context, await link(registrationId));
    const frame = await waitFor(() => Promise.resolve(contentFrame(page) ?? null), (f) => f !== null);
    expect(frame).not.toBeNull();
    expect(new URL(frame!.url()).searchParams.get('activity_id')).toBeTruthy();
    await frame!.waitForLoadState('load');
    expect((await frame!.textContent('body'))?.trim().length).toBeGreaterThan(0);
    await page.close();
  });

  it('the golf example records its statements in the registration with the launch token', async () => {
    await createReg('rt-golf-statements', 'golf-tincan');
    const page = await openPage(context, await link('rt-golf-statements'));
    const xapiRegistration = (await call(`${s.api}/registrations/rt-golf-statements`, { auth: app })).body.xapiRegistrationId as string;
    const lrs = `${s.config.publicUrl}/lrs/${s.firstStart.application.appId}/statements?registration=${xapiRegistration}`;
    const read = async () => (await (await fetch(lrs, { headers: { authorization: app, 'x-experience-api-version': '1.0.3' } })).json()) as { statements: Array<{ verb: { id: string }; actor: { account?: { name: string } } }> };
    const found = await waitFor(read, (r) => r.statements.length > 0, 15_000);
    expect(found.statements.map((st) => st.verb.id)).toContain('http://adlnet.gov/expapi/verbs/attempted');
    expect(found.statements[0].actor.account?.name).toBe('learner-tincan');
    await page.close();
  });
});
