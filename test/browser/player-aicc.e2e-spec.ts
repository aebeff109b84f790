import { BrowserContext, Frame, Page } from 'playwright-core';
import { aiccPackage } from '../support/aicc';
import { fixture, importCourse } from '../support/courses';
import { openPage, playerTestBed, waitFor } from '../support/player';
import { call, TestServer } from '../support/test-server';

/**
 * An AICC AU as such content is written: it reads aicc_sid and aicc_url from its query string (names in any case),
 * asks GetParam with XHR from another origin (localhost instead of 127.0.0.1, so the answer must be readable
 * cross-origin), reports with a plain HTML form posted into a hidden frame, and ends with ExitAU.
 */
const AU_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>AICC AU</title><script>
function param(name) { var m = new RegExp('[?&]' + name + '=([^&]*)', 'i').exec(location.search); return m ? decodeURIComponent(m[1].replace(/\\+/g, ' ')) : ''; }
var sid = param('aicc_sid'), url = param('aicc_url').replace('//127.0.0.1:', '//localhost:');
function xhr(command, data, done) {
  var x = new XMLHttpRequest(); x.open('POST', url, true);
  x.setRequestHeader('Content-Type', 'application/x-www-form-urlencoded');
  x.onload = function () { done(x.responseText); }; x.onerror = function () { document.getElementById('state').textContent = 'xhr failed'; };
  x.send('command=' + command + '&version=4.0&session_id=' + encodeURIComponent(sid) + '&aicc_data=' + encodeURIComponent(data || ''));
}
window.onload = function () {
  xhr('GetParam', '', function (text) {
    var name = /Student_Name=(.*)/.exec(text), status = /Lesson_Status=(.*)/.exec(text);
    document.title = 'name=' + (name ? name[1].trim() : '') + ';status=' + (status ? status[1].trim() : '');
    document.getElementById('state').textContent = /error=0/.test(text) ? 'ready' : 'getparam failed';
  });
};
window.finish = function () {
  var f = document.getElementById('form');
  f.action = param('aicc_url');
  f.session_id.value = sid;
  f.aicc_data.value = '[Core]\\r\\nLesson_Location=last\\r\\nLesson_Status=p\\r\\nScore=92,100,0\\r\\nTime=00:02:05\\r\\n[Core_Lesson]\\r\\nseen=all\\r\\n';
  document.getElementById('sink').onload = function () {
    xhr('ExitAU', '', function (text) { document.getElementById('state').textContent = /error=0/.test(text) ? 'exited' : 'exit failed'; });
  };
  f.submit();
};
</script></head><body><p id="state">loading</p><button id="finish" onclick="window.finish()">Finish</button>
<form id="form" method="post" target="sink"><input type="hidden" name="command" value="PutParam"><input type="hidden" name="version" value="4.0">
<input type="hidden" name="session_id"><textarea name="aicc_data" hidden></textarea></form>
<iframe name="sink" id="sink" style="display:none"></iframe></body></html>`;

/**
 * An AU that looks its launch parameters up case-sensitively, upper case only (CMI001 says the names are
 * case-insensitive; many AUs read only AICC_SID / AICC_URL), and posts upper-case field, group and keyword names.
 */
const UPPER_CASE_AU = `<!doctype html><html><head><meta charset="utf-8"><title>AICC AU</title><script>
var q = new URLSearchParams(location.search), sid = q.get('AICC_SID'), url = q.get('AICC_URL');
function post(command, data) {
  return fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'COMMAND=' + command + '&VERSION=4.0&SESSION_ID=' + encodeURIComponent(sid) + '&AICC_DATA=' + encodeURIComponent(data || '') }).then(function (r) { return r.text(); });
}
window.onload = function () {
  if (!sid || !url) { document.getElementById('state').textContent = 'no AICC_SID / AICC_URL'; return; }
  post('GETPARAM').then(function (text) {
    if (!/error=0/.test(text)) throw new Error(text);
    return post('PUTPARAM', '[CORE]\\r\\nLESSON_STATUS=C\\r\\nSCORE=75\\r\\nTIME=00:01:00\\r\\n[CORE_LESSON]\\r\\nupper=yes\\r\\n');
  }).then(function (text) {
    if (!/error=0/.test(text)) throw new Error(text);
    return post('EXITAU');
  }).then(function (text) { document.getElementById('state').textContent = /error=0/.test(text) ? 'exited' : text; }, function (e) { document.getElementById('state').textContent = String(e); });
};
</script></head><body><p id="state">loading</p></body></html>`;

describe('player: AICC courses over HACP in a real browser', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const learner = { id: 'learner-aicc', firstName: 'Grace', lastName: 'Hopper' };
  const { createReg, link, progress } = playerTestBed(learner, (bed) => ({ s, app, context } = bed), async () => {
    await importCourse(s.api, app, 'gen-aicc', { name: 'gen-aicc.zip', data: await aiccPackage(AU_PAGE, { masteryScore: '80' }), type: 'application/zip' });
    await importCourse(s.api, app, 'complex', fixture('aicc-complex-pre-ort.zip'));
    await importCourse(s.api, app, 'upper-aicc', { name: 'upper-aicc.zip', data: await aiccPackage(UPPER_CASE_AU), type: 'application/zip' });
  });
  const auFrame = (page: Page): Frame | undefined => page.frames().find((f) => f.url().includes('/content/'));

  it('runs a generated AU: cross-origin GetParam, a form-posted PutParam and ExitAU land in the registration', async () => {
    await createReg('r-gen', 'gen-aicc');
    const page = await openPage(context, await link('r-gen'));
    const au = page.frameLocator('#lcds-sco');
    await au.locator('#state').filter({ hasText: 'ready' }).waitFor();
    expect(await auFrame(page)!.title()).toBe('name=Hopper, Grace;status=not attempted, ab-initio');
    // No SCORM API for an AICC AU: content that looks for one first falls back to HACP.
    expect(await page.evaluate('typeof window.API')).toBe('undefined');
    await au.locator('#finish').click();
    await au.locator('#state').filter({ hasText: 'exited' }).waitFor();
    // The player learns of the ExitAU from the server and ends the lesson as it does after LMSFinish.
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    const p = await waitFor(() => progress('r-gen'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: { scaled: 0.92 }, totalSecondsTracked: 125 });
    expect(p.activityDetails.children[0]).toMatchObject({ id: 'A1', attempts: 1, activityCompletion: 'COMPLETED', activitySuccess: 'PASSED' });
    expect(p.activityDetails.children[0].runtime).toMatchObject({ location: 'last', suspendData: 'seen=all', scoreRaw: '92' });
    const history = (await call(`${s.api}/registrations/r-gen/launchHistory`, { auth: app })).body.launchHistory;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ completionStatus: 'COMPLETED', successStatus: 'PASSED', totalSecondsTracked: 125 });
    expect(history[0].exitTime).toBeDefined();
    await page.close();

    // A second launch resumes from what was stored: GetParam shows the status and the learner's data.
    const again = await openPage(context, await link('r-gen'));
    await again.frameLocator('#lcds-sco').locator('#state').filter({ hasText: 'ready' }).waitFor();
    expect(await auFrame(again)!.title()).toBe('name=Hopper, Grace;status=passed');
    await again.close();
  });

  it('an AU that reads only AICC_SID / AICC_URL (case-sensitively) and posts upper-case names reports over HACP', async () => {
    await createReg('r-upper', 'upper-aicc');
    const page = await openPage(context, await link('r-upper'));
    // The AU's ExitAU ends the lesson (the player hides the frame and says so).
    const state = await waitFor(() => page.frameLocator('#lcds-sco').locator('#state').textContent(), (v) => v !== 'loading');
    expect(state).toBe('exited');
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    const p = await waitFor(() => progress('r-upper'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', totalSecondsTracked: 60 });
    expect(p.activityDetails.children[0]).toMatchObject({ id: 'A1', activityCompletion: 'COMPLETED' });
    expect(p.activityDetails.children[0].runtime).toMatchObject({ suspendData: 'upper=yes', scoreRaw: '75' });
    await page.close();
  });

  it('frames the AUs of the AICC fixture with the nav bar; each reports over HACP and the course rolls up', async () => {
    await createReg('r-complex', 'complex');
    const page = await openPage(context, await link('r-complex'));
    await page.locator('#lcds-bar').waitFor();
    const titles = await page.locator('#lcds-toc .lcds-item .lcds-title').allTextContents();
    expect(titles).toEqual(['Intro AU', 'Scenario AU', 'Assessment AU']);
    const sids: string[] = [];
    for (const [i, au] of ['A1', 'A2', 'A3'].entries()) {
      const frame = (await waitFor(() => Promise.resolve(auFrame(page)), (f) => !!f && f.url().includes(`${['intro', 'scenario', 'assessment'][i]}.html`)))!;
      const q = new URL(frame.url()).searchParams;
      expect(q.get('AICC_URL')).toBe(`${s.config.publicUrl}/player/hacp`);
      sids.push(q.get('AICC_SID')!);
      // The fixture's AU pages are static: post HACP from inside the AU frame, as its script would.
      const answers = await frame.evaluate(
        async ([sid, url, status]) => {
          const post = async (command: string, data = '') => (await fetch(url, { method: 'POST', body: new URLSearchParams({ command, version: '4.0', session_id: sid, aicc_data: data }) })).text();
          return [await post('GetParam'), await post('PutParam', `[Core]\r\nLesson_Status=${status}\r\nScore=${status === 'passed' ? '90' : ''}\r\nTime=00:00:30\r\n`), await post('ExitAU')];
        },
        [q.get('AICC_SID')!, q.get('AICC_URL')!, au === 'A3' ? 'passed' : 'completed'] as const,
      );
      expect(answers[0]).toContain(`Student_ID=learner-aicc\r\n`);
      expect(answers.every((a) => a.startsWith('error=0\r\n'))).toBe(true);
      const p = await progress('r-complex');
      expect(p.activityDetails.children[i]).toMatchObject({ id: au, activityCompletion: 'COMPLETED' });
      // The last AU's ExitAU leaves the course (below), perhaps before its table of contents shows it completed.
      if (i === 2) break;
      // The table of contents follows what the AU reported to the server.
      await page.locator(`#lcds-toc .lcds-item[data-id="${au}"][data-completion="COMPLETED"]`).waitFor();
      // After ExitAU (cmi.core.exit empty) of a middle AU: the default exit action shows a message in its place.
      await page.frameLocator('#lcds-sco').locator('#lcds-sco-exited').waitFor();
      await page.locator('#lcds-next:not([disabled])').click();
    }
    expect(new Set(sids).size).toBe(3);
    const p = await waitFor(() => progress('r-complex'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', totalSecondsTracked: 90 });
    expect(p.activityDetails.children[2]).toMatchObject({ activitySuccess: 'PASSED', score: { scaled: 0.9 } });
    // The last AU's ExitAU with the course satisfied: the default exit action leaves the course.
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    await page.close();
  });
});
