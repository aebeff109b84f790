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

describe('player: xAPI (TinCan) courses in a real browser', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const learner = { id: 'learner-tincan', firstName: 'Alan', lastName: 'Turing' };
  const { createReg, link, progress } = playerTestBed(learner, (bed) => ({ s, app, context } = bed), async () => {
    await importCourse(s.api, app, 'gen-tincan', { name: 'gen-tincan.zip', data: await tincanPackage(CONTENT), type: 'application/zip' });
    await importCourse(s.api, app, 'golf-tincan', fixture('xapi-tincan-golfexample.zip'));
    await importCourse(s.api, app, 'locator-tincan', fixture('xapi-tincan-locator.zip'));
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
