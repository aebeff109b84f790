/**
 * Issue #17: the tracking, data model and communication settings an administrator sets through the configuration API
 * change what the player records (the registration's progress) and what the SCO sees (its SCORM API), at the levels of
 * the fallback chain (course, registration, instance).
 */
import { BrowserContext, Page, Request } from 'playwright-core';
import { importCourse } from '../support/courses';
import { ActivityNode, activityLines, openPage, playerTestBed, scoPackage, waitFor, zipOf } from '../support/player';
import { call, TestServer } from '../support/test-server';

/** A SCORM 1.2 course of these SCOs; each runs `script` once it found the API, then shows "ready". */
async function lessons(scos: Array<{ id: string; mastery?: number; script: string }>): Promise<Buffer> {
  const items = scos.map((s) => `<item identifier="${s.id}" identifierref="r-${s.id}"><title>${s.id}</title>${s.mastery !== undefined ? `<adlcp:masteryscore>${s.mastery}</adlcp:masteryscore>` : ''}</item>`);
  const resources = scos.map((s) => `<resource identifier="r-${s.id}" type="webcontent" adlcp:scormtype="sco" href="${s.id}.html"><file href="${s.id}.html"/></resource>`);
  const files: Record<string, string> = {
    'imsmanifest.xml': `<?xml version="1.0"?><manifest identifier="tracking" version="1" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
<metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
<organizations default="o"><organization identifier="o"><title>Tracking</title>${items.join('')}</organization></organizations><resources>${resources.join('')}</resources></manifest>`,
  };
  for (const s of scos) {
    files[`${s.id}.html`] = `<!doctype html><html><head><meta charset="utf-8"><title>${s.id}</title><script>
var API = (function (w) { for (var i = 0; w && i < 10; i++) { if (w.API) return w.API; if (w.parent === w) break; w = w.parent; } return null; })(window);
function report(info) { document.getElementById('state').setAttribute('data-info', JSON.stringify(info)); }
window.onload = function () { ${s.script} document.getElementById('state').textContent = 'ready'; };
</script></head><body><p id="state">loading</p></body></html>`;
  }
  return zipOf(files);
}

interface Progress {
  registrationCompletion: string;
  registrationSuccess: string;
  score?: { scaled?: number };
  activityDetails: ActivityNode & { children: Array<ActivityNode & { runtime?: { location?: string } }> };
}

const zip = (name: string, data: Buffer) => ({ name: `${name}.zip`, data, type: 'application/zip' });

describe('player: tracking, data model and communication settings (issue #17)', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const { createReg, link, progress } = playerTestBed({ id: 'learner-tracking' }, (bed) => ({ s, app, context } = bed), async () => {
    // Reports incomplete with a raw score of 70 under a mastery score of 80, and finishes.
    const quiz = await lessons([{ id: 'quiz', mastery: 80, script: `API.LMSInitialize(''); API.LMSSetValue('cmi.core.score.raw', '70'); API.LMSSetValue('cmi.core.lesson_status', 'incomplete'); API.LMSFinish('');` }]);
    await importCourse(s.api, app, 'quiz12', zip('quiz12', quiz));
    await importCourse(s.api, app, 'quiz12-untracked', zip('quiz12b', quiz));
    // Completed, then back to incomplete.
    await importCourse(s.api, app, 'back12', zip('back12', await lessons([{ id: 'back', script: `API.LMSInitialize(''); API.LMSSetValue('cmi.core.lesson_status', 'completed'); API.LMSCommit(''); API.LMSSetValue('cmi.core.lesson_status', 'incomplete'); API.LMSFinish('');` }])));
    // A pretest that is passed, then two lessons the learner never opens.
    await importCourse(
      s.api,
      app,
      'pretest12',
      zip('pretest12', await lessons([{ id: 'pretest', script: `API.LMSInitialize(''); API.LMSSetValue('cmi.core.lesson_status', 'passed'); API.LMSFinish('');` }, { id: 'lesson-a', script: '' }, { id: 'lesson-b', script: '' }])),
    );
    // The first SCO sets a language; the second reports the language it finds.
    await importCourse(
      s.api,
      app,
      'prefs12',
      zip(
        'prefs12',
        await lessons([
          { id: 'one', script: `API.LMSInitialize(''); API.LMSSetValue('cmi.student_preference.language', 'fr-FR'); API.LMSSetValue('cmi.core.lesson_status', 'completed'); API.LMSFinish('');` },
          { id: 'two', script: `API.LMSInitialize(''); report({ language: API.LMSGetValue('cmi.student_preference.language') });` },
        ]),
      ),
    );
    // SCORM 2004 (sequenced): passed and incomplete with a raw score only.
    await importCourse(
      s.api,
      app,
      'raw2004',
      zip('raw2004', await scoPackage('2004', `API.Initialize(''); API.SetValue('cmi.score.raw', '45'); API.SetValue('cmi.success_status', 'passed'); API.SetValue('cmi.completion_status', 'incomplete'); API.Terminate('');`)),
    );
    // SCORM 2004: a SCO that reports nothing and exits the course (its attempt ends).
    await importCourse(s.api, app, 'bare2004', zip('bare2004', await scoPackage('2004', `API.Initialize(''); API.SetValue('adl.nav.request', 'exitAll'); API.Terminate('');`)));
    // Suspend data of 100 and 101 characters: what SetValue answers.
    const suspend = (version: '1.2' | '2004') => {
      const [set, err] = version === '1.2' ? ['LMSSetValue', 'LMSGetLastError'] : ['SetValue', 'GetLastError'];
      return scoPackage(
        version,
        `API.${version === '1.2' ? 'LMSInitialize' : 'Initialize'}('');
         var long = new Array(102).join('x'), r = {};
         r.long = API.${set}('cmi.suspend_data', long); r.longError = String(API.${err}());
         r.fits = API.${set}('cmi.suspend_data', long.slice(1)); r.fitsError = String(API.${err}());
         r.stored = API.${version === '1.2' ? 'LMSGetValue' : 'GetValue'}('cmi.suspend_data').length;
         document.getElementById('state').setAttribute('data-info', JSON.stringify(r));`,
      );
    };
    await importCourse(s.api, app, 'suspend12', zip('suspend12', await suspend('1.2')));
    await importCourse(s.api, app, 'suspend2004', zip('suspend2004', await suspend('2004')));
    // Interaction responses: SetValue's answer and error for each, then the stored value; finishes.
    const responses = (version: '1.2' | '2004') => {
      const v12 = version === '1.2';
      const [set, err] = v12 ? ['LMSSetValue', 'LMSGetLastError'] : ['SetValue', 'GetLastError'];
      return scoPackage(
        version,
        `API.${v12 ? 'LMSInitialize' : 'Initialize'}('');
         var r = {};
         function put(k, v) { var ok = API.${set}(k, v); return ok + ' ' + API.${err}(); }
         function item(n, type) { API.${set}('cmi.interactions.' + n + '.id', 'q' + n); API.${set}('cmi.interactions.' + n + '.type', type); }
         ${
           v12
             ? `item(0, 'choice'); r.freeChoice = put('cmi.interactions.0.student_response', 'The UN'); r.freePattern = put('cmi.interactions.0.correct_responses.0.pattern', 'USGA and Royal and Ancient');
                item(1, 'choice'); r.choice = put('cmi.interactions.1.student_response', 'a,c'); r.pattern = put('cmi.interactions.1.correct_responses.0.pattern', '{a,c}');
                item(2, 'true-false'); r.trueFalse = put('cmi.interactions.2.student_response', 'true');
                item(3, 'fill-in'); r.lines = put('cmi.interactions.3.student_response', 'line one\\nline two');`
             : `item(0, 'numeric'); r.freeNumeric = put('cmi.interactions.0.learner_response', 'about eighteen'); r.freePattern = put('cmi.interactions.0.correct_responses.0.pattern', 'eighteen');
                r.stored = API.GetValue('cmi.interactions.0.learner_response');
                item(1, 'numeric'); r.numeric = put('cmi.interactions.1.learner_response', '18');`
         }
         API.${v12 ? 'LMSSetValue' : 'SetValue'}('cmi.${v12 ? 'core.lesson_status' : 'completion_status'}', 'completed');
         API.${v12 ? 'LMSFinish' : 'Terminate'}('');
         document.getElementById('state').setAttribute('data-info', JSON.stringify(r));`,
      );
    };
    await importCourse(s.api, app, 'responses12', zip('responses12', await responses('1.2')));
    await importCourse(s.api, app, 'responses2004', zip('responses2004', await responses('2004')));
    // Sets a location once and keeps running; finishes when asked (window.finish).
    await importCourse(s.api, app, 'idle12', zip('idle12', await scoPackage('1.2', `API.LMSInitialize(''); API.LMSSetValue('cmi.core.lesson_location', 'page-1'); window.finish = function () { API.LMSFinish(''); };`)));
  });

  const configure = async (path: string, settings: Record<string, string>) =>
    expect((await call(`${s.api}/${path}/configuration`, { method: 'POST', auth: app, json: { settings: Object.entries(settings).map(([settingId, value]) => ({ settingId, value })) } })).status).toBe(204);
  /** Registrations of a course, each with the settings given at its own level (`instance`: at its instance 0's). */
  const registrations = async (course: string, regs: Record<string, Record<string, string>>, instance = false) => {
    for (const [reg, settings] of Object.entries(regs)) {
      await createReg(reg, course);
      if (Object.keys(settings).length) await configure(`registrations/${reg}${instance ? '/instances/0' : ''}`, settings);
    }
  };
  /** Runs a registration's launch until the SCO is ready and, unless it stays, the player says it is done. */
  const run = async (reg: string, stay = false): Promise<{ page: Page; info: Record<string, unknown> | null }> => {
    const page = await openPage(context, await link(reg));
    const state = page.frameLocator('#lcds-sco').locator('#state').filter({ hasText: 'ready' });
    await state.waitFor({ state: 'attached' });
    const info = await state.getAttribute('data-info');
    if (!stay) await page.locator('#lcds-done').waitFor({ state: 'visible' });
    return { page, info: info ? (JSON.parse(info) as Record<string, unknown>) : null };
  };
  const settled = (reg: string, ok: (p: Progress) => boolean) => waitFor(() => progress(reg), ok, 15_000);
  const location = (p: { activityDetails: { children: Array<{ runtime?: { location?: string } }> } }) => p.activityDetails.children[0].runtime?.location;
  const commits = (page: Page) => {
    const seen: Array<{ at: number; request: Request }> = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && /\/commit$/.test(request.url())) seen.push({ at: Date.now(), request });
    });
    return seen;
  };

  it('SCORM 1.2: PlayerScoreOverridesStatus, PlayerCompletionStatOfFailedSuccessStat (registration) and PlayerIsScoreTracked (course) change the status and score the API reports', async () => {
    await registrations('quiz12', { 'quiz-default': {}, 'quiz-override': { PlayerScoreOverridesStatus: 'YES' }, 'quiz-failed-incomplete': { PlayerScoreOverridesStatus: 'YES', PlayerCompletionStatOfFailedSuccessStat: 'Incomplete' } });
    await configure('courses/quiz12-untracked', { PlayerScoreOverridesStatus: 'YES', PlayerIsScoreTracked: 'NO' });
    await createReg('quiz-untracked', 'quiz12-untracked');
    const expected: Record<string, [string, string, number | undefined]> = {
      // The SCO's own status; the score is kept.
      'quiz-default': ['INCOMPLETE', 'UNKNOWN', 0.7],
      // The raw score against the mastery score wins: failed, and so completed.
      'quiz-override': ['COMPLETED', 'FAILED', 0.7],
      'quiz-failed-incomplete': ['INCOMPLETE', 'FAILED', 0.7],
      'quiz-untracked': ['COMPLETED', 'FAILED', undefined],
    };
    for (const [reg, [completion, success, score]] of Object.entries(expected)) {
      await (await run(reg)).page.close();
      const p = await settled(reg, (v) => v.registrationCompletion === completion && activityLines(v, true).quiz.startsWith(`1 ${completion} ${success}`));
      expect({ reg, completion: p.registrationCompletion, success: p.registrationSuccess, score: p.score?.scaled, quiz: activityLines(p, true).quiz }).toEqual({
        reg,
        completion,
        success,
        score,
        quiz: `1 ${completion} ${success}${score !== undefined ? ` ${score}` : ''}`,
      });
    }
  }, 120_000);

  it('SCORM 1.2: a completed SCO stays completed (PlayerAllowCompleteStatusChange NO, the default) unless the setting allows the change', async () => {
    await registrations('back12', { 'back-default': {}, 'back-allowed': { PlayerAllowCompleteStatusChange: 'YES' } }, true);
    for (const [reg, completion] of [
      ['back-default', 'COMPLETED'],
      ['back-allowed', 'INCOMPLETE'],
    ]) {
      const { page } = await run(reg);
      await page.close();
      const p = await settled(reg, (v) => activityLines(v, true).back === `1 ${completion} UNKNOWN` && v.registrationCompletion === completion);
      expect([reg, activityLines(p, true).back, p.registrationCompletion]).toEqual([reg, `1 ${completion} UNKNOWN`, completion]);
    }
  }, 60_000);

  it('SCORM 1.2: PlayerFirstScoIsPretest completes the course when the first SCO is passed', async () => {
    // The pretest finishes at once: the SCO stays where it was (the default exit action of a middle SCO shows a message instead).
    const stay = { PlayerIntermediateScoSatisfiedNormalExitAction: 'DO_NOTHING', PlayerIntermediateScoNotSatisfiedNormalExitAction: 'DO_NOTHING' };
    await registrations('pretest12', { 'pretest-default': stay, 'pretest-on': { ...stay, PlayerFirstScoIsPretest: 'YES' } });
    for (const reg of ['pretest-default', 'pretest-on']) {
      const { page } = await run(reg, true);
      await waitFor(() => progress(reg), (v) => activityLines(v, true).pretest === '1 COMPLETED PASSED');
      await page.close();
    }
    expect(activityLines(await progress('pretest-default'), true)).toEqual({ pretest: '1 COMPLETED PASSED', 'lesson-a': '0 UNKNOWN UNKNOWN', 'lesson-b': '0 UNKNOWN UNKNOWN' });
    const on = await progress('pretest-on');
    expect(activityLines(on, true)).toEqual({ pretest: '1 COMPLETED PASSED', 'lesson-a': '0 COMPLETED UNKNOWN', 'lesson-b': '0 COMPLETED UNKNOWN' });
    expect(on.registrationCompletion).toBe('COMPLETED');
  }, 60_000);

  it('PlayerMakeStudentPrefsGlobalToCourse: the second SCO finds the language the first one set', async () => {
    const second = async (reg: string) => {
      const page = await openPage(context, await link(reg));
      await page.locator('#lcds-toc .lcds-item[data-id="one"][data-completion="COMPLETED"]').waitFor();
      await page.locator('#lcds-next:not([disabled])').click();
      const state = page.frameLocator('#lcds-sco').locator('#state[data-info]');
      await state.waitFor({ state: 'attached' });
      const info = JSON.parse((await state.getAttribute('data-info'))!) as { language: string };
      await page.close();
      return info.language;
    };
    await registrations('prefs12', { 'prefs-default': {}, 'prefs-global': { PlayerMakeStudentPrefsGlobalToCourse: 'YES' } });
    expect(await second('prefs-default')).toBe('');
    expect(await second('prefs-global')).toBe('fr-FR');
  }, 60_000);

  it('SCORM 2004 (sequencer): PlayerScaleRawScore and PlayerSatisfiedCausesCompletion', async () => {
    await registrations('raw2004', { 'raw-default': {}, 'raw-ruled': { PlayerScaleRawScore: 'YES', PlayerSatisfiedCausesCompletion: 'YES' } });
    await (await run('raw-default')).page.close();
    await (await run('raw-ruled')).page.close();
    const d = await settled('raw-default', (v) => activityLines(v, true)['sco-1'] === '1 INCOMPLETE PASSED');
    expect([d.registrationCompletion, d.registrationSuccess, d.score?.scaled, activityLines(d, true)['sco-1']]).toEqual(['INCOMPLETE', 'PASSED', undefined, '1 INCOMPLETE PASSED']);
    const r = await settled('raw-ruled', (v) => v.registrationCompletion === 'COMPLETED');
    expect([r.registrationCompletion, r.registrationSuccess, r.score?.scaled, activityLines(r, true)['sco-1']]).toEqual(['COMPLETED', 'PASSED', 0.45, '1 COMPLETED PASSED 0.45']);
  }, 60_000);

  it('SCORM 2004: PlayerForceObjectiveCompletionSetByContent leaves a SCO that reported nothing unknown (by default the LMS completes and satisfies it as its attempt ends)', async () => {
    await registrations('bare2004', { 'bare-default': {}, 'bare-forced': { PlayerForceObjectiveCompletionSetByContent: 'YES' } });
    for (const [reg, line] of [
      ['bare-default', '1 COMPLETED PASSED'],
      ['bare-forced', '1 UNKNOWN UNKNOWN'],
    ]) {
      // The SCO exits at once: the course ends.
      const page = await openPage(context, await link(reg));
      await page.locator('#lcds-done').waitFor({ state: 'visible' });
      await page.close();
      const p = await settled(reg, (v) => activityLines(v, true)['sco-1'] === line);
      expect([reg, activityLines(p, true)['sco-1']]).toEqual([reg, line]);
    }
  }, 60_000);

  it.each([
    { course: 'suspend12', error: '405' },
    { course: 'suspend2004', error: '407' },
  ])('$course: PlayerSuspendDataMaxLength 100 refuses 101 characters of suspend_data (error $error) and takes 100', async ({ course, error }) => {
    await registrations(course, { [`${course}-default`]: {}, [`${course}-100`]: { PlayerSuspendDataMaxLength: '100' } });
    const limited = await run(`${course}-100`, true);
    expect(limited.info).toEqual({ long: 'false', longError: error, fits: 'true', fitsError: '0', stored: 100 });
    await limited.page.close();
    const free = await run(`${course}-default`, true);
    expect(free.info).toEqual({ long: 'true', longError: '0', fits: 'true', fitsError: '0', stored: 100 });
    await free.page.close();
  }, 60_000);

  it('PlayerValidateInteractionResponses: YES checks SCORM 1.2 responses against the format of their type (405), NO takes free text in SCORM 1.2 and 2004; set nowhere, as before', async () => {
    const ok = 'true 0';
    const cases: Array<[string, string, Record<string, string>, Record<string, string>]> = [
      ['responses12', 'resp12-default', {}, { freeChoice: ok, freePattern: ok, choice: ok, pattern: ok, trueFalse: ok, lines: 'false 405' }],
      ['responses12', 'resp12-yes', { PlayerValidateInteractionResponses: 'YES' }, { freeChoice: 'false 405', freePattern: 'false 405', choice: ok, pattern: ok, trueFalse: 'false 405', lines: ok }],
      ['responses12', 'resp12-no', { PlayerValidateInteractionResponses: 'NO' }, { freeChoice: ok, freePattern: ok, choice: ok, pattern: ok, trueFalse: ok, lines: ok }],
      ['responses2004', 'resp2004-default', {}, { freeNumeric: 'false 406', freePattern: 'false 406', stored: '', numeric: ok }],
      ['responses2004', 'resp2004-no', { PlayerValidateInteractionResponses: 'NO' }, { freeNumeric: ok, freePattern: ok, stored: 'about eighteen', numeric: ok }],
    ];
    for (const [course, reg, settings, expected] of cases) {
      await registrations(course, { [reg]: settings });
      const { page, info } = await run(reg);
      expect([reg, info]).toEqual([reg, expected]);
      await page.close();
    }
    // What the API reports of the interactions (RuntimeInteractionSchema): the responses as the SCO gave them, where they were taken.
    const interactions = async (reg: string) => {
      const p = await waitFor(() => call(`${s.api}/registrations/${reg}?includeRuntime=true&includeChildResults=true&includeInteractionsAndObjectives=true`, { auth: app }), (r) => r.body.registrationCompletion === 'COMPLETED');
      return (p.body as { activityDetails: { children: Array<{ runtime: { runtimeInteractions: Array<{ id: string; learnerResponse?: string; correctResponses: string[] }> } }> } }).activityDetails.children[0].runtime.runtimeInteractions;
    };
    const no12 = await interactions('resp12-no');
    expect([no12[0].learnerResponse, no12[0].correctResponses[0], no12[3].learnerResponse]).toEqual(['The UN', 'USGA and Royal and Ancient', 'line one\nline two']);
    const yes12 = await interactions('resp12-yes');
    expect([yes12[0].id, yes12[0].learnerResponse, yes12[1].learnerResponse, yes12[3].learnerResponse]).toEqual(['q0', undefined, 'a,c', 'line one\nline two']);
    const no2004 = await interactions('resp2004-no');
    expect([no2004[0].learnerResponse, no2004[0].correctResponses[0]]).toEqual(['about eighteen', 'eighteen']);
    expect((await interactions('resp2004-default'))[0].learnerResponse).toBeUndefined();
  }, 90_000);

  it('PlayerCommCommitFrequency: a change is committed that long after it (default 10 s: not yet after 3 s)', async () => {
    await registrations('idle12', { 'freq-default': {}, 'freq-1s': { PlayerCommCommitFrequency: '1000' } });
    for (const [reg, within] of [
      ['freq-1s', true],
      ['freq-default', false],
    ] as const) {
      const page = await openPage(context, await link(reg));
      const seen = commits(page);
      await page.frameLocator('#lcds-sco').locator('#state').filter({ hasText: 'ready' }).waitFor();
      const ready = Date.now();
      await new Promise((r) => setTimeout(r, 3000));
      expect([reg, seen.some((c) => c.at - ready < 3000)]).toEqual([reg, within]);
      await page.close();
    }
    expect((await progress('freq-1s')).activityDetails.children[0].runtime.location).toBe('page-1');
  }, 60_000);

  it('PlayerFinishCausesImmediateCommit NO: the commit of LMSFinish waits for the commit interval; YES (default) goes at once', async () => {
    await registrations('idle12', { 'finish-default': {}, 'finish-later': { PlayerFinishCausesImmediateCommit: 'NO', PlayerCommCommitFrequency: '2500' } });
    const delays: Record<string, number> = {};
    for (const reg of ['finish-default', 'finish-later']) {
      const page = await openPage(context, await link(reg));
      const seen = commits(page);
      await page.frameLocator('#lcds-sco').locator('#state').filter({ hasText: 'ready' }).waitFor();
      const at = Date.now();
      await page.frameLocator('#lcds-sco').locator('#finish').click();
      await page.locator('#lcds-done').waitFor({ state: 'visible' });
      const final = seen.find((c) => (JSON.parse(c.request.postData() ?? '{}') as { final?: boolean }).final === true);
      delays[reg] = final ? final.at - at : -1;
      await page.close();
    }
    expect(delays['finish-default']).toBeGreaterThanOrEqual(0);
    expect(delays['finish-default']).toBeLessThan(1500);
    expect(delays['finish-later']).toBeGreaterThanOrEqual(2000);
    expect((await progress('finish-later')).registrationCompletion).toBe('COMPLETED');
  }, 60_000);

  it('PlayerCommMaxFailedSubmissions 1: the learner is told at the first failed commit; PreferSendBeacon: the unloading page commits by sendBeacon', async () => {
    await registrations('idle12', { 'fail-once': { PlayerCommMaxFailedSubmissions: '1', PlayerCommCommitFrequency: '500', PreferSendBeacon: 'true' } });
    const page = await openPage(context, await link('fail-once'));
    // Only the first commit is refused: the message can only come from that one failure.
    let refused = 0;
    await page.route(/\/commit$/, (route) => (refused === 0 ? ((refused = 1), route.fulfill({ status: 503, body: 'down' })) : route.continue()));
    await page.frameLocator('#lcds-sco').locator('#state').filter({ hasText: 'ready' }).waitFor();
    await page.locator('#lcds-message').filter({ hasText: /save/i }).waitFor({ state: 'visible' });
    expect(refused).toBe(1);
    // The retry goes through; then the learner leaves: the last state goes by beacon (its commit ends the launch).
    await settled('fail-once', (v) => location(v) === 'page-1');
    await page.unroute(/\/commit$/);
    const beacons = await page.evaluate(() => {
      const sent: string[] = [];
      const send = navigator.sendBeacon.bind(navigator);
      navigator.sendBeacon = (url, data) => {
        sent.push(String(url));
        return send(url, data);
      };
      window.dispatchEvent(new PageTransitionEvent('pagehide'));
      return sent;
    });
    expect(beacons).toEqual(['commit']);
    const history = await waitFor(async () => (await call(`${s.api}/registrations/fail-once/launchHistory`, { auth: app })).body.launchHistory as Array<{ exitTime?: string }>, (h) => h[0]?.exitTime !== undefined);
    expect(history[0].exitTime).toBeDefined();
    await page.close();
  }, 60_000);
});
