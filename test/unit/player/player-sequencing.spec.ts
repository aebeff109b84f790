/** The player's glue to the sequencing engine: the SCO's data model as run-time results, navigation requests. */
import { objectiveCmi, requestOf, runtimeResultsOf } from '../../../src/modules/player/player-sequencing';
import { initialCmi } from '../../../src/modules/player/scorm-runtime';

describe('runtimeResultsOf', () => {
  it('maps statuses, scores, exit and objectives by id; "unknown" counts as not reported', () => {
    expect(
      runtimeResultsOf(
        {
          'cmi.completion_status': 'incomplete',
          'cmi.success_status': 'unknown',
          'cmi.score.scaled': '0.75',
          'cmi.score.raw': 75,
          'cmi.progress_measure': '0.5',
          'cmi.exit': 'suspend',
          'cmi.location': 'p3',
          'cmi.objectives.1.id': 'obj-b',
          'cmi.objectives.1.success_status': 'failed',
          'cmi.objectives.0.id': 'obj-a',
          'cmi.objectives.0.success_status': 'passed',
          'cmi.objectives.0.score.scaled': '1',
          'cmi.objectives.0.completion_status': 'unknown',
          'cmi.objectives.2.id': 'obj-silent',
          'cmi.objectives.2.success_status': 'unknown',
        },
        12,
      ),
    ).toEqual({
      completionStatus: 'incomplete',
      scoreScaled: 0.75,
      scoreRaw: 75,
      progressMeasure: 0.5,
      exit: 'suspend',
      attemptDurationSeconds: 12,
      objectives: [
        { id: 'obj-a', successStatus: 'passed', scoreScaled: 1 },
        { id: 'obj-b', successStatus: 'failed' },
      ],
    });
  });

  it('ignores values outside the vocabulary and non-numeric scores', () => {
    expect(runtimeResultsOf({ 'cmi.completion_status': 'done', 'cmi.success_status': 'PASSED', 'cmi.score.scaled': 'high', 'cmi.score.min': '' })).toEqual({});
  });
});

describe('requestOf', () => {
  it.each([
    ['continue', undefined, { type: 'continue' }],
    ['exitAll', undefined, { type: 'exitAll' }],
    ['{target=sco-2}choice', undefined, { type: 'choice', target: 'sco-2' }],
    ['choice', 'sco-2', { type: 'choice', target: 'sco-2' }],
    ['{target=x}jump', undefined, { type: 'jump', target: 'x' }],
  ])('%s (target %s)', (value, target, expected) => expect(requestOf(value, target)).toEqual(expected));

  it.each([['fly'], ['choice'], ['{target=x}continue'], ['_none_'], [''], [3]])('refuses %p', (value) => expect(requestOf(value)).toBeNull());
});

describe('initialCmi of a resumed SCORM 2004 attempt', () => {
  const learner = { id: 'l1', name: 'Lovelace, Ada' };
  const objectives: Array<Record<string, string>> = [
    { id: 'obj3', success_status: 'failed', 'score.scaled': '0.2', description: 'kept' },
    { id: 'obj4', success_status: 'passed' },
  ];
  it('gives back the cmi.objectives the SCO left when it suspended; the sequencer overlays what it knows', () => {
    const cmi = initialCmi('2004', { exit: 'suspend', runtimeObjectives: objectives }, learner, { totalSeconds: 0 });
    expect(cmi).toMatchObject({
      'cmi.entry': 'resume',
      'cmi.objectives.0.id': 'obj3',
      'cmi.objectives.0.success_status': 'failed',
      'cmi.objectives.0.score.scaled': '0.2',
      'cmi.objectives.0.description': 'kept',
      'cmi.objectives.1.id': 'obj4',
      'cmi.objectives.1.success_status': 'passed',
    });
    // The sequencer's known value of obj3 (a shared measure of 0.7) wins; obj4 keeps the SCO's own value.
    const engine = { objectiveData: () => ({ obj3: { progressStatus: false, satisfiedStatus: false, measureStatus: true, normalizedMeasure: 0.7 } }) };
    objectiveCmi(engine as never, 'a', cmi);
    expect(cmi['cmi.objectives.0.score.scaled']).toBe('0.7');
    expect(cmi['cmi.objectives.0.success_status']).toBe('failed');
  });
  it('a new attempt starts without them', () => {
    const cmi = initialCmi('2004', { exit: 'normal', runtimeObjectives: objectives }, learner, { totalSeconds: 0 });
    expect(Object.keys(cmi).filter((k) => k.startsWith('cmi.objectives.'))).toEqual([]);
  });
});
