/**
 * The sequencing engine rule family by rule family, on small hand-written manifests (parsed by the course parser):
 * each test asserts the learner's path (the activities delivered one after the other) and the rolled-up statuses.
 */
import { cloneTrackingState, type TrackingState } from '../../../src/modules/sequencing/activity-tree';
import { SequencingEngine } from '../../../src/modules/sequencing/sequencing-engine';
import { cluster, engineFromOrg, leaf, manifestXml, engineFromXml, sequencing, step } from './sequencing-fixtures';

const flow = sequencing('<imsss:controlMode flow="true"/>');
const preRule = (conditions: string, action: string, combination = 'all'): string =>
  `<imsss:preConditionRule><imsss:ruleConditions conditionCombination="${combination}">${conditions}</imsss:ruleConditions><imsss:ruleAction action="${action}"/></imsss:preConditionRule>`;
const postRule = (conditions: string, action: string): string =>
  `<imsss:postConditionRule><imsss:ruleConditions>${conditions}</imsss:ruleConditions><imsss:ruleAction action="${action}"/></imsss:postConditionRule>`;
const exitRule = (conditions: string): string =>
  `<imsss:exitConditionRule><imsss:ruleConditions>${conditions}</imsss:ruleConditions><imsss:ruleAction action="exit"/></imsss:exitConditionRule>`;
const cond = (condition: string, extra = ''): string => `<imsss:ruleCondition condition="${condition}" ${extra}/>`;
const rules = (inner: string): string => `<imsss:sequencingRules>${inner}</imsss:sequencingRules>`;

const passed = { completionStatus: 'completed', successStatus: 'passed' } as const;
const failed = { completionStatus: 'completed', successStatus: 'failed' } as const;

describe('control modes', () => {
  it('flow: start, continue and previous walk the tree in order; continue past the end ends the session', async () => {
    const e = await engineFromOrg(cluster('m1', leaf('a') + leaf('b'), flow) + leaf('c') + flow);
    expect(step(e, 'start')).toBe('a');
    expect(e.validRequests()).toMatchObject({ continue: true, previous: false, start: false }); // nothing before a
    expect(step(e, 'continue', passed)).toBe('b');
    expect(e.validRequests()).toMatchObject({ continue: true, previous: true });
    expect(step(e, 'previous')).toBe('a');
    expect(step(e, 'continue')).toBe('b');
    expect(step(e, 'continue', passed)).toBe('c');
    expect(e.status('m1')).toMatchObject({ completion: 'completed', success: 'passed' });
    expect(step(e, 'continue', passed)).toBe('END');
    expect(e.status('ORG')).toMatchObject({ completion: 'completed', success: 'passed', attempts: 1 });
  });

  it('flow="false" at the root: start and continue are not valid; the learner chooses', async () => {
    const e = await engineFromOrg(leaf('a') + leaf('b'));
    expect(step(e, 'start')).toMatch(/^ERR SB\.2\./);
    expect(e.validRequests().choice).toEqual(['a', 'b']);
    expect(step(e, '{target=b}choice')).toBe('b');
    expect(step(e, 'continue')).toBe('ERR NB.2.1-4');
    expect(step(e, '{target=a}choice', passed)).toBe('a');
    expect(e.status('b').completion).toBe('completed');
  });

  it('adl.nav.request_valid answers for continue, previous, choice and jump', async () => {
    const e = await engineFromOrg(leaf('a') + leaf('b', sequencing(rules(preRule(cond('always'), 'hiddenFromChoice')))) + flow);
    expect(step(e, 'start')).toBe('a');
    expect(['continue', 'previous', 'choice.{target=a}', 'choice.{target=b}', 'jump.{target=b}', 'choice.{target=zz}', 'suspendAll'].map((r) => e.navRequestValid(r))).toEqual([
      'true',
      'false',
      'true',
      'false',
      'true',
      'false',
      'unknown',
    ]);
  });

  it('forwardOnly: previous is not valid and is refused', async () => {
    const e = await engineFromOrg(leaf('a') + leaf('b') + sequencing('<imsss:controlMode flow="true" forwardOnly="true"/>'));
    expect(step(e, 'start')).toBe('a');
    expect(step(e, 'continue')).toBe('b');
    expect(e.validRequests().previous).toBe(false);
    expect(step(e, 'previous')).toBe('ERR NB.2.1-5');
    expect(e.currentActivity).toBe('b');
  });

  it('choice="false": no choice into the children, even where flow delivers them', async () => {
    const e = await engineFromOrg(cluster('m1', leaf('a') + leaf('b'), sequencing('<imsss:controlMode choice="false" flow="true"/>')) + leaf('c') + flow);
    expect(step(e, 'start')).toBe('a');
    expect(e.validRequests().choice).toEqual(['m1', 'c']);
    expect(step(e, '{target=b}choice')).toBe('ERR NB.2.1-10');
    expect(step(e, '{target=c}choice')).toBe('c');
  });

  it('choiceExit="false": while inside the module, choice cannot leave it', async () => {
    const e = await engineFromOrg(cluster('m1', leaf('a') + leaf('b'), sequencing('<imsss:controlMode choiceExit="false"/>')) + leaf('c'));
    expect(step(e, '{target=a}choice')).toBe('a');
    expect(e.validRequests().choice).toEqual(['a', 'b']); // m1 itself has no flow to deliver from
    expect(step(e, '{target=c}choice')).toBe('ERR NB.2.1-8');
    expect(step(e, '{target=b}choice')).toBe('b');
  });

  it('constrainChoice: only the activities next to the current one (in flow order) may be chosen', async () => {
    const e = await engineFromOrg(
      cluster('m1', leaf('a'), sequencing('<imsss:controlMode flow="true"/><adlseq:constrainedChoiceConsiderations constrainChoice="true"/>')) +
        cluster('m2', leaf('b'), flow) +
        cluster('m3', leaf('c'), flow) +
        flow,
    );
    expect(step(e, 'start')).toBe('a');
    expect(e.validRequests().choice).toEqual(expect.arrayContaining(['m2', 'b']));
    expect(e.validRequests().choice).not.toContain('c');
    expect(step(e, '{target=c}choice')).toBe('ERR SB.2.9-8');
    expect(step(e, '{target=b}choice')).toBe('b');
  });

  it('preventActivation: an inactive module cannot be entered by choosing one of its children', async () => {
    const e = await engineFromOrg(
      leaf('a') + cluster('m1', leaf('b') + leaf('c'), sequencing('<imsss:controlMode flow="true"/><adlseq:constrainedChoiceConsiderations preventActivation="true"/>')) + flow,
    );
    expect(step(e, 'start')).toBe('a');
    expect(step(e, '{target=c}choice')).toBe('ERR SB.2.9-6');
    expect(step(e, '{target=m1}choice')).toBe('b');
    expect(step(e, '{target=c}choice')).toBe('c');
  });
});

describe('sequencing rules', () => {
  it('precondition skip: flow passes over an activity whose objective is satisfied', async () => {
    const e = await engineFromOrg(leaf('a') + leaf('b', sequencing(rules(preRule(cond('satisfied'), 'skip')))) + leaf('c') + flow);
    expect(step(e, 'start')).toBe('a');
    expect(step(e, 'continue', passed)).toBe('b'); // b is unknown yet: not skipped
    expect(step(e, 'previous', passed)).toBe('a');
    expect(step(e, 'continue')).toBe('c'); // b is now satisfied: skipped
    expect(step(e, 'previous')).toBe('a'); // and skipped backwards too
  });

  it('precondition disabled and hiddenFromChoice: the table of contents leaves them out, choice is refused', async () => {
    const e = await engineFromOrg(
      leaf('a') + leaf('b', sequencing(rules(preRule(cond('always'), 'disabled')))) + leaf('c', sequencing(rules(preRule(cond('always'), 'hiddenFromChoice')))),
    );
    expect(e.validRequests().choice).toEqual(['a']);
    expect(step(e, '{target=b}choice')).toBe('ERR DB.1.1-3');
    expect(step(e, '{target=c}choice')).toBe('ERR SB.2.9-3');
    expect(step(e, '{target=a}choice')).toBe('a');
  });

  it('precondition stopForwardTraversal: choice cannot jump past it, flow stops at it', async () => {
    const e = await engineFromOrg(leaf('a') + leaf('b', sequencing(rules(preRule(cond('attempted', 'operator="not"'), 'stopForwardTraversal')))) + leaf('c'));
    expect(step(e, '{target=a}choice')).toBe('a');
    expect(step(e, '{target=c}choice')).toBe('ERR SB.2.9.1-1');
    expect(step(e, '{target=b}choice')).toBe('b');
    expect(step(e, '{target=c}choice')).toBe('c');
  });

  it('post condition retry: a failed module is delivered again from its first activity', async () => {
    // The module's post condition rules are evaluated when it is exited: its last activity exits its parent.
    const e = await engineFromOrg(
      cluster('m1', leaf('a') + leaf('b', sequencing(rules(postRule(cond('always'), 'exitParent')))), sequencing('<imsss:controlMode flow="true"/>' + rules(postRule(cond('satisfied', 'operator="not"'), 'retry')))) + leaf('c') + flow,
    );
    expect(step(e, 'start')).toBe('a');
    expect(step(e, 'continue', passed)).toBe('b');
    expect(step(e, 'continue', failed)).toBe('a');
    expect(e.status('m1')).toMatchObject({ attempts: 2, success: 'unknown' });
    expect(step(e, 'continue', passed)).toBe('b');
    expect(step(e, 'continue', passed)).toBe('c');
    expect(e.status('m1')).toMatchObject({ attempts: 2, success: 'passed', completion: 'completed' });
  });

  it('post condition exitParent and continue: leaving a module early', async () => {
    const e = await engineFromOrg(
      cluster('m1', leaf('a', sequencing(rules(postRule(cond('satisfied'), 'exitParent')))) + leaf('b'), flow) + leaf('c', sequencing(rules(postRule(cond('always'), 'previous')))) + flow,
    );
    expect(step(e, 'start')).toBe('a');
    // a passed: exit m1; the continue then flows from m1 to c.
    expect(step(e, 'continue', passed)).toBe('c');
    expect(e.status('m1').active).toBe(false);
    // c's post condition turns the learner's exit into a previous.
    expect(step(e, 'exit', passed)).toBe('b');
  });

  it('exit condition rule: a module is exited as soon as its rule holds', async () => {
    const e = await engineFromOrg(
      cluster('m1', leaf('a') + leaf('b') + leaf('x'), sequencing('<imsss:controlMode flow="true"/>' + rules(exitRule(cond('satisfied'))) + '<imsss:rollupRules><imsss:rollupRule childActivitySet="any"><imsss:rollupConditions><imsss:rollupCondition condition="satisfied"/></imsss:rollupConditions><imsss:rollupAction action="satisfied"/></imsss:rollupRule></imsss:rollupRules>')) +
        leaf('c') +
        flow,
    );
    expect(step(e, 'start')).toBe('a');
    expect(step(e, 'continue', failed)).toBe('b');
    expect(step(e, 'continue', passed)).toBe('c'); // b satisfied m1 (any child), so m1 exits and x is never seen
    expect(e.status('x').attempts).toBe(0);
  });
});

describe('limit conditions', () => {
  it('attemptLimit: after the allowed attempts the activity is no longer delivered', async () => {
    const e = await engineFromOrg(leaf('a', sequencing('<imsss:limitConditions attemptLimit="1"/>')) + leaf('b'));
    expect(step(e, '{target=a}choice')).toBe('a');
    expect(step(e, '{target=b}choice', passed)).toBe('b');
    expect(e.validRequests().choice).toEqual(['b']);
    expect(step(e, '{target=a}choice')).toBe('ERR DB.1.1-3');
  });

  it('attemptAbsoluteDurationLimit: an attempt that used up its time limit is not delivered again', async () => {
    const e = await engineFromOrg(leaf('a', sequencing('<imsss:limitConditions attemptAbsoluteDurationLimit="PT1M"/>')) + leaf('b'));
    expect(step(e, '{target=a}choice')).toBe('a');
    expect(step(e, '{target=b}choice', { completionStatus: 'incomplete', attemptDurationSeconds: 30 })).toBe('b');
    expect(step(e, '{target=a}choice')).toBe('a');
    expect(step(e, '{target=b}choice', { completionStatus: 'incomplete', attemptDurationSeconds: 61 })).toBe('b');
    expect(step(e, '{target=a}choice')).toBe('ERR DB.1.1-3');
  });
});

describe('rollup', () => {
  const rollupRule = (set: string, condition: string, action: string, extra = ''): string =>
    `<imsss:rollupRule childActivitySet="${set}" ${extra}><imsss:rollupConditions><imsss:rollupCondition condition="${condition}"/></imsss:rollupConditions><imsss:rollupAction action="${action}"/></imsss:rollupRule>`;

  it('default rules: satisfied and completed when all children are; not satisfied once all are known', async () => {
    const e = await engineFromOrg(leaf('a') + leaf('b') + leaf('c') + flow);
    step(e, 'start');
    step(e, 'continue', passed);
    expect(e.status('ORG')).toMatchObject({ success: 'unknown', completion: 'unknown' });
    step(e, 'continue', failed);
    expect(step(e, 'exitAll', passed)).toBe('END');
    expect(e.status('ORG')).toMatchObject({ success: 'failed', completion: 'completed' });
  });

  it('atLeastCount rule and rollupObjectiveSatisfied="false" (a child that does not count)', async () => {
    const e = await engineFromOrg(
      leaf('a') +
        leaf('b') +
        leaf('c', sequencing('<imsss:rollupRules rollupObjectiveSatisfied="false"/>')) +
        sequencing(`<imsss:controlMode flow="true"/><imsss:rollupRules>${rollupRule('atLeastCount', 'satisfied', 'satisfied', 'minimumCount="2"')}</imsss:rollupRules>`),
    );
    step(e, 'start');
    step(e, 'continue', passed);
    expect(e.status('ORG').success).toBe('unknown');
    step(e, 'continue', passed);
    expect(e.status('ORG').success).toBe('passed');
  });

  it('measure rollup with objectiveMeasureWeight, satisfied by measure at the root', async () => {
    const xml = manifestXml(
      leaf('a', sequencing('<imsss:rollupRules objectiveMeasureWeight="0.25"/>')) +
        leaf('b', sequencing('<imsss:rollupRules objectiveMeasureWeight="0.75"/>')) +
        sequencing(
          '<imsss:controlMode flow="true"/><imsss:objectives><imsss:primaryObjective objectiveID="root" satisfiedByMeasure="true"><imsss:minNormalizedMeasure>0.6</imsss:minNormalizedMeasure></imsss:primaryObjective></imsss:objectives>',
        ),
    );
    const e = await engineFromXml(xml);
    step(e, 'start');
    step(e, 'continue', { ...passed, scoreScaled: 1 });
    expect(e.status('ORG')).toMatchObject({ scaledScore: 0.25, success: 'failed' });
    step(e, 'exitAll', { ...failed, scoreScaled: 0.5 });
    expect(e.status('ORG').scaledScore).toBeCloseTo(0.625);
    expect(e.status('ORG').success).toBe('passed');
  });

  it('4th edition completion by measure with progressWeight', async () => {
    const xml = manifestXml(
      leaf('a', '<adlcp:completionThreshold progressWeight="3"/>') + leaf('b', '<adlcp:completionThreshold progressWeight="1"/>') + flow,
    ).replace('<title>Course</title>', '<title>Course</title><adlcp:completionThreshold completedByMeasure="true" minProgressMeasure="0.7"/>');
    const e = await engineFromXml(xml);
    step(e, 'start');
    step(e, 'continue', { completionStatus: 'incomplete', progressMeasure: 0.8 });
    // (0.8 × 3 + unknown) / (3 + 1): every tracked child's weight counts (RB.1.1b)
    expect(e.status('ORG').progressMeasure).toBeCloseTo(0.6);
    expect(e.status('ORG').completion).toBe('incomplete');
    e.reportRuntime('b', { completionStatus: 'incomplete', progressMeasure: 0.6 });
    expect(e.status('ORG').progressMeasure).toBeCloseTo(0.75);
    expect(e.status('ORG').completion).toBe('completed');
  });

  it.each([
    ['true', 'unknown'],
    ['false', 'failed'],
  ])('useCurrentAttemptObjectiveInfo="%s": a new attempt on a module rolls up only what was learned in it (%s)', async (flag, expected) => {
    const e = await engineFromOrg(cluster('m1', leaf('a') + leaf('b'), sequencing(`<imsss:controlMode flow="true" useCurrentAttemptObjectiveInfo="${flag}"/>`)) + leaf('c') + flow);
    expect(step(e, 'start')).toBe('a');
    expect(step(e, 'continue', failed)).toBe('b');
    expect(step(e, 'continue', passed)).toBe('c');
    expect(e.status('m1').success).toBe('failed');
    expect(step(e, 'previous')).toBe('b'); // m1 begins its second attempt
    e.reportRuntime('b', passed);
    expect(e.status('m1')).toMatchObject({ attempts: 2, success: expected });
  });

  it('requiredForSatisfied="ifAttempted": an unattempted child does not hold the parent back', async () => {
    const e = await engineFromOrg(leaf('a') + leaf('b', sequencing('<adlseq:rollupConsiderations requiredForSatisfied="ifAttempted"/>')));
    expect(step(e, '{target=a}choice')).toBe('a');
    expect(step(e, 'exitAll', passed)).toBe('END');
    expect(e.status('ORG').success).toBe('passed');
  });
});

describe('objectives', () => {
  it('global objectives: one activity writes, another reads (and is skipped), the SCO sees the shared value', async () => {
    const map = (target: string, write: boolean): string =>
      `<imsss:objectives><imsss:primaryObjective objectiveID="p"/><imsss:objective objectiveID="o1"><imsss:mapInfo targetObjectiveID="${target}" ${write ? 'writeSatisfiedStatus="true" writeNormalizedMeasure="true"' : ''}/></imsss:objective></imsss:objectives>`;
    const e = await engineFromOrg(
      leaf('a', sequencing(map('g1', true))) + leaf('b', sequencing(rules(preRule(cond('satisfied', 'referencedObjective="o1"'), 'skip')) + map('g1', false))) + leaf('c') + flow,
    );
    expect(step(e, 'start')).toBe('a');
    expect(step(e, 'continue', { ...passed, objectives: [{ id: 'o1', successStatus: 'passed', scoreScaled: 0.9 }] })).toBe('c');
    expect(e.globalObjectives().g1).toMatchObject({ progressStatus: true, satisfiedStatus: true, measureStatus: true, normalizedMeasure: 0.9 });
    expect(e.objectiveData('b').o1).toMatchObject({ progressStatus: true, satisfiedStatus: true });
  });

  it('4th edition extended map info: completion status shared through adlseq:mapInfo', async () => {
    const ext = (write: boolean): string =>
      `<imsss:objectives><imsss:primaryObjective objectiveID="p"/></imsss:objectives><adlseq:objectives><adlseq:objective objectiveID="p"><adlseq:mapInfo targetObjectiveID="g" ${write ? 'writeCompletionStatus="true"' : ''}/></adlseq:objective></adlseq:objectives>`;
    const e = await engineFromOrg(leaf('a', sequencing(ext(true))) + leaf('b', sequencing(rules(preRule(cond('completed'), 'skip')) + ext(false))) + leaf('c') + flow);
    expect(step(e, 'start')).toBe('a');
    expect(step(e, 'continue', { completionStatus: 'completed' })).toBe('c');
    expect(e.status('b').completion).toBe('completed');
  });
});

describe('randomization and selection', () => {
  const course = cluster(
    'pool',
    ['q1', 'q2', 'q3', 'q4', 'q5'].map((q) => leaf(q)).join(''),
    sequencing('<imsss:controlMode flow="true"/><imsss:randomizationControls selectCount="3" selectionTiming="once" reorderChildren="true" randomizationTiming="once"/>'),
  ) + flow;

  it('selects and reorders children once, the same way for the same seed', async () => {
    const a = await engineFromOrg(course, 42);
    const b = await engineFromOrg(course, 42);
    expect(a.availableChildren('pool')).toHaveLength(3);
    expect(a.availableChildren('pool')).toEqual(b.availableChildren('pool'));
    const seen = new Set<string>();
    for (let seed = 1; seed <= 20; seed++) seen.add((await engineFromOrg(course, seed)).availableChildren('pool').join());
    expect(seen.size).toBeGreaterThan(3);
  });

  it('randomizationTiming="onEachNewAttempt" reorders the children for every new attempt, reproducibly', async () => {
    const quiz = (seed: number) =>
      engineFromOrg(
        cluster(
          'pool',
          ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'].map((q) => leaf(q)).join(''),
          sequencing('<imsss:controlMode flow="true"/><imsss:randomizationControls reorderChildren="true" randomizationTiming="onEachNewAttempt"/>'),
        ) + leaf('end') + flow,
        seed,
      );
    const run = async (seed: number): Promise<string[][]> => {
      const e = await quiz(seed);
      const orders: string[][] = [];
      step(e, 'start');
      orders.push(e.availableChildren('pool'));
      for (let i = 0; i < 6; i++) step(e, 'continue', passed); // through the pool to "end"
      expect(e.currentActivity).toBe('end');
      step(e, 'previous'); // back into the pool: its second attempt
      orders.push(e.availableChildren('pool'));
      expect(e.status('pool').attempts).toBe(2);
      return orders;
    };
    const [a, b] = [await run(3), await run(3)];
    expect(a).toEqual(b);
    expect(a[1]).not.toEqual(a[0]);
    expect([...a[1]].sort()).toEqual(['q1', 'q2', 'q3', 'q4', 'q5', 'q6']);
  });

  it('the learner path follows the selected order; unselected questions cannot be chosen; restore keeps the order', async () => {
    const e = await engineFromOrg(course, 7);
    const order = e.availableChildren('pool');
    const restored = SequencingEngine.restore(e.definition, JSON.stringify(e.serialize()));
    expect(restored.availableChildren('pool')).toEqual(order);
    expect(step(e, 'start')).toBe(order[0]);
    expect(step(e, 'continue', passed)).toBe(order[1]);
    expect(step(e, 'continue', passed)).toBe(order[2]);
    const left = ['q1', 'q2', 'q3', 'q4', 'q5'].find((q) => !order.includes(q)) as string;
    expect(step(e, `{target=${left}}choice`)).toBe('ERR SB.2.9-2');
    expect(step(e, 'continue', passed)).toBe('END');
    expect(e.status('pool')).toMatchObject({ success: 'passed', completion: 'completed' });
  });
});

describe('randomization on each new attempt (a post-test retried until passed)', () => {
  const questions = ['q1', 'q2', 'q3', 'q4'];
  /** A post-test of four questions in random order: once all are completed it exits, and it is retried until satisfied. */
  const postTest = (controls: string): string =>
    cluster(
      'post',
      questions.map((q) => leaf(q)).join(''),
      sequencing(
        `<imsss:controlMode choice="true" flow="true"/>${rules(exitRule(cond('completed')) + postRule(cond('satisfied', 'operator="not"'), 'retry'))}${controls}`,
      ),
    ) + flow;
  const reorder = '<imsss:randomizationControls reorderChildren="true" randomizationTiming="onEachNewAttempt"/>';

  /** One attempt on the post-test: the questions delivered (each failed, so that the post-test is retried). */
  const attempt = (e: SequencingEngine, first: string): string[] => {
    const path = [first];
    const attempts = e.status('post').attempts;
    for (let i = 0; i < 10; i++) {
      const next = step(e, 'continue', failed);
      if (!questions.includes(next)) throw new Error(`unexpected ${next} after ${path.join()}`);
      if (e.status('post').attempts > attempts) return path; // retried: the next attempt began
      path.push(next);
    }
    throw new Error(`no retry after ${path.join()}`);
  };

  it('every attempt (the first one too) delivers the questions in the order drawn for it, and the orders differ', async () => {
    const e = await engineFromOrg(postTest(reorder), 5);
    let first = step(e, 'start');
    const orders = new Map<string, number>();
    for (let i = 0; i < 200; i++) {
      const order = e.availableChildren('post');
      expect([...order].sort()).toEqual(questions);
      expect(first).toBe(order[0]);
      // The order belongs to the attempt: commits and restores of the state keep it.
      e.reportRuntime(first, { completionStatus: 'incomplete' });
      expect(SequencingEngine.restore(e.definition, e.serializedText()).availableChildren('post')).toEqual(order);
      const before = e.status('post').attempts;
      const path = attempt(e, first);
      // Continue followed the attempt's order; the retry began the next attempt with a new draw.
      expect(path).toEqual(order);
      expect(e.status('post').attempts).toBe(before + 1);
      orders.set(order.join(), (orders.get(order.join()) ?? 0) + 1);
      first = e.currentActivity as string;
    }
    // 24 orders are possible: 200 draws see most of them, none more than about twice as often as the average (8.3).
    expect(orders.size).toBeGreaterThanOrEqual(20);
    expect(Math.max(...orders.values())).toBeLessThan(25);
  });

  it('a fixed seed gives a known order (the first attempt is drawn from the seed too); other seeds give others', async () => {
    const firstOrder = async (seed: number) => (await engineFromOrg(postTest(reorder), seed)).availableChildren('post').join();
    expect(await firstOrder(42)).toBe(await firstOrder(42));
    expect(await firstOrder(42)).toBe('q1,q4,q2,q3');
    const seen = new Set<string>();
    for (let seed = 1; seed <= 30; seed++) seen.add(await firstOrder(seed));
    expect(seen.size).toBeGreaterThan(5);
  });

  it('selectCount with selectionTiming="onEachNewAttempt": exactly that many questions per attempt, rolled up alone', async () => {
    const e = await engineFromOrg(postTest('<imsss:randomizationControls selectCount="2" selectionTiming="onEachNewAttempt"/>'), 9);
    let first = step(e, 'start');
    const selections = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const chosen = e.availableChildren('post');
      expect(chosen).toHaveLength(2);
      selections.add(chosen.join());
      // The questions left out may not be chosen, and the table of contents' order leaves them out.
      const left = questions.filter((q) => !chosen.includes(q));
      for (const q of left) expect(e.validRequests().choice).not.toContain(q);
      expect(attempt(e, first)).toEqual(chosen);
      first = e.currentActivity as string;
    }
    expect(selections.size).toBeGreaterThan(3);
    // Passing the two selected questions satisfies the post-test: the others (never delivered in this attempt) do not count.
    const chosen = e.availableChildren('post');
    expect(step(e, 'continue', passed)).toBe(chosen[1]);
    expect(step(e, 'continue', passed)).toBe('END');
    expect(e.status('post')).toMatchObject({ success: 'passed', completion: 'completed' });
  });

  it('a state stored before the orders were drawn per attempt loads: the post-test gets a drawn order for its next attempt', async () => {
    const e = await engineFromOrg(postTest(reorder), 3);
    const first = step(e, 'start');
    const legacy = e.serialize();
    // As stored before: no orderFor, the children in an order of the old engine.
    const stored = [first, ...questions.filter((q) => q !== first)];
    for (const a of Object.values(legacy.state.activities)) delete (a as { orderFor?: number }).orderFor;
    legacy.state.activities.post.availableChildren = stored;
    // The attempt in progress keeps its order; the next one is drawn when it ends.
    const active = SequencingEngine.restore(e.definition, JSON.stringify(legacy));
    expect(active.availableChildren('post')).toEqual(stored);
    expect(attempt(active, first)).toEqual(stored);
    expect(active.status('post').attempts).toBe(2);
    // Not yet begun (no attempt in progress): drawn at once, the same way at every restore of the same state.
    const fresh = (await engineFromOrg(postTest(reorder), 3)).serialize();
    for (const a of Object.values(fresh.state.activities)) delete (a as { orderFor?: number }).orderFor;
    fresh.state.activities.post.availableChildren = [...questions];
    const one = SequencingEngine.restore(e.definition, JSON.stringify(fresh));
    expect(SequencingEngine.restore(e.definition, JSON.stringify(fresh)).availableChildren('post')).toEqual(one.availableChildren('post'));
    expect(step(one, 'start')).toBe(one.availableChildren('post')[0]);
    // Without availableChildren at all, the manifest's children are taken.
    for (const a of Object.values(fresh.state.activities)) delete (a as { availableChildren?: string[] }).availableChildren;
    expect([...SequencingEngine.restore(e.definition, JSON.stringify(fresh)).availableChildren('post')].sort()).toEqual(questions);
  });
});

describe('skip on the last activity', () => {
  const writes = (target: string): string =>
    sequencing(`<imsss:objectives><imsss:primaryObjective objectiveID="p"><imsss:mapInfo targetObjectiveID="${target}" writeSatisfiedStatus="true"/></imsss:primaryObjective></imsss:objectives>`);
  const skippedBy = (target: string): string =>
    sequencing(
      rules(preRule(cond('satisfied'), 'skip')) +
        `<imsss:objectives><imsss:primaryObjective objectiveID="p"><imsss:mapInfo targetObjectiveID="${target}" readSatisfiedStatus="true"/></imsss:primaryObjective></imsss:objectives>`,
    );

  it.each([
    ['the last of the course', leaf('a', writes('g')) + leaf('b') + leaf('c', skippedBy('g')) + flow, 'END'],
    ['the last of a cluster, the last of the course', cluster('m', leaf('a', writes('g')) + leaf('b') + leaf('c', skippedBy('g')), flow) + flow, 'END'],
    ['the last of a cluster followed by more', cluster('m', leaf('a', writes('g')) + leaf('b') + leaf('c', skippedBy('g')), flow) + leaf('z') + flow, 'z'],
  ])('%s: continue does not deliver it', async (_name, org, after) => {
    const e = await engineFromOrg(org);
    expect(step(e, 'start')).toBe('a');
    expect(step(e, 'continue', passed)).toBe('b');
    expect(step(e, 'continue', passed)).toBe(after);
    expect(e.status('c').attempts).toBe(0);
  });
});

describe('suspend all, resume all, jump, exit and abandon', () => {
  it('suspend all keeps the place; a restored engine resumes there', async () => {
    const e = await engineFromOrg(leaf('a') + leaf('b') + leaf('c') + flow);
    step(e, 'start');
    step(e, 'continue', passed);
    expect(e.validRequests().suspendAll).toBe(true);
    expect(step(e, 'suspendAll', { completionStatus: 'incomplete', exit: 'suspend' })).toBe('END');
    expect(e.suspendedActivity).toBe('b');
    const saved = JSON.stringify(e.serialize());
    const r = SequencingEngine.restore(e.definition, saved);
    expect(r.validRequests()).toMatchObject({ resumeAll: true, start: true });
    expect(step(r, 'resumeAll')).toBe('b');
    expect(r.status('b')).toMatchObject({ attempts: 1, completion: 'incomplete', suspended: false });
    expect(step(r, 'continue', passed)).toBe('c');
  });

  it('a SCO that exits with cmi.exit="suspend" resumes the same attempt when it is chosen again', async () => {
    const e = await engineFromOrg(leaf('a') + leaf('b'));
    expect(step(e, '{target=a}choice')).toBe('a');
    expect(step(e, '{target=b}choice', { completionStatus: 'incomplete', exit: 'suspend' })).toBe('b');
    expect(e.status('a')).toMatchObject({ attempts: 1, suspended: true, completion: 'incomplete' });
    expect(step(e, '{target=a}choice', passed)).toBe('a');
    expect(e.status('a')).toMatchObject({ attempts: 1, suspended: false });
    expect(step(e, '{target=b}choice', passed)).toBe('b');
    expect(e.status('b').attempts).toBe(2);
  });

  it('jump (4th edition) goes to any available activity, even where choice is off', async () => {
    const e = await engineFromOrg(leaf('a') + leaf('b') + leaf('c') + sequencing('<imsss:controlMode choice="false" flow="true"/>'));
    expect(step(e, 'start')).toBe('a');
    expect(step(e, '{target=c}choice')).toBe('ERR NB.2.1-10');
    expect(e.validRequests().jump).toEqual(['a', 'b', 'c']);
    expect(step(e, '{target=c}jump', passed)).toBe('c');
    expect(step(e, '{target=nope}jump')).toBe('ERR NB.2.1-11');
  });

  it('abandon ends the attempt without the default completion; exit all then ends the session', async () => {
    const e = await engineFromOrg(leaf('a') + leaf('b') + flow);
    step(e, 'start');
    expect(step(e, 'abandon')).toBe('NONE');
    expect(e.status('a')).toMatchObject({ completion: 'unknown', active: false });
    expect(step(e, 'exitAll')).toBe('END');
  });
});

describe('adl.data shared data buckets (adlcp:data, 4th edition)', () => {
  const data = (...maps: string[]): string => `<adlcp:data>${maps.join('')}</adlcp:data>`;
  const map = (target: string, read: boolean, write: boolean): string =>
    `<adlcp:map targetID="${target}" readSharedData="${read}" writeSharedData="${write}"/>`;

  it('a SCO reads and writes the buckets its maps allow; the stores survive a restore of the state', async () => {
    const e = await engineFromOrg(
      `<item identifier="a" identifierref="R"><title>a</title>${data(map('notes', true, true), map('ro', true, false))}</item>` +
        `<item identifier="b" identifierref="R"><title>b</title>${data(map('ro', true, true), map('notes', false, false))}</item>` +
        leaf('c') +
        flow,
    );
    expect(e.sharedDataOf('a')).toEqual({
      maps: [
        { targetID: 'notes', readSharedData: true, writeSharedData: true },
        { targetID: 'ro', readSharedData: true, writeSharedData: false },
      ],
      stores: {},
    });
    // a may write "notes" only; a bucket it has no map for is ignored too.
    e.writeSharedData('a', { notes: 'from a', ro: 'not allowed', other: 'x' });
    e.writeSharedData('b', { ro: 'from b', notes: 'not allowed' });
    const again = SequencingEngine.restore(e.definition, JSON.stringify(e.serialize()));
    expect(again.sharedDataOf('a').stores).toEqual({ notes: 'from a', ro: 'from b' });
    // b may not read "notes": its store is not given to it.
    expect(again.sharedDataOf('b').stores).toEqual({ ro: 'from b' });
    expect(again.sharedDataOf('c')).toEqual({ maps: [], stores: {} });
    // A store longer than adl.data.n.store allows (64000 characters) is not kept.
    again.writeSharedData('a', { notes: 'x'.repeat(64001) });
    expect(again.sharedDataOf('a').stores.notes).toBe('from a');
  });
});

describe('engine state: copies, serialisation, valid requests', () => {
  const course = (): Promise<SequencingEngine> =>
    engineFromOrg(cluster('m1', leaf('a', sequencing('<imsss:objectives><imsss:primaryObjective objectiveID="pa"><imsss:mapInfo targetObjectiveID="g1" writeSatisfiedStatus="true"/></imsss:primaryObjective></imsss:objectives>')) + leaf('b'), flow) + leaf('c') + flow);

  it('a copy of the tracking state is deep: changing it leaves the original as it was', async () => {
    const e = await course();
    step(e, 'start');
    e.reportRuntime('a', { ...passed, scoreScaled: 0.8 });
    const state = (e.serialize() as { state: TrackingState }).state;
    const copy = cloneTrackingState(state);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(state));
    copy.activities.a.objectives['pa'].satisfiedStatus = false;
    copy.activities.a.availableChildren.push('x');
    copy.globalObjectives.g1.progressStatus = false;
    copy.activities.m1.availableChildren.pop();
    expect(state.activities.a.objectives['pa'].satisfiedStatus).toBe(true);
    expect(state.globalObjectives.g1.progressStatus).toBe(true);
    expect(state.activities.m1.availableChildren).toEqual(['a', 'b']);
  });

  it('the stored text is the serialised state, and an engine restored from it continues the same way', async () => {
    const e = await course();
    step(e, 'start');
    e.reportRuntime('a', passed);
    const text = e.serializedText();
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(e.serialize())));
    const again = SequencingEngine.restore(e.definition, text);
    expect(again.serializedText()).toBe(text);
    expect(JSON.stringify(again.validRequests())).toBe(JSON.stringify(e.validRequests()));
    expect(step(again, 'continue')).toBe('b');
    expect(step(e, 'continue')).toBe('b');
    expect(again.serializedText()).toBe(e.serializedText());
  });

  it('continue leads somewhere only when navigate() would deliver or end the session (the lookahead, worked out on the one copy)', async () => {
    // b is disabled: the Navigation Request Process allows continue from a, the flow refuses it.
    const e = await engineFromOrg(leaf('a') + leaf('b', sequencing(rules(preRule(cond('always'), 'disabled')))) + flow);
    step(e, 'start');
    const before = e.serializedText();
    expect(e.validRequests().continue).toBe(true);
    expect(e.validRequests().continueLeads).toBe(false);
    expect(e.serializedText()).toBe(before);
    // The last activity: continue ends the session, which is somewhere.
    const last = await engineFromOrg(leaf('a') + leaf('b') + flow);
    step(last, 'start');
    step(last, 'continue');
    expect(last.validRequests().continueLeads).toBe(true);
    // A post condition rule replaces the request (exit all): continue leads to the end.
    const post = await engineFromOrg(leaf('a', sequencing(rules(postRule(cond('always'), 'exitAll')))) + leaf('b', sequencing(rules(preRule(cond('always'), 'disabled')))) + flow);
    step(post, 'start');
    expect(post.validRequests().continueLeads).toBe(true);
    expect(post.navigate('continue').ended).toBe(true);
  });

  it('valid requests: JSON has all of them, and working them out changes nothing (the trials run on copies)', async () => {
    const e = await course();
    step(e, 'start');
    const before = e.serializedText();
    const valid = JSON.parse(JSON.stringify(e.validRequests())) as Record<string, unknown>;
    expect(Object.keys(valid).sort()).toEqual(['abandon', 'abandonAll', 'choice', 'continue', 'exit', 'exitAll', 'jump', 'previous', 'resumeAll', 'start', 'suspendAll']);
    expect(valid).toMatchObject({ start: false, continue: true, previous: false, exitAll: true, suspendAll: true, choice: ['m1', 'a', 'b', 'c'] });
    expect(e.serializedText()).toBe(before);
    // A choice that would deliver is tried, not made: the current activity stays a.
    expect(e.navRequestValid('choice.{target=c}')).toBe('true');
    expect(e.currentActivity).toBe('a');
    expect(e.serializedText()).toBe(before);
  });
});

describe('identifiers that are names of Object.prototype (content data is never a prototype)', () => {
  const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
  const objectives = (id: string) =>
    `<imsss:objectives><imsss:primaryObjective objectiveID="${id}" satisfiedByMeasure="false"><imsss:mapInfo targetObjectiveID="${id}" writeSatisfiedStatus="true"/></imsss:primaryObjective><imsss:objective objectiveID="x${id}"><imsss:mapInfo targetObjectiveID="${id}" readSatisfiedStatus="true"/></imsss:objective></imsss:objectives>`;
  afterEach(() => {
    // Nothing of an activity or objective may have landed on Object.prototype or Object.
    for (const k of ['satisfiedStatus', 'progressStatus', 'measureStatus', 'availableChildren', 'children', 'objectives']) {
      expect([k, Object.prototype.hasOwnProperty.call(Object.prototype, k), Object.prototype.hasOwnProperty.call(Object, k)]).toEqual([k, false, false]);
    }
  });

  it.each(NAMES)('activities and objectives named %s are tracked, rolled up, serialised and restored like any other', async (name) => {
    const e = await engineFromOrg(leaf(name, sequencing(objectives(name))) + leaf(`${name}2`) + flow);
    expect(step(e, 'start')).toBe(name);
    e.reportRuntime(name, { ...passed, objectives: [{ id: name, successStatus: 'passed' }] });
    expect(e.validRequests().choice).toEqual([name, `${name}2`]);
    const again = SequencingEngine.restore(e.definition, e.serializedText());
    expect(again.status(name)).toMatchObject({ completion: 'completed', success: 'passed' });
    expect(again.globalObjectives()[name]).toMatchObject({ satisfiedStatus: true });
    expect(step(again, 'continue')).toBe(`${name}2`);
    expect(again.navigate({ type: 'choice', target: 'valueOf' }).error).toBeDefined();
  });
});
