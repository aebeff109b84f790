import type { LaunchableActivity } from '../../../src/modules/courses/packages/package-types';
import { cmi5ActivityId, cmi5AuOf, moveOnMet, type MoveOn, rollUpCmi5 } from '../../../src/modules/player/cmi5-launch';
import { cmi5StatementProblem, type Cmi5SessionState } from '../../../src/modules/player/cmi5-rules';
import type { ActivityResult } from '../../../src/modules/registrations/registration-types';

const node = (id: string, children: ActivityResult[] = [], extra: Partial<ActivityResult> = {}): ActivityResult => ({
  id,
  title: id,
  attempts: 0,
  activityCompletion: 'UNKNOWN',
  activitySuccess: 'UNKNOWN',
  timeTracked: '0000:00:00',
  suspended: false,
  children,
  objectives: [],
  ...extra,
});
const au = (id: string, moveOn: MoveOn): LaunchableActivity => ({ id, title: id, href: 'index.html', data: { moveOn, launchMethod: 'AnyWindow', blockIds: [] } });

describe('cmi5: moveOn, satisfaction rollup, activity ids', () => {
  it.each([
    ['NotApplicable', 'UNKNOWN', 'UNKNOWN', true],
    ['Completed', 'COMPLETED', 'UNKNOWN', true],
    ['Completed', 'INCOMPLETE', 'PASSED', false],
    ['Passed', 'COMPLETED', 'UNKNOWN', false],
    ['Passed', 'UNKNOWN', 'PASSED', true],
    ['CompletedAndPassed', 'COMPLETED', 'UNKNOWN', false],
    ['CompletedAndPassed', 'COMPLETED', 'PASSED', true],
    ['CompletedOrPassed', 'UNKNOWN', 'PASSED', true],
    ['CompletedOrPassed', 'UNKNOWN', 'FAILED', false],
  ] as const)('moveOn %s with %s/%s: met = %s', (moveOn, completion, success, met) => {
    expect(moveOnMet(moveOn, { activityCompletion: completion, activitySuccess: success })).toBe(met);
  });

  it('satisfies blocks and the course once, innermost first, only when everything in them is satisfied', () => {
    const tree = node('course', [node('block-1', [node('au-1', [], { attempts: 1, activityCompletion: 'COMPLETED' }), node('block-2', [node('au-2')])]), node('au-3')]);
    const aus = new Map([au('au-1', 'Completed'), au('au-2', 'NotApplicable'), au('au-3', 'Passed')].map((l) => [l.id, cmi5AuOf(l)]));
    expect(rollUpCmi5(tree, aus)).toEqual([
      { kind: 'block', publisherId: 'block-2' },
      { kind: 'block', publisherId: 'block-1' },
    ]);
    expect(tree).toMatchObject({ activityCompletion: 'INCOMPLETE', activitySuccess: 'UNKNOWN' });
    expect(rollUpCmi5(tree, aus)).toEqual([]); // once
    tree.children[1].activitySuccess = 'PASSED';
    tree.children[1].score = { scaled: 0.5 };
    expect(rollUpCmi5(tree, aus)).toEqual([{ kind: 'course', publisherId: 'course' }]);
    expect(tree).toMatchObject({ activityCompletion: 'COMPLETED', activitySuccess: 'PASSED', score: { scaled: 0.5 } });
  });

  it('gives courses, blocks and AUs activity ids of the LMS: stable, distinct per application, never the publisher id', () => {
    const a = cmi5ActivityId('https://lms.example', 'app', 'c', 'au', 'https://pub.example/au/1');
    expect(a).toMatch(/^https:\/\/lms\.example\/cmi5\/au\/[A-Za-z0-9_-]{32}$/);
    expect(cmi5ActivityId('https://lms.example/', 'app', 'c', 'au', 'https://pub.example/au/1')).toBe(a);
    expect(cmi5ActivityId('https://lms.example', 'other', 'c', 'au', 'https://pub.example/au/1')).not.toBe(a);
  });
});

describe('cmi5: statement rules of a session', () => {
  const actor = { objectType: 'Agent' as const, account: { homePage: 'https://lms.example', name: 'learner' } };
  const fresh = (extra: Partial<Cmi5SessionState> = {}): Cmi5SessionState => ({
    id: 'session-1',
    auId: 'au',
    activityId: 'https://lms.example/cmi5/au/x',
    registration: 'b2c0a3a4-1f4d-4a54-9d1c-0d6f0a8e2b11',
    actor,
    launchMode: 'Normal',
    launchedAt: 0,
    preferencesRead: true,
    ...extra,
  });
  const record = { activityCompletion: 'UNKNOWN', activitySuccess: 'UNKNOWN' } as const;
  const st = (verb: string, result?: Record<string, unknown>, categories = ['cmi5'], extra: Record<string, unknown> = {}) => ({
    id: 'f6f0b6e2-0c55-4bd8-a2b3-2a0f0b0f3c61',
    timestamp: '2026-01-01T10:00:00.000Z',
    actor,
    verb: { id: verb.includes(':') ? verb : `http://adlnet.gov/expapi/verbs/${verb}` },
    object: { id: 'https://lms.example/cmi5/au/x' },
    ...(result ? { result } : {}),
    context: {
      registration: 'b2c0a3a4-1f4d-4a54-9d1c-0d6f0a8e2b11',
      contextActivities: { category: categories.map((c) => ({ id: `https://w3id.org/xapi/cmi5/context/categories/${c}` })) },
      extensions: { 'https://w3id.org/xapi/cmi5/context/extensions/sessionid': 'session-1' },
    },
    ...extra,
  });

  it('initialized before the learner preferences were read: a lapse, accepted (initialized), refused only in strict mode', () => {
    const lax = fresh({ preferencesRead: false });
    const lapses: string[] = [];
    expect(cmi5StatementProblem(lax, record, st('initialized'), lapses)).toBeNull();
    expect(lax.initialized).toBe(true);
    expect(lapses).toEqual(['the AU must read the agent profile cmi5LearnerPreferences before initialized (cmi5 11.0.0.0-3)']);
    const strict = fresh({ preferencesRead: false, strict: true });
    expect(cmi5StatementProblem(strict, record, st('initialized'), [])).toMatch(/cmi5LearnerPreferences before initialized/);
    expect(strict.initialized).toBeUndefined();
  });

  it('walks a session: initialized first and once, then results by their rules, terminated last', () => {
    const s = fresh();
    expect(cmi5StatementProblem(s, record, st('experienced', undefined, []))).toMatch(/must be initialized/);
    expect(cmi5StatementProblem(s, record, st('initialized'))).toBeNull();
    expect(s.initialized).toBe(true);
    expect(cmi5StatementProblem(s, record, st('experienced', undefined, []))).toBeNull();
    expect(cmi5StatementProblem(s, record, st('experienced', undefined, ['moveon']))).toMatch(/9\.6\.2\.2-2/);
    expect(cmi5StatementProblem(s, record, st('completed', { completion: true, duration: 'PT1S' }, ['cmi5']))).toMatch(/moveOn category/);
    expect(cmi5StatementProblem(s, record, st('completed', { completion: true, duration: 'PT1S' }, ['cmi5', 'moveon']))).toBeNull();
    expect(cmi5StatementProblem(s, record, st('completed', { completion: true, duration: 'PT1S' }, ['cmi5', 'moveon']))).toMatch(/once per session/);
    expect(cmi5StatementProblem(s, record, st('failed', { success: false, duration: 'PT1S' }, ['cmi5', 'moveon']))).toBeNull();
    expect(cmi5StatementProblem(s, record, st('passed', { success: true, duration: 'PT1S' }, ['cmi5', 'moveon']))).toMatch(/9\.3\.0\.0-3/);
    expect(cmi5StatementProblem(s, record, st('terminated', {}))).toMatch(/duration/);
    expect(cmi5StatementProblem(s, record, st('terminated', { duration: 'PT9S' }))).toBeNull();
    expect(s.terminated).toBe(true);
  });

  it('refuses what the registration has already had, and results in Browse/Review mode', () => {
    const completedBefore = { activityCompletion: 'COMPLETED', activitySuccess: 'PASSED' } as const;
    const s = fresh({ initialized: true });
    expect(cmi5StatementProblem(s, completedBefore, st('completed', { completion: true, duration: 'PT1S' }, ['cmi5', 'moveon']))).toMatch(/once per registration/);
    expect(cmi5StatementProblem(s, completedBefore, st('failed', { success: false, duration: 'PT1S' }, ['cmi5', 'moveon']))).toMatch(/may not follow passed/);
    const review = fresh({ initialized: true, launchMode: 'Review' });
    expect(cmi5StatementProblem(review, record, st('passed', { success: true, duration: 'PT1S' }, ['cmi5', 'moveon']))).toMatch(/Review mode/);
  });

  it('refuses statements without id or UTC timestamp, other actors, voiding', () => {
    const s = fresh({ initialized: true });
    expect(cmi5StatementProblem(s, record, { ...st('experienced', undefined, []), id: undefined })).toMatch(/9\.1\.0\.0-1/);
    expect(cmi5StatementProblem(s, record, st('experienced', undefined, [], { timestamp: '2026-01-01T10:00:00+02:00' }))).toMatch(/UTC/);
    expect(cmi5StatementProblem(s, record, st('experienced', undefined, [], { actor: { objectType: 'Group', account: actor.account } }))).toMatch(/9\.2\.0\.0-2/);
    expect(cmi5StatementProblem(s, record, st('voided', undefined, []))).toMatch(/6\.3\.0\.0-1/);
  });
});
