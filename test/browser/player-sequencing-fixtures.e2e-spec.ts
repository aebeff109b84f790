import { BrowserContext, Frame, Page } from 'playwright-core';
import { fixture, importCourse } from '../support/courses';
import { activityLines, ActivityNode, expectNavUi, openPage, playerTestBed, waitFor } from '../support/player';
import { TestServer } from '../support/test-server';

/**
 * The three SCORM 2004 sequencing examples (Rustici golf samples) played in chromium through the server's sequencing
 * engine: which SCO each navigation delivers, what the table of contents and the buttons offer at each step, and the
 * registration's activityDetails after each step. The golf SCOs complete (and, without a test, pass) when their last
 * page is reached, and always leave with cmi.exit = suspend.
 */
const CONTENT: Array<[string, string, number]> = [
  ['playing_item', 'content=playing', 5],
  ['etuqiette_item', 'content=etiquette', 3],
  ['handicapping_item', 'content=handicapping', 4],
  ['havingfun_item', 'content=havingfun', 2],
];
const ALL = [...CONTENT.map((c) => c[0]), 'assessment_item'];

/** id → "attempts completion success [score]" of every SCO. */
const details = (p: { activityDetails: ActivityNode }) => activityLines(p, true);

describe('player: SCORM 2004 sequencing of the golf examples (server-side engine)', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const { createReg, link, progress } = playerTestBed({ id: 'seq-golfer', firstName: 'Bobby', lastName: 'Jones' }, (bed) => ({ s, app, context } = bed), async () => {
    for (const f of ['scorm2004-3rd-golf-seq-forced-sequential', 'scorm2004-3rd-golf-seq-posttest-rollup', 'scorm2004-4th-golf-seq-posttest-rollup']) await importCourse(s.api, app, f, fixture(`${f}.zip`));
    // The 4th edition example loads jQuery and jQuery UI from Google's CDN, out of reach here: a stub with the calls it makes.
    await context.route('https://ajax.googleapis.com/**', (route) =>
      route.fulfill({
        contentType: 'text/javascript',
        body: route.request().url().includes('jqueryui') ? '' : 'window.jQuery = window.$ = function () { var o = { dialog: function () { return o; }, val: function () { return ""; } }; return o; };',
      }),
    );
  });

  /** The SCO frame once it shows content whose URL contains `part` (and the SCO initialised). */
  const sco = async (page: Page, part: string): Promise<Frame> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const f = (await (await page.$('#lcds-sco'))?.contentFrame()) ?? null;
      if (f && f.url().includes(part)) {
        await f.waitForLoadState('load');
        await waitFor(() => page.evaluate('window.API_1484_11.currentState'), (v) => v === 1);
        return f;
      }
      if (Date.now() > deadline) throw new Error(`the SCO frame never showed ${part} (it shows ${f?.url()})`);
      await page.waitForTimeout(50);
    }
  };
  /** Pages through a golf SCO to its last page (which completes it) and waits for the commit to be applied. */
  const finishSco = async (page: Page, frame: Frame, pages: number) => {
    for (let i = 1; i < pages; i++) await frame.locator('#butNext').click();
    await waitFor(() => page.evaluate<{ pending: boolean; sending: boolean }>('window.lcdsPlayer.state()'), (st) => !st.pending && !st.sending);
  };
  const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });
  const eventually = async (registrationId: string, ok: (p: any) => boolean) => waitFor(() => progress(registrationId), ok);

  it('forced sequential order: each SCO opens once the previous one is satisfied; Continue, Previous, a choice back, Exit', async () => {
    const reg = 'fs';
    await createReg(reg, 'scorm2004-3rd-golf-seq-forced-sequential');
    const page = await openPage(context, await link(reg));
    let frame = await sco(page, 'content=playing');
    // Only the first SCO may be chosen; Continue is not offered: it would flow into the next SCO, disabled until this
    // one is satisfied (the lookahead, PlayerLookaheadSequencerMode REALTIME by default).
    await expectNavUi(page, { choice: ['playing_item'], buttons: ['Exit', 'Suspend'] });
    // The SCO set incomplete as it started: commit it now rather than wait for the autocommit.
    await page.evaluate('window.API_1484_11.Commit("")');
    let p = await eventually(reg, (v) => details(v).playing_item === '1 INCOMPLETE UNKNOWN');
    expect(details(p)).toEqual({ playing_item: '1 INCOMPLETE UNKNOWN', etuqiette_item: '0 UNKNOWN UNKNOWN', handicapping_item: '0 UNKNOWN UNKNOWN', havingfun_item: '0 UNKNOWN UNKNOWN', assessment_item: '0 UNKNOWN UNKNOWN' });
    expect(p.registrationCompletion).toBe('INCOMPLETE');

    // The last page completes and passes the SCO: its global objective opens the next one (after the commit).
    await finishSco(page, frame, 5);
    await expectNavUi(page, { choice: ['playing_item', 'etuqiette_item'], buttons: ['Continue', 'Exit', 'Suspend'] });
    p = await eventually(reg, (v) => details(v).playing_item === '1 COMPLETED PASSED');
    expect(details(p).playing_item).toBe('1 COMPLETED PASSED');

    await button(page, 'Continue').click();
    frame = await sco(page, 'content=etiquette');
    // Continue waits for this SCO too.
    await expectNavUi(page, { choice: ['playing_item', 'etuqiette_item'], buttons: ['Previous', 'Exit', 'Suspend'] });
    p = await progress(reg);
    expect(details(p).playing_item).toBe('1 COMPLETED PASSED');
    // Its first attempt began (its "incomplete" arrives with the next commit).
    expect(details(p).etuqiette_item).toMatch(/^1 (UNKNOWN|INCOMPLETE) UNKNOWN$/);

    // Previous goes back to the first SCO (it left suspended: the same attempt resumes); a choice returns.
    await button(page, 'Previous').click();
    await sco(page, 'content=playing');
    await expectNavUi(page, { choice: ['playing_item', 'etuqiette_item'], buttons: ['Continue', 'Exit', 'Suspend'] });
    await page.locator('#lcds-toc .lcds-item[data-id="etuqiette_item"]').click();
    frame = await sco(page, 'content=etiquette');
    expect(await page.locator('#lcds-toc .lcds-item[data-id="etuqiette_item"]').getAttribute('aria-current')).toBe('step');

    // Through the rest in order; the quiz opens once "Having Fun" is satisfied.
    await finishSco(page, frame, 3);
    await button(page, 'Continue').click();
    frame = await sco(page, 'content=handicapping');
    await finishSco(page, frame, 4);
    await button(page, 'Continue').click();
    frame = await sco(page, 'content=havingfun');
    await expectNavUi(page, { choice: ['playing_item', 'etuqiette_item', 'handicapping_item', 'havingfun_item'], buttons: ['Previous', 'Exit', 'Suspend'] });
    await finishSco(page, frame, 2);
    await expectNavUi(page, { choice: ALL, buttons: ['Previous', 'Continue', 'Exit', 'Suspend'] });
    await button(page, 'Continue').click();
    await sco(page, 'content=assessment');
    // The quiz reports completed with its first commit, which may land after its frame shows.
    p = await eventually(reg, (v) => details(v).assessment_item === '1 COMPLETED UNKNOWN');
    expect(details(p)).toEqual({
      playing_item: '1 COMPLETED PASSED',
      etuqiette_item: '1 COMPLETED PASSED',
      handicapping_item: '1 COMPLETED PASSED',
      havingfun_item: '1 COMPLETED PASSED',
      assessment_item: '1 COMPLETED UNKNOWN',
    });
    // The quiz reports completed as it opens: every SCO is complete, the quiz is not passed yet.
    expect({ c: p.registrationCompletion, s: p.registrationSuccess }).toEqual({ c: 'COMPLETED', s: 'UNKNOWN' });

    // Exit (exit all) ends the session: the player's exit page.
    await button(page, 'Exit').click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    await page.close();
  });

  it('post-test rollup (3rd edition): only the quiz counts; suspend all, then a new launch resumes at the quiz', async () => {
    const reg = 'pr3';
    await createReg(reg, 'scorm2004-3rd-golf-seq-posttest-rollup');
    let page = await openPage(context, await link(reg));
    for (const [id, part, pages] of CONTENT) {
      const frame = await sco(page, part);
      expect(await page.locator(`#lcds-toc .lcds-item[data-id="${id}"]`).getAttribute('aria-current')).toBe('step');
      await finishSco(page, frame, pages);
      await page.locator('#lcds-next:not([disabled])').waitFor();
      await button(page, 'Continue').click();
    }
    let frame = await sco(page, 'content=assessment');
    // Every content SCO passed, but none of them counts toward the course: it is not satisfied yet.
    let p = await progress(reg);
    expect(p.registrationSuccess).toBe('UNKNOWN');
    expect(p.activityDetails.activitySuccess).toBe('UNKNOWN');
    // The quiz, failed: the course is completed and failed, with the quiz's score (the content weighs 0).
    await frame.evaluate('RecordTest(50); ScormProcessCommit();');
    p = await eventually(reg, (v) => v.registrationSuccess === 'FAILED');
    expect({ c: p.registrationCompletion, s: p.registrationSuccess, score: p.score?.scaled }).toEqual({ c: 'COMPLETED', s: 'FAILED', score: 0.5 });
    expect(details(p).assessment_item).toBe('1 COMPLETED FAILED 0.5');

    // Suspend all: the player leaves; a new launch resumes the suspended quiz (not a new attempt).
    await button(page, 'Suspend').click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    await page.close();
    p = await progress(reg);
    expect(p.activityDetails.suspended).toBe(true);
    page = await openPage(context, await link(reg));
    frame = await sco(page, 'content=assessment');
    expect(await page.evaluate('window.API_1484_11.GetValue("cmi.entry")')).toBe('resume');
    await frame.evaluate('RecordTest(90); ScormProcessCommit();');
    p = await eventually(reg, (v) => v.registrationSuccess === 'PASSED');
    expect({ c: p.registrationCompletion, s: p.registrationSuccess, score: p.score?.scaled }).toEqual({ c: 'COMPLETED', s: 'PASSED', score: 0.9 });
    expect(details(p).assessment_item).toBe('1 COMPLETED PASSED 0.9');
    await button(page, 'Exit').click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    await page.close();
  });

  it('post-test rollup (4th edition): the quiz is hidden from choice until reached, and the SCO\'s jump request opens it', async () => {
    const reg = 'pr4';
    await createReg(reg, 'scorm2004-4th-golf-seq-posttest-rollup');
    const page = await openPage(context, await link(reg));
    const frame = await sco(page, 'content=playing');
    // No Continue: the next SCO is disabled until this one is completed.
    await expectNavUi(page, { choice: ['playing_item'], buttons: ['Exit', 'Suspend'] });
    // adl.nav.request_valid.jump answers from the server's valid requests.
    expect(await page.evaluate('window.API_1484_11.GetValue("adl.nav.request_valid.jump.{target=assessment_item}")')).toBe('true');
    expect(await page.evaluate('window.API_1484_11.GetValue("adl.nav.request_valid.choice.{target=assessment_item}")')).toBe('false');
    expect(await page.evaluate('window.API_1484_11.GetValue("adl.nav.request_valid.choice.{target=playing_item}")')).toBe('true');
    // "Skip to the Test": {target=assessment_item}jump at Terminate.
    await frame.locator('#butJump').click();
    const quiz = await sco(page, 'content=assessment');
    // The jump left "Playing" incomplete (its data kept: it exited suspended) and began the quiz's first attempt,
    // whose status the quiz reports with its first commit (the frame shows before that commit lands).
    let p = await eventually(reg, (v) => !/^1 UNKNOWN/.test(details(v).assessment_item ?? ''));
    expect(details(p).playing_item).toBe('1 INCOMPLETE UNKNOWN');
    expect(details(p).assessment_item).toMatch(/^1 (INCOMPLETE|COMPLETED) UNKNOWN$/);
    expect(p.registrationSuccess).toBe('UNKNOWN');
    await quiz.evaluate('RecordTest(80); ScormProcessCommit();');
    p = await eventually(reg, (v) => v.registrationSuccess === 'PASSED');
    expect({ s: p.registrationSuccess, score: p.score?.scaled }).toEqual({ s: 'PASSED', score: 0.8 });
    expect(details(p).assessment_item).toBe('1 COMPLETED PASSED 0.8');
    await button(page, 'Exit').click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    await page.close();
  });
});
