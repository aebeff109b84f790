import { BrowserContext, Frame, Page } from 'playwright-core';
import { importCourse } from '../support/courses';
import { openPage, playerTestBed, scoPackage, waitFor, zipOf } from '../support/player';
import { call, TestServer } from '../support/test-server';

/**
 * What a SCO sees when the player delivers it again: a new attempt starts on a fresh data model (SCORM 2004 RTE
 * cmi.entry, SN DB.2; SCORM 1.2 cmi.core.entry), only a suspended attempt resumes; PlayerResetRunTimeData and
 * PlayerLaunchCompletedRegsAsNoCredit as the settings catalogue defines them. Each generated SCO writes what it saw at
 * initialisation into its page (#seen), which the test reads.
 */
const NS = `xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3" xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss"`;
const SCO2004 = `<!doctype html><html><head><meta charset="utf-8"><title>SCO</title><script>
function findAPI(w) { for (var i = 0; w && i < 10; i++) { if (w.API_1484_11) return w.API_1484_11; if (w.parent === w) break; w = w.parent; } return null; }
var API = findAPI(window);
window.onload = function () {
  API.Initialize('');
  var seen = {};
  ['cmi.entry', 'cmi.location', 'cmi.completion_status', 'cmi.success_status', 'cmi.score.scaled', 'cmi.suspend_data', 'cmi.credit', 'cmi.total_time'].forEach(function (k) { seen[k] = API.GetValue(k); });
  document.getElementById('seen').textContent = JSON.stringify(seen);
  window.ready = true;
};
</script></head><body><p id="seen"></p></body></html>`;

const leaf = (id: string, seq = ''): string => `<item identifier="${id}" identifierref="R" parameters="?id=${id}"><title>${id}</title>${seq ? `<imsss:sequencing>${seq}</imsss:sequencing>` : ''}</item>`;
/** A remediation course: a lesson, then a post test that is retried until it is passed (post-condition retry). */
const REMEDIATION = `<?xml version="1.0"?>
<manifest identifier="M" ${NS}>
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG"><organization identifier="ORG"><title>Remediation</title>
    ${leaf('lesson')}
    ${leaf('posttest', '<imsss:sequencingRules><imsss:postConditionRule><imsss:ruleConditions><imsss:ruleCondition operator="not" condition="satisfied"/></imsss:ruleConditions><imsss:ruleAction action="retry"/></imsss:postConditionRule></imsss:sequencingRules>')}
    <imsss:sequencing><imsss:controlMode choice="true" flow="true"/></imsss:sequencing></organization></organizations>
  <resources><resource identifier="R" type="webcontent" adlcp:scormType="sco" href="sco.html"><file href="sco.html"/></resource></resources>
</manifest>`;

const SCO12 = `API.LMSInitialize('');
  var seen = {};
  ['cmi.core.entry', 'cmi.core.lesson_location', 'cmi.core.lesson_status', 'cmi.core.score.raw', 'cmi.core.credit', 'cmi.suspend_data', 'cmi.core.total_time'].forEach(function (k) { seen[k] = API.LMSGetValue(k); });
  document.getElementById('state').setAttribute('data-seen', JSON.stringify(seen));
  window.report = function (v) { for (var k in v) API.LMSSetValue(k, v[k]); API.LMSCommit(''); API.LMSFinish(''); };`;

interface ActivityNode {
  id: string;
  attempts: number;
  runtime?: Record<string, unknown>;
  children?: ActivityNode[];
}
const find = (n: ActivityNode, id: string): ActivityNode | undefined => (n.id === id ? n : (n.children ?? []).map((c) => find(c, id)).find((x) => x));

describe('player: a new attempt starts on a fresh data model; only a suspended one resumes', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const { createReg, link, progress } = playerTestBed({ id: 'attempts-learner', firstName: 'Ada', lastName: 'Lovelace' }, (bed) => ({ s, app, context } = bed), async () => {
    await importCourse(s.api, app, 'remediation', { name: 'remediation.zip', data: await zipOf({ 'imsmanifest.xml': REMEDIATION, 'sco.html': SCO2004 }), type: 'application/zip' });
    await importCourse(s.api, app, 'relaunch12', { name: 'relaunch12.zip', data: await scoPackage('1.2', SCO12), type: 'application/zip' });
  });
  const configure = async (registrationId: string, settings: Record<string, string>) =>
    expect(
      (await call(`${s.api}/registrations/${registrationId}/configuration`, { method: 'POST', auth: app, json: { settings: Object.entries(settings).map(([settingId, value]) => ({ settingId, value })) } })).status,
    ).toBe(204);

  /** The 2004 SCO frame once it runs item `id`, initialised; and what it saw. */
  const at = async (page: Page, id: string): Promise<{ frame: Frame; seen: Record<string, string> }> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const f = (await (await page.$('#lcds-sco'))?.contentFrame()) ?? null;
      if (f && new RegExp(`[?&]id=${id}$`).test(f.url()) && (await f.evaluate('window.ready === true').catch(() => false))) {
        return { frame: f, seen: JSON.parse((await f.locator('#seen').textContent()) ?? '{}') as Record<string, string> };
      }
      if (Date.now() > deadline) throw new Error(`the player never delivered ${id} (it shows ${f?.url()})`);
      await page.waitForTimeout(50);
    }
  };
  /** The SCO sets its data model, commits, asks for a navigation request and terminates. */
  const leave = async (page: Page, frame: Frame, values: Record<string, string>, request: string) => {
    await frame.evaluate(
      ([v, r]) => {
        const api = (window as unknown as { API: { SetValue(k: string, x: string): string; Commit(x: string): string; Terminate(x: string): string } }).API;
        for (const [k, x] of Object.entries(v)) api.SetValue(k, x);
        api.Commit('');
        api.SetValue('adl.nav.request', r);
        api.Terminate('');
      },
      [values, request] as const,
    );
    await waitFor(() => page.evaluate<{ pending: boolean; sending: boolean }>('window.lcdsPlayer.state()'), (st) => !st.pending && !st.sending);
  };
  const FRESH = { 'cmi.entry': 'ab-initio', 'cmi.location': '', 'cmi.completion_status': 'unknown', 'cmi.success_status': 'unknown', 'cmi.score.scaled': '', 'cmi.suspend_data': '', 'cmi.total_time': 'PT0H0M0S' };

  it('SCORM 2004: a retried post test and a completed SCO chosen again start fresh; a suspended SCO resumes', async () => {
    await createReg('rem-1', 'remediation');
    const page = await openPage(context, await link('rem-1'));
    const lesson = await at(page, 'lesson');
    expect(lesson.seen).toMatchObject(FRESH);
    await leave(page, lesson.frame, { 'cmi.location': 'lesson-page-4', 'cmi.suspend_data': 'lesson-state', 'cmi.completion_status': 'incomplete', 'cmi.exit': 'suspend' }, 'continue');

    // The post test's first attempt fails: its post condition retries it.
    const first = await at(page, 'posttest');
    expect(first.seen).toMatchObject(FRESH);
    await leave(page, first.frame, { 'cmi.location': 'q5', 'cmi.suspend_data': 'answers=1,2', 'cmi.completion_status': 'completed', 'cmi.success_status': 'failed', 'cmi.score.scaled': '0.4', 'cmi.session_time': 'PT25S', 'cmi.exit': 'normal' }, 'continue');
    await waitFor(() => progress('rem-1'), (p) => find(p.activityDetails, 'posttest')?.attempts === 2);
    const second = await at(page, 'posttest');
    expect(second.seen).toMatchObject(FRESH);
    // The new attempt's commits show its own data, not a merge with the first attempt's.
    await leave(page, second.frame, { 'cmi.location': 'q1', 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed', 'cmi.exit': 'normal' }, '{target=lesson}choice');
    const runtime = find((await progress('rem-1')).activityDetails, 'posttest')!.runtime!;
    expect(runtime).toMatchObject({ location: 'q1', completionStatus: 'completed', runtimeSuccessStatus: 'PASSED' });
    expect(runtime.scoreScaled).toBeUndefined();
    expect(runtime.suspendData ?? '').toBe('');

    // The lesson was left suspended: it resumes where it was.
    const again = await at(page, 'lesson');
    expect(again.seen).toMatchObject({ 'cmi.entry': 'resume', 'cmi.location': 'lesson-page-4', 'cmi.suspend_data': 'lesson-state', 'cmi.completion_status': 'incomplete' });
    await leave(page, again.frame, { 'cmi.completion_status': 'completed', 'cmi.exit': 'normal' }, '{target=posttest}choice');
    // The post test chosen again after a normal exit: a third attempt, fresh.
    const third = await at(page, 'posttest');
    expect(third.seen).toMatchObject(FRESH);
    expect(find((await progress('rem-1')).activityDetails, 'posttest')?.attempts).toBe(3);
    await page.close();
  });

  it('SCORM 2004 with PlayerResetRunTimeData NEVER: the retried post test gets the last attempt data back', async () => {
    await createReg('rem-never', 'remediation');
    await configure('rem-never', { PlayerResetRunTimeData: 'NEVER' });
    const page = await openPage(context, await link('rem-never'));
    const lesson = await at(page, 'lesson');
    await leave(page, lesson.frame, { 'cmi.completion_status': 'completed', 'cmi.exit': 'normal' }, 'continue');
    const first = await at(page, 'posttest');
    await leave(page, first.frame, { 'cmi.location': 'q5', 'cmi.completion_status': 'completed', 'cmi.success_status': 'failed', 'cmi.exit': 'normal' }, 'continue');
    await waitFor(() => progress('rem-never'), (p) => find(p.activityDetails, 'posttest')?.attempts === 2);
    const second = await at(page, 'posttest');
    expect(second.seen).toMatchObject({ 'cmi.entry': '', 'cmi.location': 'q5', 'cmi.completion_status': 'completed' });
    await page.close();
  });

  it('SCORM 2004: a SCO left with cmi.exit suspend whose attempt exit all then ended starts fresh at the next launch', async () => {
    await createReg('rem-exitall', 'remediation');
    const page = await openPage(context, await link('rem-exitall'));
    const lesson = await at(page, 'lesson');
    // The SCO says suspend, but the learner leaves the course with Exit (exit all), not Suspend: the attempt ends.
    await leave(page, lesson.frame, { 'cmi.location': 'lesson-page-4', 'cmi.suspend_data': 'lesson-state', 'cmi.completion_status': 'incomplete', 'cmi.exit': 'suspend' }, 'exitAll');
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    await page.close();
    const relaunched = await openPage(context, await link('rem-exitall'));
    const again = await at(relaunched, 'lesson');
    expect(again.seen).toMatchObject(FRESH);
    expect(find((await progress('rem-exitall')).activityDetails, 'lesson')?.attempts).toBe(2);
    await relaunched.close();
  });

  /** Opens a launch of the 1.2 course and returns what its SCO saw, and the page. */
  const launch12 = async (registrationId: string): Promise<{ page: Page; seen: Record<string, string> }> => {
    const page = await openPage(context, await link(registrationId));
    const state = page.frameLocator('#lcds-sco').locator('#state');
    await state.filter({ hasText: 'ready' }).waitFor();
    return { page, seen: JSON.parse((await state.getAttribute('data-seen')) ?? '{}') as Record<string, string> };
  };
  const finish12 = async (page: Page, values: Record<string, string>) => {
    const frame = page.frames().find((f) => f.url().includes('/content/'))!;
    await frame.evaluate((v) => (window as unknown as { report(x: Record<string, string>): void }).report(v), values);
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    await page.close();
  };

  it('SCORM 1.2: resume only after suspend; a completed registration relaunches fresh, in no-credit mode, its results kept', async () => {
    await createReg('r12-credit', 'relaunch12');
    let l = await launch12('r12-credit');
    expect(l.seen).toMatchObject({ 'cmi.core.entry': 'ab-initio', 'cmi.core.lesson_status': 'not attempted', 'cmi.core.credit': 'credit' });
    await finish12(l.page, { 'cmi.core.lesson_location': 'p3', 'cmi.suspend_data': 'state-1', 'cmi.core.lesson_status': 'incomplete', 'cmi.core.session_time': '00:00:10', 'cmi.core.exit': 'suspend' });
    l = await launch12('r12-credit');
    expect(l.seen).toMatchObject({ 'cmi.core.entry': 'resume', 'cmi.core.lesson_location': 'p3', 'cmi.suspend_data': 'state-1', 'cmi.core.lesson_status': 'incomplete', 'cmi.core.credit': 'credit', 'cmi.core.total_time': expect.stringMatching(/^0+:00:10$/) });
    await finish12(l.page, { 'cmi.core.lesson_status': 'passed', 'cmi.core.score.raw': '90', 'cmi.core.score.max': '100', 'cmi.core.score.min': '0', 'cmi.core.session_time': '00:00:20', 'cmi.core.exit': '' });
    await waitFor(() => progress('r12-credit'), (p) => p.registrationSuccess === 'PASSED');

    // Passed and exited normally: a new attempt on fresh data, no credit (PlayerLaunchCompletedRegsAsNoCredit YES).
    l = await launch12('r12-credit');
    expect(l.seen).toMatchObject({ 'cmi.core.entry': 'ab-initio', 'cmi.core.lesson_location': '', 'cmi.suspend_data': '', 'cmi.core.lesson_status': 'not attempted', 'cmi.core.score.raw': '', 'cmi.core.credit': 'no-credit', 'cmi.core.total_time': expect.stringMatching(/^0+:00:00$/) });
    await finish12(l.page, { 'cmi.core.lesson_status': 'failed', 'cmi.core.score.raw': '20', 'cmi.core.score.max': '100', 'cmi.core.score.min': '0', 'cmi.core.lesson_location': 'p1' });
    const p = await waitFor(() => progress('r12-credit'), (v) => v.activityDetails.children[0].runtime?.location === 'p1');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: { scaled: 0.9 } });
    // The registration's time counts every attempt.
    expect(p.activityDetails.children[0]).toMatchObject({ activityCompletion: 'COMPLETED', activitySuccess: 'PASSED', score: { scaled: 0.9 }, attempts: 2, timeTracked: '0000:00:30' });
  });

  it('SCORM 1.2 with PlayerLaunchCompletedRegsAsNoCredit NO: the relaunch runs with credit and its results count', async () => {
    await createReg('r12-nocredit-off', 'relaunch12');
    await configure('r12-nocredit-off', { PlayerLaunchCompletedRegsAsNoCredit: 'false' });
    let l = await launch12('r12-nocredit-off');
    await finish12(l.page, { 'cmi.core.lesson_status': 'passed', 'cmi.core.score.raw': '90', 'cmi.core.score.max': '100', 'cmi.core.score.min': '0', 'cmi.core.lesson_location': 'end' });
    await waitFor(() => progress('r12-nocredit-off'), (p) => p.registrationSuccess === 'PASSED');
    l = await launch12('r12-nocredit-off');
    expect(l.seen).toMatchObject({ 'cmi.core.entry': 'ab-initio', 'cmi.core.lesson_location': '', 'cmi.core.lesson_status': 'not attempted', 'cmi.core.credit': 'credit' });
    await finish12(l.page, { 'cmi.core.lesson_status': 'failed', 'cmi.core.score.raw': '20', 'cmi.core.score.max': '100', 'cmi.core.score.min': '0' });
    const p = await waitFor(() => progress('r12-nocredit-off'), (v) => v.registrationSuccess === 'FAILED');
    expect(p).toMatchObject({ registrationSuccess: 'FAILED', score: { scaled: 0.2 } });
  });
});
