/** The player's glue to the sequencing engine: the SCO's data model as run-time results, navigation requests. */
import { requestOf, runtimeResultsOf } from '../../../src/modules/player/player-sequencing';

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
