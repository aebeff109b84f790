import type { BrowserContext, Frame, Page } from 'playwright-core';
import { cmi5Au, cmi5Package } from '../support/cmi5';
import { fixture, importCourse } from '../support/courses';
import { openPage, playerTestBed, waitFor } from '../support/player';
import { call, TestServer } from '../support/test-server';

const X = { 'x-experience-api-version': '1.0.3' };
const SINGLE_AU = 'https://w3id.org/xapi/cmi5/catapult/lts/course/geology-intro-single-au-basic/1';
const multiAu = (n: number) => `https://w3id.org/xapi/cmi5/catapult/lts/course/geology-intro-multi-au-framed/${n}`;

/**
 * A generated cmi5 AU that reads its launch parameters as many do (split on `&` and `=`, decodeURIComponent, which
 * leaves `+` as it is), fetches its token, reads LMS.LaunchData and the learner's preferences, sends initialized;
 * `lcdsSend(verb)` sends completed/passed; `lcdsReturn()` sends terminated and goes to the returnURL.
 */
const DECODING_AU = `<!doctype html><html><head><meta charset="utf-8"><title>AU</title><script>
var p = {};
location.search.slice(1).split('&').forEach(function (pair) { var i = pair.indexOf('='); if (i > 0) p[decodeURIComponent(pair.slice(0, i))] = decodeURIComponent(pair.slice(i + 1)); });
var actor = JSON.parse(p.actor), auth = '', launchData = null, sessionId = '';
function q(o) { return Object.keys(o).map(function (k) { return encodeURIComponent(k) + '=' + encodeURIComponent(o[k]); }).join('&'); }
function lrs(method, path, body) {
  return fetch(p.endpoint + '/' + path, { method: method, headers: { 'Authorization': auth, 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
}
function statement(verb, result) {
  var moveOn = verb === 'completed' || verb === 'passed' || verb === 'failed';
  var category = [{ id: 'https://w3id.org/xapi/cmi5/context/categories/cmi5' }];
  if (moveOn) category.push({ id: 'https://w3id.org/xapi/cmi5/context/categories/moveon' });
  var st = { id: crypto.randomUUID(), timestamp: new Date().toISOString(), actor: actor, verb: { id: 'http://adlnet.gov/expapi/verbs/' + verb, display: { 'en-US': verb } },
    object: { objectType: 'Activity', id: p.activityId },
    context: { registration: p.registration, contextActivities: { category: category, grouping: launchData.contextTemplate.contextActivities.grouping }, extensions: launchData.contextTemplate.extensions } };
  if (result) st.result = result;
  return st;
}
function say(text) { document.getElementById('state').textContent = text; }
window.onload = function () {
  fetch(p.fetch, { method: 'POST' }).then(function (r) { return r.json(); }).then(function (t) {
    auth = 'Basic ' + t['auth-token'];
    return lrs('GET', 'activities/state?' + q({ stateId: 'LMS.LaunchData', activityId: p.activityId, agent: JSON.stringify(actor), registration: p.registration }));
  }).then(function (r) { return r.json(); }).then(function (d) {
    launchData = d;
    return lrs('GET', 'agents/profile?' + q({ profileId: 'cmi5LearnerPreferences', agent: JSON.stringify(actor) }));
  }).then(function () { return lrs('POST', 'statements', [statement('initialized')]); })
    .then(function (r) { say(r.status === 200 ? 'ready' : 'initialized refused ' + r.status); }, function (e) { say('failed ' + e); });
};
window.lcdsSend = function (verb) {
  var result = verb === 'completed' ? { completion: true, duration: 'PT2S' } : { success: verb === 'passed', duration: 'PT2S' };
  return lrs('POST', 'statements', [statement(verb, result)]).then(function (r) { return r.status; });
};
window.lcdsReturn = function () {
  return lrs('POST', 'statements', [statement('terminated', { duration: 'PT3S' })]).then(function () { location.href = launchData.returnURL; });
};
</script></head><body><p id="state">loading</p></body></html>`;

/** CATAPULT's example courses (cmi5.js content) in the player: framed AUs, the table of contents, progress through the API. */
describe('player: cmi5 courses in a real browser', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const learner = { id: 'learner-cmi5', firstName: 'Marie', lastName: 'Curie' };
  const { createReg, link, progress } = playerTestBed(learner, (bed) => ({ s, app, context } = bed), async () => {
    await importCourse(s.api, app, 'catapult-single', fixture('cmi5-catapult-single-au-basic-framed.zip'));
    await importCourse(s.api, app, 'catapult-multi', fixture('cmi5-catapult-multi-au-framed.zip'));
    await importCourse(s.api, app, 'gen-one', { name: 'gen-one.zip', data: await cmi5Package([{ moveOn: 'Completed' }], DECODING_AU), type: 'application/zip' });
    await importCourse(s.api, app, 'gen-two', { name: 'gen-two.zip', data: await cmi5Package([{ moveOn: 'Completed' }, { moveOn: 'Completed' }], DECODING_AU), type: 'application/zip' });
  });
  const contentFrame = (page: Page): Frame | undefined => page.frames().find((f) => f.url().includes('/content/'));
  const verbs = async (registrationId: string) => {
    const registration = (await call(`${s.api}/registrations/${registrationId}`, { auth: app })).body.xapiRegistrationId as string;
    const res = await fetch(`${s.config.publicUrl}/lrs/${s.firstStart.application.appId}/statements?registration=${registration}&ascending=true&limit=500`, { headers: { authorization: app, ...X } });
    return ((await res.json()) as { statements: Array<{ verb: { id: string } }> }).statements.map((st) => st.verb.id.split('/').pop());
  };

  it('single AU: framed in the player with the cmi5 launch parameters; its passed statement satisfies the AU and the course', async () => {
    await createReg('rc-single', 'catapult-single');
    const page = await openPage(context, await link('rc-single'));
    const frame = await waitFor(() => Promise.resolve(contentFrame(page) ?? null), (f) => f !== null);
    const q = new URL(frame!.url()).searchParams;
    expect([q.has('endpoint'), q.has('fetch'), q.has('actor'), q.has('registration'), q.has('activityId')]).toEqual([true, true, true, true, true]);
    // The course passes its AU with its quiz (completionBehavior "quiz"): answer every question right, submit.
    await waitFor(async () => (await verbs('rc-single')).includes('initialized'), (v) => v, 15_000);
    // `course` is a global lexical binding of the page's script, reachable from evaluated script text.
    await frame!.evaluate(`(() => {
      course.gotoPage(course.pageList.indexOf('quiz'));
      document.getElementById('q0').value = '3';
      document.getElementById('q1').value = 'crust';
      document.getElementById('q2').value = '3';
      document.getElementById('q3_2').checked = true;
      for (const o of document.getElementById('q4').options) o.selected = o.value === 'luster' || o.value === 'hardness';
      course.submitAnswers();
    })()`);
    const p = await waitFor(() => progress('rc-single'), (v) => v.registrationCompletion === 'COMPLETED', 20_000);
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', activityDetails: { activityCompletion: 'COMPLETED', activitySuccess: 'PASSED' } });
    expect(p.activityDetails.children[0]).toMatchObject({ id: SINGLE_AU, activitySuccess: 'PASSED', attempts: 1, score: { scaled: 1 } });
    expect(p.completedDate).toEqual(expect.any(String));
    const list = await verbs('rc-single');
    expect(list.slice(0, 2)).toEqual(['launched', 'initialized']);
    expect(list).toContain('passed');
    expect(list).toContain('satisfied');
    await page.close();
  });

  it('multi AU: a table of contents of the 8 AUs; each AU launched from it is a cmi5 session of its own; progress per AU, the course satisfied only with all', async () => {
    await createReg('rc-multi', 'catapult-multi');
    const page = await openPage(context, await link('rc-multi'));
    const items = page.locator('#lcds-toc .lcds-item');
    await items.first().waitFor();
    expect(await items.count()).toBe(8);
    const satisfiedAus = async () => {
      const p = await progress('rc-multi');
      return (p.activityDetails.children as Array<{ id: string; activitySuccess: string }>).filter((c) => c.activitySuccess === 'PASSED').map((c) => c.id);
    };
    await waitFor(satisfiedAus, (v) => v.length === 1, 20_000);
    await page.locator('#lcds-next').click();
    await waitFor(satisfiedAus, (v) => v.length === 2, 20_000);
    await page.locator(`#lcds-toc .lcds-item[data-id="${multiAu(4)}"]`).click();
    expect(await waitFor(satisfiedAus, (v) => v.length === 3, 20_000)).toEqual([multiAu(1), multiAu(2), multiAu(4)]);
    const p = await progress('rc-multi');
    expect(p).toMatchObject({ registrationCompletion: 'INCOMPLETE', registrationSuccess: 'UNKNOWN' });
    const list = await verbs('rc-multi');
    expect(list.filter((v) => v === 'launched')).toHaveLength(3);
    // The sessions left for the next AU ended with terminated (the AU's unload) or abandoned (the LMS, at the next launch).
    expect(list.filter((v) => v === 'terminated' || v === 'abandoned').length).toBeGreaterThanOrEqual(2);
    expect(list).not.toContain('satisfied');
    await page.close();
  });
  /** The generated AU running in the player's frame, ready (initialized). */
  const readyAu = async (page: Page, au: number): Promise<Frame> =>
    (await waitFor(
      async () => {
        const f = contentFrame(page);
        return f && f.url().includes(`/au${au}.html`) && (await f.textContent('#state').catch(() => null)) === 'ready' ? f : null;
      },
      (f) => f !== null,
      15_000,
    ))!;

  it('an AU that decodes its launch parameters with decodeURIComponent gets the LRS and the learner’s name right', async () => {
    await createReg('rc-decode', 'gen-two');
    const page = await openPage(context, await link('rc-decode'));
    const au = await readyAu(page, 1);
    expect(await au.evaluate('lcdsSend("completed")')).toBe(200);
    const registration = (await call(`${s.api}/registrations/rc-decode`, { auth: app })).body.xapiRegistrationId as string;
    const res = await fetch(`${s.config.publicUrl}/lrs/${s.firstStart.application.appId}/statements?registration=${registration}&ascending=true`, { headers: { authorization: app, ...X } });
    const list = ((await res.json()) as { statements: Array<{ verb: { id: string }; actor: { name?: string } }> }).statements;
    expect(list.map((st) => [st.verb.id.split('/').pop(), st.actor.name])).toEqual([
      ['launched', 'Curie, Marie'],
      ['initialized', 'Curie, Marie'],
      ['completed', 'Curie, Marie'],
    ]);
    await page.close();
  });

  it('AnyWindow: an AU that goes to its returnURL brings the learner back to the table of contents, whose marks follow the AUs', async () => {
    await createReg('rc-return', 'gen-two');
    const exitPage = `${s.baseUrl}/lcds-test-exit-page`;
    const page = await openPage(context, await link('rc-return', { redirectOnExitUrl: exitPage }));
    const playerUrl = page.url();
    const item = (n: number) => page.locator(`#lcds-toc .lcds-item[data-id="${cmi5Au(n)}"]`);
    const au1 = await readyAu(page, 1);
    expect(await item(1).getAttribute('data-completion')).not.toBe('COMPLETED');
    expect(await au1.evaluate('lcdsSend("completed")')).toBe(200);
    await au1.evaluate('lcdsReturn()');
    // The player takes the AU down; the table of contents stays in the top page, with AU 1's mark updated.
    await item(1).and(page.locator('[data-completion="COMPLETED"]')).waitFor();
    await waitFor(() => Promise.resolve(contentFrame(page)), (f) => f === undefined);
    expect(page.url()).toBe(playerUrl);
    expect(await page.locator('#lcds-toc').isVisible()).toBe(true);
    expect(page.frames().map((f) => f.url()).filter((u) => u.includes('lcds-test-exit-page') || u.includes('/return'))).toEqual([]);
    // AU 2 from the table of contents: its completed statement shows in the table of contents while it runs.
    await item(2).click();
    const au2 = await readyAu(page, 2);
    expect(await au2.evaluate('lcdsSend("completed")')).toBe(200);
    await item(2).and(page.locator('[data-completion="COMPLETED"]')).waitFor({ timeout: 15_000 });
    const p = await waitFor(() => progress('rc-return'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p.activityDetails.children[0].children.map((c: { activityCompletion: string }) => c.activityCompletion)).toEqual(['COMPLETED', 'COMPLETED']);
    await page.close();
  });
  it('AnyWindow, one AU: its returnURL ends the lesson, and the redirectOnExitUrl opens in the top window, not the frame', async () => {
    await createReg('rc-return-one', 'gen-one');
    const exitPage = `${s.baseUrl}/health/live`;
    const page = await openPage(context, await link('rc-return-one', { redirectOnExitUrl: exitPage }));
    const au = await readyAu(page, 1);
    expect(await au.evaluate('lcdsSend("completed")')).toBe(200);
    await au.evaluate('lcdsReturn()');
    await page.waitForURL(exitPage);
    expect(page.frames()).toHaveLength(1);
    const p = await waitFor(() => progress('rc-return-one'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'UNKNOWN' });
    await page.close();
  });
});
