import { BrowserContext, Frame, Page } from 'playwright-core';
import { importCourse } from '../support/courses';
import { activityLines, ActivityNode, deliveredFrame, expectNavUi, openPage, playerTestBed, reportData, scoPackage, waitFor } from '../support/player';
import { coursePackage, leaf, PASSED } from '../support/sequencing-player';
import { call, TestServer } from '../support/test-server';

/**
 * PlayerRollupRuntimeAtScoUnload, PlayerInvokeRollupAtSuspendAll and PlayerAlwaysFlowToFirstSco on generated
 * packages: when the registration's status is rolled up from what a SCO reports (each commit; NO: the next
 * navigation request or the session's end), whether a suspend all rolls up, and what a course whose rules start
 * nowhere shows (the first activity; NO: the table of contents, nothing delivered). The API reports only what the
 * learner reached.
 */
/** b contributes nothing to the rollup: the course is completed and passed by a alone. */
const SILENT = '<imsss:rollupRules rollupObjectiveSatisfied="false" rollupProgressCompletion="false" objectiveMeasureWeight="0"/>';
const COURSE = leaf('a') + leaf('b', SILENT);
const CHOICE_ONLY = '<imsss:controlMode choice="true" flow="false"/>';
const SCORED = { ...PASSED, 'cmi.score.scaled': '0.8' };

interface Progress {
  registrationCompletion: string;
  registrationSuccess: string;
  activityDetails: ActivityNode;
}

describe('player: when the registration rolls up (PlayerRollupRuntimeAtScoUnload, PlayerInvokeRollupAtSuspendAll) and where a course starts (PlayerAlwaysFlowToFirstSco)', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  let n = 0;
  const { createReg, link, progress } = playerTestBed({ id: 'rollup-settings', firstName: 'Ada', lastName: 'Lovelace' }, (bed) => ({ s, app, context } = bed));

  /** Imports `data` as a new course, registers the learner with `settings` on the registration. */
  const register = async (data: Buffer, settings: Record<string, string>): Promise<string> => {
    const id = `rollup-${++n}`;
    await importCourse(s.api, app, id, { name: `${id}.zip`, data, type: 'application/zip' });
    await createReg(id, id);
    if (Object.keys(settings).length) {
      const set = await call(`${s.api}/registrations/${id}/configuration`, { method: 'POST', auth: app, json: { settings: Object.entries(settings).map(([settingId, value]) => ({ settingId, value })) } });
      expect(set.status).toBe(204);
    }
    return id;
  };
  const open = async (reg: string): Promise<Page> => openPage(context, await link(reg));
  /** The registration as GET /registrations/{id} reports it: its status and every activity's "attempts completion success [score]". */
  const status = async (reg: string): Promise<{ registration: string; activities: Record<string, string> }> => {
    const p = (await progress(reg)) as Progress;
    return { registration: `${p.registrationCompletion} ${p.registrationSuccess}`, activities: activityLines(p) };
  };
  const terminate = (page: Page, frame: Frame) =>
    frame.evaluate('API.Terminate("")').then(() => waitFor(() => page.evaluate<{ pending: boolean; sending: boolean }>('window.lcdsPlayer.state()'), (st) => !st.pending && !st.sending));
  const click = (page: Page, name: string) => page.getByRole('button', { name, exact: true }).click();

  describe('PlayerRollupRuntimeAtScoUnload', () => {
    it('YES (default): the SCO that terminates rolls the registration up at once', async () => {
      const reg = await register(await coursePackage(COURSE), {});
      const page = await open(reg);
      const a = await deliveredFrame(page, 'a');
      await reportData(page, a, SCORED);
      await terminate(page, a);
      expect(await status(reg)).toEqual({ registration: 'COMPLETED PASSED', activities: { ORG: '1 COMPLETED PASSED 0.8', a: '1 COMPLETED PASSED 0.8', b: '0 UNKNOWN UNKNOWN' } });
      await page.close();
    });

    it('NO: the SCO that terminates keeps its own status; the registration rolls up at the next navigation request', async () => {
      const reg = await register(await coursePackage(COURSE), { PlayerRollupRuntimeAtScoUnload: 'NO' });
      const page = await open(reg);
      const a = await deliveredFrame(page, 'a');
      await reportData(page, a, SCORED);
      await terminate(page, a);
      // The lesson is done; the course is started, not yet rolled up (no status the rollup has not given it).
      expect(await status(reg)).toEqual({ registration: 'INCOMPLETE UNKNOWN', activities: { ORG: '1 INCOMPLETE UNKNOWN', a: '1 COMPLETED PASSED 0.8', b: '0 UNKNOWN UNKNOWN' } });
      await click(page, 'Continue');
      await deliveredFrame(page, 'b');
      expect(await status(reg)).toEqual({ registration: 'COMPLETED PASSED', activities: { ORG: '1 COMPLETED PASSED 0.8', a: '1 COMPLETED PASSED 0.8', b: '1 UNKNOWN UNKNOWN' } });
      await page.close();
    });

    it('NO: a session that ends without a navigation request (the learner leaves) rolls the registration up as it ends', async () => {
      const reg = await register(await coursePackage(COURSE), { PlayerRollupRuntimeAtScoUnload: 'NO' });
      const page = await open(reg);
      const a = await deliveredFrame(page, 'a');
      await reportData(page, a, SCORED);
      expect((await status(reg)).registration).toBe('INCOMPLETE UNKNOWN');
      // The tab goes away mid-lesson: the page's last commit ends the session.
      await page.goto('about:blank');
      expect(await waitFor(() => status(reg), (st) => st.registration !== 'INCOMPLETE UNKNOWN')).toEqual({
        registration: 'COMPLETED PASSED',
        activities: { ORG: '1 COMPLETED PASSED 0.8', a: '1 COMPLETED PASSED 0.8', b: '0 UNKNOWN UNKNOWN' },
      });
      await page.close();
    });

    it('SCORM 1.2, NO: LMSCommit leaves the course as it was; the SCO that finishes the one-SCO course (its exit action sees it satisfied) rolls it up as the session ends', async () => {
      const reg = await register(await scoPackage('1.2', 'API.LMSInitialize(""); window.ready = true; window.finish = function () { API.LMSFinish(""); };'), {
        PlayerRollupRuntimeAtScoUnload: 'NO',
        // The exit action sees the course as the rollup will leave it (satisfied: it leaves; not: this message).
        PlayerFinalScoCourseNotSatisfiedNormalExitAction: 'DISPLAY_MESSAGE',
      });
      const page = await open(reg);
      const frame = (await waitFor(async () => (await page.$('#lcds-sco'))?.contentFrame() ?? null, (f) => f !== null && /index\.html/.test(f.url())))!;
      await waitFor(() => frame.evaluate('window.ready === true').catch(() => false), (v) => v === true);
      await frame.evaluate('API.LMSSetValue("cmi.core.lesson_status", "passed"); API.LMSSetValue("cmi.core.score.raw", "90"); API.LMSCommit("")');
      await waitFor(() => page.evaluate<{ pending: boolean; sending: boolean; seq: number }>('window.lcdsPlayer.state()'), (st) => st.seq > 0 && !st.pending && !st.sending);
      const during = await status(reg);
      expect(during.activities['sco-1']).toBe('1 COMPLETED PASSED 0.9');
      expect(during.registration).not.toMatch(/COMPLETED|PASSED/);
      await frame.evaluate('window.finish()');
      await page.locator('#lcds-done').waitFor({ state: 'visible' });
      expect((await waitFor(() => status(reg), (st) => st.registration === 'COMPLETED PASSED')).registration).toBe('COMPLETED PASSED');
      await page.close();
    });
  });

  describe('PlayerInvokeRollupAtSuspendAll (with PlayerRollupRuntimeAtScoUnload NO: the commits leave the rollup to the sequencer)', () => {
    it.each([
      { value: 'YES', registration: 'COMPLETED PASSED', org: '1 COMPLETED PASSED 0.8' },
      { value: 'NO', registration: 'INCOMPLETE UNKNOWN', org: '1 INCOMPLETE UNKNOWN' },
    ])('$value: after Suspend All the registration is $registration; resumed and finished, it rolls up', async ({ value, registration, org }) => {
      const reg = await register(await coursePackage(COURSE), { PlayerRollupRuntimeAtScoUnload: 'NO', PlayerInvokeRollupAtSuspendAll: value });
      const page = await open(reg);
      const a = await deliveredFrame(page, 'a');
      await reportData(page, a, { ...SCORED, 'cmi.exit': 'suspend' });
      await click(page, 'Suspend');
      await page.locator('#lcds-done').waitFor({ state: 'visible' });
      expect(await status(reg)).toEqual({ registration, activities: { ORG: org, a: '1 COMPLETED PASSED 0.8', b: '0 UNKNOWN UNKNOWN' } });
      await page.close();

      // The next launch resumes a; Continue ends its attempt (rollup), b runs, Exit ends the course.
      const again = await open(reg);
      const resumed = await deliveredFrame(again, 'a');
      expect(await resumed.evaluate('API.GetValue("cmi.entry")')).toBe('resume');
      await click(again, 'Continue');
      const b = await deliveredFrame(again, 'b');
      await reportData(again, b, { 'cmi.completion_status': 'completed' });
      await click(again, 'Exit');
      await again.locator('#lcds-done').waitFor({ state: 'visible' });
      expect(await status(reg)).toEqual({ registration: 'COMPLETED PASSED', activities: { ORG: '1 COMPLETED PASSED 0.8', a: '1 COMPLETED PASSED 0.8', b: '1 COMPLETED PASSED' } });
      await again.close();
    });
  });

  describe('PlayerAlwaysFlowToFirstSco on a course whose rules start nowhere (flow off at the root, choice on)', () => {
    it('YES (default): the first lesson is delivered', async () => {
      const reg = await register(await coursePackage(COURSE, CHOICE_ONLY), {});
      const page = await open(reg);
      await deliveredFrame(page, 'a');
      expect((await status(reg)).activities.a).toBe('1 UNKNOWN UNKNOWN');
      await page.close();
    });

    it('a course preview follows the course’s NO: the learner chooses there too', async () => {
      const id = await register(await coursePackage(COURSE, CHOICE_ONLY), {});
      const set = await call(`${s.api}/courses/${id}/configuration`, { method: 'POST', auth: app, json: { settings: [{ settingId: 'PlayerAlwaysFlowToFirstSco', value: 'NO' }] } });
      expect(set.status).toBe(204);
      const r = await call(`${s.api}/courses/${id}/preview`, { method: 'POST', auth: app, json: {} });
      const page = await openPage(context, r.body.launchLink as string);
      await page.locator('#lcds-closed').filter({ hasText: 'Choose a lesson' }).waitFor({ state: 'visible' });
      await page.locator('#lcds-toc .lcds-item[data-id="b"]').click();
      await deliveredFrame(page, 'b');
      await page.close();
    });

    it('NO: nothing is delivered; the page asks the learner to choose, the API reports nothing reached; the chosen lesson runs', async () => {
      // With the other two NO as well: nothing the learner did not reach is reported at any point.
      const reg = await register(await coursePackage(COURSE, CHOICE_ONLY), { PlayerAlwaysFlowToFirstSco: 'NO', PlayerRollupRuntimeAtScoUnload: 'NO', PlayerInvokeRollupAtSuspendAll: 'NO' });
      const page = await open(reg);
      await page.locator('#lcds-closed').filter({ hasText: 'Choose a lesson in the table of contents to begin.' }).waitFor({ state: 'visible' });
      await expectNavUi(page, { choice: ['a', 'b'], buttons: [] });
      expect(await page.evaluate(() => document.querySelector<HTMLIFrameElement>('#lcds-sco')!.getAttribute('src'))).toBeNull();
      expect(await status(reg)).toEqual({ registration: 'UNKNOWN UNKNOWN', activities: { ORG: '0 UNKNOWN UNKNOWN', a: '0 UNKNOWN UNKNOWN', b: '0 UNKNOWN UNKNOWN' } });

      await page.locator('#lcds-toc .lcds-item[data-id="b"]').click();
      const b = await deliveredFrame(page, 'b');
      expect(await page.locator('#lcds-closed').isVisible()).toBe(false);
      await reportData(page, b, { 'cmi.completion_status': 'completed', 'cmi.exit': 'suspend' });
      expect(await status(reg)).toEqual({ registration: 'INCOMPLETE UNKNOWN', activities: { ORG: '1 INCOMPLETE UNKNOWN', a: '0 UNKNOWN UNKNOWN', b: '1 COMPLETED UNKNOWN' } });
      await click(page, 'Suspend');
      await page.locator('#lcds-done').waitFor({ state: 'visible' });
      expect(await status(reg)).toEqual({ registration: 'INCOMPLETE UNKNOWN', activities: { ORG: '1 INCOMPLETE UNKNOWN', a: '0 UNKNOWN UNKNOWN', b: '1 COMPLETED UNKNOWN' } });
      await page.close();
    });
  });
});
