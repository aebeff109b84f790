import { validateStatement } from '../../../src/modules/xapi/lrs/statement-rules';
import { randomUUID } from 'node:crypto';
import { activityStateOf } from '../../../src/modules/player/scorm-runtime';
import { commitStatements, LaunchContext, launchStatements, NOTHING_REPORTED } from '../../../src/modules/player/launch-statements/scorm-profile';

/**
 * The player stores its commits' statements without the LRS's validation (XapiStatementsService.prepareOwn): every
 * statement the profile makes must be one the LRS would take as it is, unchanged.
 */
describe('ADL xAPI SCORM profile statements', () => {
  const context: LaunchContext = {
    publicUrl: 'https://lcds.example.com',
    courseId: 'course/1 ü',
    courseTitle: 'Golf',
    activityId: 'sco 1',
    activityTitle: 'Lesson one',
    learner: { id: 'learner-1', name: 'Grace Hopper' },
    registration: '6f1c1d4e-8c1a-4b8e-9d1a-2f7c3b2a1e00',
    instance: 0,
    standard: '2004',
  };
  const cmi = {
    'cmi.completion_status': 'completed',
    'cmi.success_status': 'passed',
    'cmi.score.scaled': '0.8',
    'cmi.score.raw': '80',
    'cmi.score.min': '0',
    'cmi.score.max': '100',
    'cmi.session_time': 'PT1M30S',
    'cmi.exit': 'suspend',
    'cmi.interactions.0.id': 'urn:q/1',
    'cmi.interactions.0.type': 'fill-in',
    'cmi.interactions.0.learner_response': 'forty-two',
    'cmi.interactions.0.result': 'correct',
    'cmi.interactions.0.description': 'The answer',
    'cmi.interactions.1.id': 'q2',
    'cmi.interactions.1.type': 'unknown-type',
    'cmi.interactions.1.result': 'incorrect',
  };

  it('every statement of a launch and of a commit passes the LRS rules unchanged', () => {
    const { statements } = commitStatements(context, cmi, NOTHING_REPORTED, new Date('2026-11-23T10:00:00Z'), () => randomUUID(), true);
    const all = [...launchStatements(context, new Date('2026-11-23T09:59:00Z'), 'launch-key', false), ...statements];
    expect(all.map((s) => (s.verb as { id: string }).id.split('/').pop())).toEqual(['launched', 'initialized', 'completed', 'passed', 'responded', 'responded', 'suspended']);
    for (const s of all) expect(validateStatement(s)).toEqual(s);
  });

  it('a commit states only what changed since what was reported', () => {
    const first = commitStatements(context, cmi, NOTHING_REPORTED, new Date(), () => randomUUID(), false);
    const again = commitStatements(context, cmi, first.state, new Date(), () => randomUUID(), false);
    expect(again.statements).toEqual([]);
    expect(again.state).toEqual(first.state);
    const rescored = commitStatements(context, { ...cmi, 'cmi.score.scaled': '0.9' }, first.state, new Date(), () => randomUUID(), false);
    expect(rescored.statements.map((s) => (s.verb as { id: string }).id.split('/').pop())).toEqual(['scored']);
  });

  it('given the activity state the player worked out from the same data model, states the same', () => {
    const ids = () => {
      let n = 0;
      return () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    };
    const at = new Date('2026-11-23T10:00:00Z');
    const alone = commitStatements(context, cmi, NOTHING_REPORTED, at, ids(), true, 0.7);
    const known = activityStateOf('2004', cmi, { location: 'earlier', scoreRaw: '3' }, 0.7);
    expect(commitStatements(context, cmi, NOTHING_REPORTED, at, ids(), true, 0.7, known)).toEqual(alone);
  });
});
