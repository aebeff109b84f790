import { BrowserContext, Frame, Page } from 'playwright-core';
import { activityLines, ActivityNode, expectNavUi, openPage, playerTestBed, waitFor } from '../support/player';
import { at, click, cluster, done, FLOW, leaf, leave, openCourse, PASSED, report, rule, rules, valid } from '../support/sequencing-player';
import { TestServer } from '../support/test-server';

/**
 * SCORM 2004 sequencing rule families, each in a generated 4th edition package whose items all launch one stand-in SCO
 * (sco.html?id=<item>): it initialises and waits; the test sets its data model, its adl.nav.request and terminates it
 * through the page's API, or presses the player's buttons. The server's engine decides every delivery; the test
 * asserts the path, the navigation UI at each step, and the registration's activityDetails.
 */
/** id → "attempts completion success [score]" of every activity, the root (ORG) included. */
const details = (p: { activityDetails: ActivityNode }) => activityLines(p);

describe('player: SCORM 2004 sequencing rules in generated packages (server-side engine)', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  let n = 0;

  /** Imports a package, registers the learner and opens the player; returns the page and the registration id. */
  const regs = playerTestBed({ id: 'seq-rules', firstName: 'Ada', lastName: 'Lovelace' }, (bed) => ({ s, app, context } = bed));
  const { link, progress } = regs;
  /** Imports a package, registers the learner and opens the player; returns the page and the registration id. */
  const start = async (orgBody: string, orgSeq?: string): Promise<{ page: Page; reg: string }> => {
    const id = `rules-${++n}`;
    return { page: await openCourse({ s, app, context }, regs, id, orgBody, orgSeq), reg: id };
  };

  it('control modes: choice off at the root, flow, forwardOnly and choiceExit="false" in a cluster', async () => {
    const inner = '<imsss:controlMode choice="true" flow="true" forwardOnly="true" choiceExit="false"/>';
    const { page, reg } = await start(cluster('C', leaf('a') + leaf('b'), inner) + leaf('c'), '<imsss:controlMode choice="false" flow="true"/>');
    // Start flows into the cluster. The root allows no choice (c may not be chosen); the cluster allows it among a and b.
    const a = await at(page, 'a');
    await expectNavUi(page, { choice: ['a', 'b'], buttons: ['Continue', 'Exit', 'Suspend'] });
    expect(await valid(page, 'continue')).toBe('true');
    expect(await valid(page, 'previous')).toBe('false');
    await report(page, a, PASSED);
    await click(page, 'Continue');
    const b = await at(page, 'b');
    // forwardOnly: no Previous inside the cluster, and no choice backwards to a.
    await expectNavUi(page, { choice: ['b'], buttons: ['Continue', 'Exit', 'Suspend'] });
    expect(await valid(page, 'previous')).toBe('false');
    // A choice out of the cluster is refused (choiceExit="false", and choice is off at the root anyway).
    await leave(b, '{target=c}choice');
    await page.locator('#lcds-message').filter({ hasText: 'not available' }).waitFor();
    // The refused request ended nothing: b runs again. Continue leaves the cluster for c, where Previous is valid again.
    await at(page, 'b');
    await click(page, 'Continue');
    await at(page, 'c');
    // Outside the cluster: its children may be chosen again (choice is checked at the target's parent, the cluster).
    await expectNavUi(page, { choice: ['a', 'b'], buttons: ['Previous', 'Continue', 'Exit', 'Suspend'] });
    await click(page, 'Exit');
    await done(page);
    expect(details(await progress(reg))).toMatchObject({ a: '1 COMPLETED PASSED', b: '1 COMPLETED PASSED', c: '1 COMPLETED PASSED' });
    await page.close();
  });

  it('precondition rules (skip, disabled, hiddenFromChoice) and a limit condition (attemptLimit)', async () => {
    const { page, reg } = await start(
      leaf('a', '<imsss:limitConditions attemptLimit="1"/>') +
        leaf('b', rules(rule('pre', 'always', 'skip'))) +
        leaf('c', rules(rule('pre', 'always', 'hiddenFromChoice'))) +
        leaf('d', rules(rule('pre', 'always', 'disabled'))),
    );
    const a = await at(page, 'a');
    // c is hidden from choice and d disabled: neither may be chosen; b (skipped by flow only) may; a has used its
    // only attempt (attemptLimit 1), so it may not be chosen again either.
    await expectNavUi(page, { choice: ['b'], buttons: ['Continue', 'Exit', 'Suspend'] });
    expect(await valid(page, 'choice.{target=d}')).toBe('false');
    expect(await valid(page, 'choice.{target=c}')).toBe('false');
    expect(await valid(page, 'choice.{target=b}')).toBe('true');
    await report(page, a, { 'cmi.completion_status': 'completed' });
    // Continue skips b and delivers c (hidden from choice, not from flow).
    await click(page, 'Continue');
    await at(page, 'c');
    // Previous is not offered: b is skipped, a is over its attempt limit. Nor is Continue: it would flow into d, disabled.
    await expectNavUi(page, { choice: ['b'], buttons: ['Exit', 'Suspend'] });
    await page.locator('#lcds-toc .lcds-item[data-id="b"]').click();
    await at(page, 'b');
    // c reported nothing: its ended attempt completed it (completionSetByContent false), and the table of contents says so.
    expect(await page.locator('#lcds-toc .lcds-item[data-id="c"]').getAttribute('data-completion')).toBe('COMPLETED');
    await click(page, 'Exit');
    await done(page);
    const p = await progress(reg);
    // No SCO reported success: with objectiveSetByContent false (the default) an ended attempt satisfies the activity;
    // b and c reported nothing, so completionSetByContent false completes them too. d was never delivered.
    expect(details(p)).toMatchObject({ a: '1 COMPLETED PASSED', b: '1 COMPLETED PASSED', c: '1 COMPLETED PASSED', d: '0 UNKNOWN UNKNOWN' });
    await page.close();
  });

  it('post-condition rules (retry, exitAll) and exit condition rules', async () => {
    const { page, reg } = await start(
      leaf('a', rules(rule('post', 'satisfied', 'retry', ' operator="not"'))) +
        cluster(
          'C',
          leaf('c1') + leaf('c2'),
          FLOW +
            rules(rule('exit', 'satisfied', 'exit')) +
            '<imsss:rollupRules><imsss:rollupRule childActivitySet="any"><imsss:rollupConditions><imsss:rollupCondition condition="satisfied"/></imsss:rollupConditions><imsss:rollupAction action="satisfied"/></imsss:rollupRule></imsss:rollupRules>',
        ) +
        leaf('z', rules(rule('post', 'satisfied', 'exitAll'))),
    );
    // a failed: its post condition retries it (a second attempt) whatever the SCO asked for.
    let a = await at(page, 'a');
    await report(page, a, { 'cmi.completion_status': 'completed', 'cmi.success_status': 'failed' });
    await leave(a, 'continue');
    await waitFor(() => progress(reg), (p) => details(p).a?.startsWith('2 '));
    a = await at(page, 'a');
    await report(page, a, PASSED);
    await leave(a, 'continue');
    // c1 passed satisfies the cluster (any child): its exit condition exits it, and continue skips c2 for z.
    const c1 = await at(page, 'c1');
    await report(page, c1, PASSED);
    await leave(c1, 'continue');
    const z = await at(page, 'z');
    // z passed: its post condition exits all, though the SCO asked for continue: the session ends.
    await report(page, z, PASSED);
    await leave(z, 'continue');
    await done(page);
    const p = await progress(reg);
    // The cluster is satisfied by its rule; its completion waits for c2 (attempted: reported incomplete).
    expect(details(p)).toMatchObject({ a: '2 COMPLETED PASSED', C: '1 INCOMPLETE PASSED', c1: '1 COMPLETED PASSED', c2: '0 UNKNOWN UNKNOWN', z: '1 COMPLETED PASSED' });
    await page.close();
  });

  it('rollup rules and rollup controls: any satisfied child satisfies the course; measure weights make its score', async () => {
    const { page, reg } = await start(
      leaf('a') + leaf('b', '<imsss:rollupRules objectiveMeasureWeight="0" rollupProgressCompletion="false"/>') + leaf('c', '<imsss:rollupRules rollupObjectiveSatisfied="false"/>'),
      FLOW +
        '<imsss:rollupRules><imsss:rollupRule childActivitySet="any"><imsss:rollupConditions><imsss:rollupCondition condition="satisfied"/></imsss:rollupConditions><imsss:rollupAction action="satisfied"/></imsss:rollupRule>' +
        '<imsss:rollupRule childActivitySet="atLeastCount" minimumCount="2"><imsss:rollupConditions><imsss:rollupCondition condition="completed"/></imsss:rollupConditions><imsss:rollupAction action="completed"/></imsss:rollupRule></imsss:rollupRules>',
    );
    const a = await at(page, 'a');
    await report(page, a, { ...PASSED, 'cmi.score.scaled': '0.6' });
    let p = await progress(reg);
    // One satisfied child satisfies the course; one completed child of the two required does not complete it. The
    // score is weighted over the children that roll up (a: 1, b: 0; c does not contribute to satisfaction).
    expect({ c: p.registrationCompletion, s: p.registrationSuccess, score: p.score?.scaled }).toEqual({ c: 'INCOMPLETE', s: 'PASSED', score: 0.6 });
    await click(page, 'Continue');
    const b = await at(page, 'b');
    // b weighs nothing in the score and does not count for completion (rollupProgressCompletion="false").
    await report(page, b, { 'cmi.completion_status': 'completed', 'cmi.success_status': 'failed', 'cmi.score.scaled': '0' });
    p = await progress(reg);
    expect({ c: p.registrationCompletion, s: p.registrationSuccess, score: p.score?.scaled }).toEqual({ c: 'INCOMPLETE', s: 'PASSED', score: 0.6 });
    await click(page, 'Continue');
    const c = await at(page, 'c');
    await report(page, c, { 'cmi.completion_status': 'completed', 'cmi.success_status': 'failed', 'cmi.score.scaled': '0.9' });
    p = await progress(reg);
    // c completes the second counted child; its failure and score do not roll up (rollupObjectiveSatisfied="false").
    expect({ c: p.registrationCompletion, s: p.registrationSuccess, score: p.score?.scaled }).toEqual({ c: 'COMPLETED', s: 'PASSED', score: 0.6 });
    expect(details(p)).toMatchObject({ ORG: '1 COMPLETED PASSED 0.6', a: '1 COMPLETED PASSED 0.6', b: '1 COMPLETED FAILED 0', c: '1 COMPLETED FAILED 0.9' });
    await click(page, 'Exit');
    await done(page);
    await page.close();
  });

  it('global shared objectives across two SCOs; suspend all, then resume all in a new launch; choice, jump and exitAll from the SCO', async () => {
    const shared = (id: string, read: boolean, write: boolean) =>
      `<imsss:objectives><imsss:primaryObjective objectiveID="${id}-own">${write ? `<imsss:mapInfo targetObjectiveID="g.shared" writeSatisfiedStatus="true" readSatisfiedStatus="false"/>` : ''}</imsss:primaryObjective>${
        read ? `<imsss:objective objectiveID="from-a"><imsss:mapInfo targetObjectiveID="g.shared" readSatisfiedStatus="true" writeSatisfiedStatus="false"/></imsss:objective>` : ''
      }</imsss:objectives>`;
    const { page, reg } = await start(leaf('a', shared('a', false, true)) + leaf('b', shared('b', true, false)) + leaf('c'));
    const a = await at(page, 'a');
    await report(page, a, PASSED);
    // The SCO chooses b: b starts with the shared objective a wrote, read through its map.
    await leave(a, '{target=b}choice');
    const b = await at(page, 'b');
    const objective = (f: Frame, id: string) =>
      f.evaluate((oid) => {
        const api = (window as unknown as { API: { GetValue(k: string): string } }).API;
        for (let i = 0; i < Number(api.GetValue('cmi.objectives._count')); i++) if (api.GetValue(`cmi.objectives.${i}.id`) === oid) return api.GetValue(`cmi.objectives.${i}.success_status`);
        return 'missing';
      }, id);
    expect(await objective(b, 'from-a')).toBe('passed');
    expect(await objective(b, 'b-own')).toBe('unknown');
    // Suspend all from the player: the session ends; a new launch resumes b (cmi.entry resume) without a new attempt.
    await report(page, b, { 'cmi.completion_status': 'incomplete', 'cmi.location': 'p2' });
    await click(page, 'Suspend');
    await done(page);
    await page.close();
    let p = await progress(reg);
    expect(details(p)).toMatchObject({ a: '1 COMPLETED PASSED', b: '1 INCOMPLETE UNKNOWN' });
    expect(p.activityDetails.suspended).toBe(true);

    const again = await openPage(context, await link(reg));
    const b2 = await at(again, 'b');
    expect(await b2.evaluate(() => (window as unknown as { API: { GetValue(k: string): string } }).API.GetValue('cmi.entry'))).toBe('resume');
    expect(await b2.evaluate(() => (window as unknown as { API: { GetValue(k: string): string } }).API.GetValue('cmi.location'))).toBe('p2');
    expect(await objective(b2, 'from-a')).toBe('passed');
    await report(again, b2, PASSED);
    // A jump (4th edition) from the SCO back to a, then exitAll from a ends the session.
    await leave(b2, '{target=a}jump');
    const a2 = await at(again, 'a');
    await leave(a2, 'exitAll');
    await done(again);
    p = await progress(reg);
    expect(details(p)).toMatchObject({ a: '2 COMPLETED PASSED', b: '1 COMPLETED PASSED', c: '0 UNKNOWN UNKNOWN' });
    expect(p.activityDetails.suspended).toBe(false);
    await again.close();
  });
  it('adlnav:hideLMSUI hides the listed buttons while that SCO runs; the SCO may still make the requests', async () => {
    const hide = (...names: string[]) =>
      `<adlnav:presentation><adlnav:navigationInterface>${names.map((x) => `<adlnav:hideLMSUI>${x}</adlnav:hideLMSUI>`).join('')}</adlnav:navigationInterface></adlnav:presentation>`;
    const item = (id: string, extra: string) => `<item identifier="${id}" identifierref="R" parameters="?id=${id}"><title>${id}</title>${extra}</item>`;
    const { page } = await start(item('a', hide('continue', 'suspendAll')) + item('b', hide('previous', 'exit')) + leaf('c'));
    const a = await at(page, 'a');
    await expectNavUi(page, { choice: ['a', 'b', 'c'], buttons: ['Exit'] });
    expect(await valid(page, 'continue')).toBe('true');
    await leave(a, 'continue');
    await at(page, 'b');
    await expectNavUi(page, { choice: ['a', 'b', 'c'], buttons: ['Continue', 'Suspend'] });
    await click(page, 'Continue');
    await at(page, 'c');
    // An activity without hideLMSUI shows every valid button again.
    await expectNavUi(page, { choice: ['a', 'b', 'c'], buttons: ['Previous', 'Continue', 'Exit', 'Suspend'] });
    await click(page, 'Exit');
    await done(page);
    await page.close();
  });
  it('adl.data: a SCO writes a shared data bucket, another reads it; the store outlives the session', async () => {
    const shared = (...maps: string[]) => `<adlcp:data>${maps.join('')}</adlcp:data>`;
    const map = (target: string, read: boolean, write: boolean) => `<adlcp:map targetID="${target}" readSharedData="${read}" writeSharedData="${write}"/>`;
    const item = (id: string, extra: string) => `<item identifier="${id}" identifierref="R" parameters="?id=${id}"><title>${id}</title>${extra}</item>`;
    const { page, reg } = await start(item('a', shared(map('notes', true, true))) + item('b', shared(map('other', true, true), map('notes', true, false))));
    type Api = { GetValue(k: string): string; SetValue(k: string, x: string): string; GetLastError(): string };
    const get = (f: Frame, k: string) => f.evaluate((key) => (window as unknown as { API: Api }).API.GetValue(key), k);
    const a = await at(page, 'a');
    expect(await get(a, 'adl.data._count')).toBe('1');
    expect(await get(a, 'adl.data.0.id')).toBe('notes');
    await report(page, a, { 'adl.data.0.store': 'written by a' });
    await leave(a, 'continue');
    const b = await at(page, 'b');
    expect(await get(b, 'adl.data._count')).toBe('2');
    expect(await get(b, 'adl.data.1.id')).toBe('notes');
    expect(await get(b, 'adl.data.1.store')).toBe('written by a');
    // b may not write "notes" (writeSharedData="false"): scorm-again refuses the SetValue.
    expect(await b.evaluate(() => (window as unknown as { API: Api }).API.SetValue('adl.data.1.store', 'b'))).toBe('false');
    await report(page, b, { 'adl.data.0.store': 'b was here' });
    await click(page, 'Suspend');
    await done(page);
    await page.close();
    // A new launch: the stores come from the registration, not from the browser.
    const again = await openPage(context, await link(reg));
    const b2 = await at(again, 'b');
    expect(await get(b2, 'adl.data.0.store')).toBe('b was here');
    expect(await get(b2, 'adl.data.1.store')).toBe('written by a');
    await again.close();
  });
});
