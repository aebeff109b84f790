import { Frame, Page } from 'playwright-core';
import { activityLines, PlayerBed, playerTestBed, waitFor } from '../support/player';
import { at, click, cluster, done, FLOW, leaf, openCourse, PASSED, report, rule, rules, runningItem } from '../support/sequencing-player';

/**
 * SCORM 2004 selection and randomization of children (SR.1, SR.2) and a skip precondition on the last activity, in
 * generated packages played in chromium: the order the learner meets the questions in, the table of contents, and
 * what the registration's progress reports.
 */
describe('player: SCORM 2004 randomized and selected children, skipped last activity', () => {
  let bed: PlayerBed;
  const regs = playerTestBed({ id: 'seq-random', firstName: 'Ada', lastName: 'Lovelace' }, (b) => (bed = b));
  const { progress } = regs;
  let courses = 0;
  /** Imports a package, registers the learner and opens the player; returns the page and the registration id. */
  const start = async (orgBody: string): Promise<{ page: Page; reg: string }> => {
    const id = `random-${++courses}`;
    return { page: await openCourse(bed, regs, id, orgBody), reg: id };
  };
  /** The next SCO the player runs (a new document, even when it is the same item again). */
  const next = async (page: Page): Promise<{ id: string; frame: Frame }> => {
    const item = await waitFor(
      async () => {
        const r = await runningItem(page);
        return r && !(await r.frame.evaluate('window.seen === true').catch(() => true)) ? r : undefined;
      },
      (r) => r !== undefined,
    );
    await item!.frame.evaluate('window.seen = true');
    return item!;
  };
  /** The table of contents' items, in the order the page shows them. */
  const toc = (page: Page) => page.$$eval('#lcds-toc .lcds-item', (els) => els.map((e) => (e as HTMLElement).dataset.id ?? ''));
  const FAILED = { 'cmi.completion_status': 'completed', 'cmi.success_status': 'failed' };
  const questions = ['q1', 'q2', 'q3', 'q4'];

  it('a post-test in random order on each new attempt (retried until passed): each attempt has its own order, kept for the attempt', async () => {
    // Once all four questions are completed the post-test exits; failed, it is retried (a new attempt).
    const { page, reg } = await start(
      cluster(
        'post',
        questions.map((q) => leaf(q)).join(''),
        FLOW + rules(rule('exit', 'completed', 'exit'), rule('post', 'satisfied', 'retry', ' operator="not"')) + '<imsss:randomizationControls reorderChildren="true" randomizationTiming="onEachNewAttempt"/>',
      ),
    );
    const ATTEMPTS = 6;
    const orders: string[] = [];
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const path: string[] = [];
      let order: string[] = [];
      for (let i = 0; i < questions.length; i++) {
        const q = await next(page);
        path.push(q.id);
        if (i === 0) order = (await toc(page)).filter((id) => questions.includes(id));
        await report(page, q.frame, FAILED);
        // The order is the attempt's: a commit leaves the table of contents as it was.
        expect((await toc(page)).filter((id) => questions.includes(id))).toEqual(order);
        await click(page, 'Continue');
      }
      // Continue followed the order the table of contents showed.
      expect([...order].sort()).toEqual(questions);
      expect(path).toEqual(order);
      orders.push(order.join());
    }
    // 24 orders are equally likely at each attempt: six identical ones happen with probability 24^-5 (1.3e-7).
    expect(new Set(orders).size).toBeGreaterThan(1);
    await next(page);
    await click(page, 'Exit');
    await done(page);
    expect(activityLines(await progress(reg)).post).toMatch(new RegExp(`^${ATTEMPTS + 1} `));
    await page.close();
  });

  it('selectCount: the table of contents and Continue offer exactly the selected questions; the others are never attempted', async () => {
    const pool = ['p1', 'p2', 'p3', 'p4', 'p5'];
    const { page, reg } = await start(
      cluster('pool', pool.map((q) => leaf(q)).join(''), FLOW + '<imsss:randomizationControls selectCount="2" selectionTiming="once" reorderChildren="true" randomizationTiming="once"/>') + leaf('end'),
    );
    const first = await next(page);
    const shown = (await toc(page)).filter((id) => pool.includes(id));
    expect(shown).toHaveLength(2);
    expect(first.id).toBe(shown[0]);
    await report(page, first.frame, PASSED);
    await click(page, 'Continue');
    const second = await next(page);
    expect(second.id).toBe(shown[1]);
    await report(page, second.frame, PASSED);
    await click(page, 'Continue');
    await at(page, 'end');
    await click(page, 'Exit');
    await done(page);
    const lines = activityLines(await progress(reg));
    for (const q of pool) expect(lines[q]).toMatch(shown.includes(q) ? /^1 COMPLETED PASSED/ : /^0 UNKNOWN UNKNOWN/);
    // The post-test is rolled up from the two selected questions alone.
    expect(lines.pool).toBe('1 COMPLETED PASSED');
    await page.close();
  });

  it('a skip precondition on the last activity, satisfied through a shared objective an earlier SCO wrote: Continue ends the course', async () => {
    const writes = '<imsss:objectives><imsss:primaryObjective objectiveID="p"><imsss:mapInfo targetObjectiveID="g" writeSatisfiedStatus="true"/></imsss:primaryObjective></imsss:objectives>';
    const reads = '<imsss:objectives><imsss:primaryObjective objectiveID="p"><imsss:mapInfo targetObjectiveID="g" readSatisfiedStatus="true"/></imsss:primaryObjective></imsss:objectives>';
    const { page, reg } = await start(leaf('a', writes) + leaf('b') + leaf('c', rules(rule('pre', 'satisfied', 'skip')) + reads));
    // a passes (the shared objective is satisfied), b passes; Continue from b finds c skipped: nothing is left to deliver.
    for (const id of ['a', 'b']) {
      await report(page, await at(page, id), PASSED);
      await click(page, 'Continue');
    }
    await done(page);
    const p = await progress(reg);
    expect(activityLines(p)).toMatchObject({ a: '1 COMPLETED PASSED', b: '1 COMPLETED PASSED', c: '0 UNKNOWN PASSED' });
    await page.close();
  });
});
