/** What a commit's flat data model becomes on the activity: its collections (interactions, objectives) by index. */
import { activityStateOf, parseIsoDuration, parseScorm12Time, trackedSeconds } from '../../../src/modules/player/scorm-runtime';

describe('activityStateOf: collections of the data model', () => {
  it('gathers interactions and objectives by index, in index order, with their nested fields', () => {
    const state = activityStateOf('2004', {
      'cmi.interactions.1.id': 'q2',
      'cmi.interactions.0.id': 'q1',
      'cmi.interactions.0.result': 'correct',
      'cmi.interactions.0.correct_responses.0.pattern': 'a',
      'cmi.interactions.10.id': 'q11',
      'cmi.interactions.1.learner_response': 'b',
      'cmi.objectives.0.id': 'obj-1',
      'cmi.objectives.0.score.scaled': '0.5',
      'cmi.objectives.2.id': 'obj-3',
    }, undefined);
    expect(state.runtime.runtimeInteractions).toEqual([
      { id: 'q1', result: 'correct', 'correct_responses.0.pattern': 'a' },
      { id: 'q2', learner_response: 'b' },
      { id: 'q11' },
    ]);
    expect(state.runtime.runtimeObjectives).toEqual([{ id: 'obj-1', 'score.scaled': '0.5' }, { id: 'obj-3' }]);
  });

  it('leaves out keys that are not a record field: no index, no field, letters in the index, empty values', () => {
    const state = activityStateOf('1.2', {
      'cmi.interactions.0.id': 'kept',
      'cmi.interactions.': 'x',
      'cmi.interactions.3': 'x',
      'cmi.interactions.4.': 'x',
      'cmi.interactions.5x.id': 'x',
      'cmi.interactions.x.id': 'x',
      'cmi.interactions.6.id': '',
      'cmi.interactions.007.time': '10:00:00',
      'cmi.interactionsX.8.id': 'x',
    }, undefined);
    expect(state.runtime.runtimeInteractions).toEqual([{ id: 'kept' }, { time: '10:00:00' }]);
  });

  it('ignores a hostile index instead of making an array of that length', () => {
    const started = Date.now();
    const state = activityStateOf('2004', { 'cmi.interactions.0.id': 'q1', 'cmi.interactions.99999999.id': 'far', 'cmi.objectives.4294967294.id': 'far' }, undefined);
    expect(state.runtime.runtimeInteractions).toEqual([{ id: 'q1' }]);
    expect(state.runtime.runtimeObjectives).toEqual([]);
    expect(Date.now() - started).toBeLessThan(200);
  });
});

describe('time parsers: a stored tree may hold anything where a time belongs', () => {
  it('reads HHHH:MM:SS[.SS] and ISO 8601 durations', () => {
    expect(parseScorm12Time('0000:01:02.50')).toBe(62.5);
    expect(trackedSeconds(' 0001:00:00 ')).toBe(3600);
    expect(parseIsoDuration('PT1M2.5S')).toBe(62.5);
  });

  it('takes a value that is not a string as unreadable (0 seconds tracked), never throwing', () => {
    for (const value of [5, { h: 1 }, ['0000:00:01'], true, null, undefined]) {
      expect(parseScorm12Time(value)).toBeNull();
      expect(parseIsoDuration(value)).toBeNull();
      expect(trackedSeconds(value)).toBe(0);
    }
    expect(trackedSeconds('garbage')).toBe(0);
  });
});
