import { BrowserContext, Frame, Page } from 'playwright-core';
import { importCourse } from '../support/courses';
import { cmi5Package } from '../support/cmi5';
import { openPage, playerTestBed, scoPackage, waitFor, zipOf } from '../support/player';
import { call, TestServer } from '../support/test-server';
import { tincanPackage } from '../support/xapi-launch';

/**
 * Each launch's history entry ends as the launch left the registration: its completion, success and score, its time
 * and its exit time, whatever standard the course is and whoever set the status at the end (the SCO, the LMS's
 * SCORM 1.2 rule, the sequencer's rollup at exit, xAPI and cmi5 statements). AICC: test/browser/player-aicc.
 */
interface History {
  completionStatus: string;
  successStatus: string;
  score?: { scaled: number };
  totalSecondsTracked: number;
  exitTime?: string;
}

const NS = `xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3" xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss"`;
/** Two SCOs that report only their session time: the sequencer completes and satisfies them when their attempts end. */
const SEQUENCED = `<?xml version="1.0"?>
<manifest identifier="M" ${NS}>
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG"><organization identifier="ORG"><title>Two SCOs</title>
    <item identifier="a" identifierref="R" parameters="?id=a"><title>a</title></item>
    <item identifier="b" identifierref="R" parameters="?id=b"><title>b</title></item>
    <imsss:sequencing><imsss:controlMode choice="true" flow="true"/></imsss:sequencing></organization></organizations>
  <resources><resource identifier="R" type="webcontent" adlcp:scormType="sco" href="sco.html"><file href="sco.html"/></resource></resources>
</manifest>`;
const SCO2004 = `<!doctype html><html><head><meta charset="utf-8"><title>SCO</title><script>
function findAPI(w) { for (var i = 0; w && i < 10; i++) { if (w.API_1484_11) return w.API_1484_11; if (w.parent === w) break; w = w.parent; } return null; }
var API = findAPI(window);
window.onload = function () { API.Initialize(''); window.ready = true; };
</script></head><body><p>SCO</p></body></html>`;

/** TinCan content: its completed and passed statements go to the LRS. */
const TINCAN = `<!doctype html><html><head><meta charset="utf-8"><title>TinCan</title><script>
var q = new URLSearchParams(location.search);
window.finish = function () {
  var s = function (verb) { return { actor: JSON.parse(q.get('actor')), verb: { id: 'http://adlnet.gov/expapi/verbs/' + verb, display: { 'en-US': verb } },
    object: { objectType: 'Activity', id: q.get('activity_id') }, result: { completion: true, success: true, score: { scaled: 0.75 } }, context: { registration: q.get('registration') } }; };
  fetch(q.get('endpoint') + 'statements', { method: 'POST', headers: { 'Authorization': q.get('auth'), 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' },
    body: JSON.stringify([s('completed'), s('passed')]) }).then(function (r) { document.getElementById('state').textContent = r.ok ? 'sent' : 'refused ' + r.status; });
};
window.onload = function () { document.getElementById('state').textContent = 'ready'; };
</script></head><body><p id="state">loading</p></body></html>`;

/** A cmi5 AU: it fetches its token, reads LMS.LaunchData and the learner preferences, sends initialized; finish() sends completed and terminated (42 s). */
const AU = `<!doctype html><html><head><meta charset="utf-8"><title>AU</title><script>
var q = new URLSearchParams(location.search);
var ep = q.get('endpoint').replace(/\\/?$/, '/'), h = null, ld = null;
function send(verb, result) {
  var ctx = JSON.parse(JSON.stringify(ld.contextTemplate));
  ctx.registration = q.get('registration');
  ctx.contextActivities = ctx.contextActivities || {};
  ctx.contextActivities.category = [{ id: 'https://w3id.org/xapi/cmi5/context/categories/cmi5' }].concat(verb === 'completed' ? [{ id: 'https://w3id.org/xapi/cmi5/context/categories/moveon' }] : []);
  var st = { id: crypto.randomUUID(), actor: JSON.parse(q.get('actor')), verb: { id: 'http://adlnet.gov/expapi/verbs/' + verb, display: { 'en-US': verb } }, object: { objectType: 'Activity', id: q.get('activityId') }, context: ctx, timestamp: new Date().toISOString() };
  if (result) st.result = result;
  return fetch(ep + 'statements', { method: 'POST', headers: h, body: JSON.stringify(st) }).then(function (r) { return r.ok ? null : r.text().then(function (t) { throw new Error(verb + ' ' + r.status + ' ' + t); }); });
}
window.onload = function () {
  fetch(q.get('fetch'), { method: 'POST' }).then(function (r) { return r.json(); }).then(function (t) {
    h = { 'Authorization': 'Basic ' + t['auth-token'], 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' };
    var p = new URLSearchParams({ stateId: 'LMS.LaunchData', activityId: q.get('activityId'), agent: q.get('actor'), registration: q.get('registration') });
    return fetch(ep + 'activities/state?' + p, { headers: h });
  }).then(function (r) { return r.json(); }).then(function (data) {
    ld = data;
    return fetch(ep + 'agents/profile?' + new URLSearchParams({ agent: q.get('actor'), profileId: 'cmi5LearnerPreferences' }), { headers: h });
  }).then(function () { return send('initialized'); })
    .then(function () { document.getElementById('state').textContent = 'ready'; }, function (e) { document.getElementById('state').textContent = 'failed ' + e; });
};
window.finish = function () {
  return send('completed', { completion: true, duration: 'PT42S' }).then(function () { return send('terminated', { duration: 'PT42S' }); })
    .then(function () { document.getElementById('state').textContent = 'done'; }, function (e) { document.getElementById('state').textContent = 'failed ' + e; });
};
</script></head><body><p id="state">loading</p></body></html>`;

describe('player: launch history entries end with the launch final statuses, time and exit time', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const { createReg, link, progress } = playerTestBed({ id: 'history-learner', firstName: 'Ada', lastName: 'Lovelace' }, (bed) => ({ s, app, context } = bed), async () => {
    await importCourse(s.api, app, 'h12', { name: 'h12.zip', data: await scoPackage('1.2', `API.LMSInitialize(''); window.report = function () { API.LMSSetValue('cmi.core.session_time', '00:00:12'); API.LMSFinish(''); };`), type: 'application/zip' });
    await importCourse(s.api, app, 'hseq', { name: 'hseq.zip', data: await zipOf({ 'imsmanifest.xml': SEQUENCED, 'sco.html': SCO2004 }), type: 'application/zip' });
    await importCourse(s.api, app, 'hxapi', { name: 'hxapi.zip', data: await tincanPackage(TINCAN), type: 'application/zip' });
    await importCourse(s.api, app, 'hcmi5', { name: 'hcmi5.zip', data: await cmi5Package([{ moveOn: 'Completed' }], AU), type: 'application/zip' });
  });
  const history = async (id: string) => (await call(`${s.api}/registrations/${id}/launchHistory`, { auth: app })).body.launchHistory as History[];
  const contentFrame = (page: Page): Frame | undefined => page.frames().find((f) => f.url().includes('/content/'));
  /** The launch's entry once it has an exit time (and `timed`: its time), checked against the registration. */
  const ended = async (id: string, timed = false) => {
    const [entry] = await waitFor(() => history(id), (h) => h.length === 1 && h[0].exitTime !== undefined && (!timed || h[0].totalSecondsTracked > 0));
    const p = await progress(id);
    expect(entry).toMatchObject({ completionStatus: p.registrationCompletion, successStatus: p.registrationSuccess, totalSecondsTracked: p.totalSecondsTracked });
    expect(entry.score?.scaled).toBe(p.score?.scaled);
    return { entry, p };
  };

  it('SCORM 1.2: a SCO that never set a status is completed by the LMS at LMSFinish, and so is its launch', async () => {
    await createReg('h-12', 'h12');
    const page = await openPage(context, await link('h-12'));
    await page.frameLocator('#lcds-sco').locator('#state').filter({ hasText: 'ready' }).waitFor();
    await contentFrame(page)!.evaluate('window.report()');
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    const { entry } = await ended('h-12');
    expect(entry).toMatchObject({ completionStatus: 'COMPLETED', totalSecondsTracked: 12 });
    await page.close();
  });

  it('SCORM 2004 with sequencing: the rollup at exit all completes the registration, and the launch', async () => {
    await createReg('h-seq', 'hseq');
    const page = await openPage(context, await link('h-seq'));
    for (const [id, request, time] of [
      ['a', 'continue', 'PT10S'],
      ['b', 'exitAll', 'PT20S'],
    ]) {
      const frame = await waitFor(
        async () => {
          const f = (await (await page.$('#lcds-sco'))?.contentFrame()) ?? null;
          return f && f.url().endsWith(`?id=${id}`) && (await f.evaluate('window.ready === true').catch(() => false)) ? f : null;
        },
        (f) => f !== null,
      );
      await frame!.evaluate(
        ([r, t]) => {
          const api = (window as unknown as { API: { SetValue(k: string, x: string): string; Terminate(x: string): string } }).API;
          api.SetValue('cmi.session_time', t);
          api.SetValue('adl.nav.request', r);
          api.Terminate('');
        },
        [request, time] as const,
      );
    }
    await waitFor(() => progress('h-seq'), (p) => p.registrationCompletion === 'COMPLETED');
    const { entry } = await ended('h-seq');
    expect(entry).toMatchObject({ completionStatus: 'COMPLETED', successStatus: 'PASSED', totalSecondsTracked: 30 });
    await page.close();
  });

  it('xAPI: the launch ends when the learner leaves the player; its time is the time in the player', async () => {
    await createReg('h-xapi', 'hxapi');
    const page = await openPage(context, await link('h-xapi'));
    const frame = await waitFor(async () => {
      const f = contentFrame(page);
      return f && (await f.textContent('#state').catch(() => null)) === 'ready' ? f : null;
    }, (f) => f !== null);
    await frame!.evaluate('window.finish()');
    await waitFor(() => progress('h-xapi'), (p) => p.registrationSuccess === 'PASSED');
    expect((await history('h-xapi'))[0].exitTime).toBeUndefined();
    // At least a second in the player, so that the time (whole seconds) shows.
    await page.waitForTimeout(1200);
    await page.close();
    // The exit is claimed first, then the time is stored with the registration's.
    const { entry, p } = await ended('h-xapi', true);
    expect(entry).toMatchObject({ completionStatus: 'COMPLETED', successStatus: 'PASSED', score: { scaled: 0.75 } });
    expect(entry.totalSecondsTracked).toBeGreaterThan(0);
    expect(p.totalSecondsTracked).toBe(entry.totalSecondsTracked);
  });

  it('cmi5: the AU terminated statement ends the launch with its duration', async () => {
    await createReg('h-cmi5', 'hcmi5');
    const page = await openPage(context, await link('h-cmi5'));
    const frame = await waitFor(async () => {
      const f = contentFrame(page);
      return f && (await f.textContent('#state').catch(() => null)) !== 'loading' ? f : null;
    }, (f) => f !== null);
    expect(await frame!.textContent('#state')).toBe('ready');
    await frame!.evaluate('window.finish()');
    await waitFor(() => frame!.textContent('#state'), (v) => v !== 'ready');
    expect(await frame!.textContent('#state')).toBe('done');
    const { entry } = await ended('h-cmi5');
    expect(entry).toMatchObject({ completionStatus: 'COMPLETED', totalSecondsTracked: 42 });
    await page.close();
  });
});
