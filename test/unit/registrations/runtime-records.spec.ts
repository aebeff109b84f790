/** Runtime interactions and objectives as the API reports them (RuntimeInteractionSchema, RuntimeObjectiveSchema). */
import { runtimeInteractionOf, runtimeObjectiveOf } from '../../../src/modules/registrations/runtime-records';

describe('runtimeInteractionOf', () => {
  it('maps a SCORM 2004 interaction (data model names, as the player stores it) to the schema', () => {
    expect(
      runtimeInteractionOf({
        id: 'q1',
        type: 'long-fill-in',
        'objectives.1.id': 'obj-b',
        'objectives.0.id': 'obj-a',
        timestamp: '2026-11-26T10:00:00+01:00',
        'correct_responses.1.pattern': 'second',
        'correct_responses.0.pattern': 'first',
        weighting: '2',
        learner_response: 'an essay',
        result: 'neutral',
        latency: 'PT12S',
        description: 'Explain',
      }),
    ).toEqual({
      id: 'q1',
      type: 'LongFillIn',
      objectives: ['obj-a', 'obj-b'],
      timestamp: '2026-11-26T10:00:00+01:00',
      timestampUtc: '2026-11-26T09:00:00.000Z',
      correctResponses: ['first', 'second'],
      weighting: '2',
      learnerResponse: 'an essay',
      result: 'neutral',
      latency: 'PT12S',
      description: 'Explain',
    });
  });

  it('maps SCORM 1.2 names: time, student_response, "wrong" as "incorrect"; a timestamp without a zone has no UTC form', () => {
    expect(runtimeInteractionOf({ id: 'q2', type: 'true-false', time: '10:00:05', student_response: 't', result: 'wrong' })).toEqual({
      id: 'q2',
      type: 'TrueFalse',
      objectives: [],
      timestamp: '10:00:05',
      correctResponses: [],
      learnerResponse: 't',
      result: 'incorrect',
    });
  });

  it('keeps records already under the schema names (xAPI interactions, an initialRegistrationState) as they are', () => {
    const given = { id: 'x1', type: 'Choice', correctResponses: ['a[,]b'], objectives: [], learnerResponse: 'a[,]b', result: 'correct', timestamp: '2026-11-26T09:00:00Z', timestampUtc: '2026-11-26T09:00:00Z' };
    expect(runtimeInteractionOf(given)).toEqual(given);
    expect(runtimeInteractionOf({ id: 'x2', type: 'bogus' })).toMatchObject({ type: 'Other' });
  });
});

describe('runtimeObjectiveOf', () => {
  it('maps SCORM 2004 objectives', () => {
    expect(runtimeObjectiveOf({ id: 'o1', 'score.scaled': '0.8', 'score.raw': '8', 'score.min': '0', 'score.max': '10', success_status: 'passed', completion_status: 'incomplete', progress_measure: '0.5', description: 'd' })).toEqual({
      id: 'o1',
      scoreScaled: '0.8',
      scoreRaw: '8',
      scoreMin: '0',
      scoreMax: '10',
      runtimeObjectiveSuccessStatus: 'PASSED',
      runtimeObjectiveCompletionStatus: 'INCOMPLETE',
      progressMeasure: '0.5',
      description: 'd',
    });
  });

  it.each([
    ['passed', 'PASSED', 'COMPLETED'],
    ['failed', 'FAILED', 'COMPLETED'],
    ['completed', 'UNKNOWN', 'COMPLETED'],
    ['incomplete', 'UNKNOWN', 'INCOMPLETE'],
    ['browsed', 'UNKNOWN', 'BROWSED'],
    ['not attempted', 'UNKNOWN', 'NOT_ATTEMPTED'],
  ])('SCORM 1.2 status %s: success %s, completion %s', (status, success, completion) => {
    expect(runtimeObjectiveOf({ id: 'o', status })).toEqual({ id: 'o', runtimeObjectiveSuccessStatus: success, runtimeObjectiveCompletionStatus: completion });
  });

  it('an objective without statuses is UNKNOWN / UNKNOWN', () => {
    expect(runtimeObjectiveOf({ id: 'o' })).toEqual({ id: 'o', runtimeObjectiveSuccessStatus: 'UNKNOWN', runtimeObjectiveCompletionStatus: 'UNKNOWN' });
  });
});
