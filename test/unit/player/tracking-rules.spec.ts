/** The tracking and data model settings of issue #17 as pure rules: what a commit's status and score become. */
import type { ActivityResult } from '../../../src/modules/registrations/registration-types';
import type { SequencingDefinition } from '../../../src/modules/sequencing/sequencing-definition';
import { activityStateOf, FlatCmi, ScormVersion } from '../../../src/modules/player/scorm-runtime';
import { applyPretest, applyTrackingRules, changesState, clientSettingsOf, DEFAULT_TRACKING_RULES, ruledCmi, SCORM12_RESPONSE_FORMATS, sequencingDefinitionFor, shareLearnerPreference, TrackingRules, trackingRulesOf } from '../../../src/modules/player/tracking-rules';

const rules = (values: Record<string, string>): TrackingRules => trackingRulesOf(new Map(Object.entries(values)));
/** "completion success score" of a commit under the rules. */
function outcome(version: ScormVersion, cmi: FlatCmi, r: TrackingRules, opts: { passing?: number; previous?: { completion: 'COMPLETED' | 'INCOMPLETE' | 'UNKNOWN'; success: 'PASSED' | 'FAILED' | 'UNKNOWN' } } = {}): string {
  const s = applyTrackingRules(version, cmi, activityStateOf(version, cmi, undefined, opts.passing), r, opts.previous, opts.passing);
  return `${s.completion} ${s.success}${s.scoreScaled !== undefined ? ` ${s.scoreScaled}` : ''}${s.scoreDropped ? ' dropped' : ''}`;
}

describe('trackingRulesOf / clientSettingsOf: effective values → rules', () => {
  it('the catalogue defaults give the default rules; YES/NO and true/false are read', () => {
    expect(rules({ PlayerScoreOverridesStatus: 'NO', PlayerIsScoreTracked: 'YES', PlayerCompletionStatOfFailedSuccessStat: 'Unknown' })).toEqual(DEFAULT_TRACKING_RULES);
    expect(rules({ PlayerScoreOverridesStatus: 'YES', PlayerCompletionStatOfFailedSuccessStat: 'Incomplete', PlayerIsScoreTracked: 'NO' })).toMatchObject({ scoreOverridesStatus: true, completionOfFailed: 'INCOMPLETE', scoreTracked: false });
    // Browsed / Not_Attempted are stored but not acted on (only completed/incomplete are).
    expect(rules({ PlayerCompletionStatOfFailedSuccessStat: 'Browsed' }).completionOfFailed).toBeUndefined();
  });

  it('commit frequency in ms becomes the page\'s seconds; SCORM 2004 keeps its 64000 suspend data unless a smaller limit than the default is set', () => {
    const v = (o: Record<string, string>) => new Map(Object.entries(o));
    expect(clientSettingsOf('1.2', v({ PlayerCommCommitFrequency: '2500', PlayerCommMaxFailedSubmissions: '4', PlayerFinishCausesImmediateCommit: 'NO', PlayerSuspendDataMaxLength: '4096', PreferSendBeacon: 'true' }))).toEqual({
      commitSeconds: 2.5,
      maxFailedSubmissions: 4,
      finishImmediateCommit: false,
      suspendDataMaxLength: 4096,
      sendBeacon: true,
    });
    expect(clientSettingsOf('2004', v({ PlayerSuspendDataMaxLength: '4096' })).suspendDataMaxLength).toBe(64000);
    expect(clientSettingsOf('2004', v({ PlayerSuspendDataMaxLength: '100' })).suspendDataMaxLength).toBe(100);
    expect(clientSettingsOf('2004', v({})).commitSeconds).toBe(10);
  });
});

describe('PlayerValidateInteractionResponses', () => {
  it('changes the page only when set somewhere on the fallback chain (its explicit value)', () => {
    const v = (o: Record<string, string>) => new Map(Object.entries(o));
    expect(clientSettingsOf('1.2', v({}), v({})).validateResponses).toBeUndefined();
    expect(clientSettingsOf('1.2', v({}), v({ PlayerValidateInteractionResponses: 'YES' })).validateResponses).toBe(true);
    expect(clientSettingsOf('2004', v({}), v({ PlayerValidateInteractionResponses: 'NO' })).validateResponses).toBe(false);
  });

  it('SCORM 1.2 formats (RTE 3.4.4 CMIFeedback) of each interaction type', () => {
    const takes = (type: string, value: string) => new RegExp(SCORM12_RESPONSE_FORMATS[type]).test(value);
    const cases: Array<[string, string[], string[]]> = [
      ['true-false', ['0', '1', 't', 'f', ''], ['true', 'T', '2']],
      ['choice', ['a', 'a,c,9', '{a,b}', ''], ['The UN', 'ab', 'a,', '{a,b', 'A']],
      ['fill-in', ['any text, even\nover lines', 'x'.repeat(255)], ['x'.repeat(256)]],
      ['numeric', ['18', '-1.5', '.5', '3.'], ['eighteen', '1e3', '--1']],
      ['likert', ['3', 'z', ''], ['34', 'strongly agree']],
      ['matching', ['1.a', '1.a,2.c', '{1.a,2.b}'], ['1-a', '1.ab', 'a']],
      ['performance', ['step one; step two'], ['x'.repeat(256)]],
      ['sequencing', ['a,b,c', 'c'], ['abc', 'a;b']],
    ];
    for (const [type, good, bad] of cases) {
      expect([type, good.filter((g) => !takes(type, g))]).toEqual([type, []]);
      expect([type, bad.filter((b) => takes(type, b))]).toEqual([type, []]);
    }
  });
});

describe('applyTrackingRules: SCORM 1.2', () => {
  const incomplete90 = { 'cmi.core.lesson_status': 'incomplete', 'cmi.core.score.raw': '90' };

  it('PlayerScoreOverridesStatus: with a mastery score the raw score decides, whatever status the SCO set', () => {
    expect(outcome('1.2', incomplete90, DEFAULT_TRACKING_RULES, { passing: 0.8 })).toBe('INCOMPLETE UNKNOWN');
    expect(outcome('1.2', incomplete90, rules({ PlayerScoreOverridesStatus: 'YES' }), { passing: 0.8 })).toBe('COMPLETED PASSED');
    expect(outcome('1.2', { ...incomplete90, 'cmi.core.score.raw': '70' }, rules({ PlayerScoreOverridesStatus: 'YES' }), { passing: 0.8 })).toBe('COMPLETED FAILED');
    // Without a mastery score there is nothing to compare with.
    expect(outcome('1.2', incomplete90, rules({ PlayerScoreOverridesStatus: 'YES' }))).toBe('INCOMPLETE UNKNOWN');
  });

  it('PlayerCompletionStatOfFailedSuccessStat: a failed SCO is completed or incomplete as set (Unknown: as the SCO said)', () => {
    const failed = { 'cmi.core.lesson_status': 'failed' };
    expect(outcome('1.2', failed, DEFAULT_TRACKING_RULES)).toBe('COMPLETED FAILED');
    expect(outcome('1.2', failed, rules({ PlayerCompletionStatOfFailedSuccessStat: 'Incomplete' }))).toBe('INCOMPLETE FAILED');
    const s = applyTrackingRules('1.2', failed, activityStateOf('1.2', failed, undefined), rules({ PlayerCompletionStatOfFailedSuccessStat: 'Incomplete' }), undefined, undefined);
    expect(s.runtime.completionStatus).toBe('incomplete');
  });

  it('PlayerAllowCompleteStatusChange NO (default): a completed SCO stays completed (and passed); YES lets it go back', () => {
    const previous = { completion: 'COMPLETED' as const, success: 'PASSED' as const };
    const back = { 'cmi.core.lesson_status': 'incomplete' };
    expect(changesState('1.2', DEFAULT_TRACKING_RULES, 'COMPLETED')).toBe(true);
    expect(changesState('1.2', DEFAULT_TRACKING_RULES, 'INCOMPLETE')).toBe(false);
    expect(outcome('1.2', back, DEFAULT_TRACKING_RULES, { previous })).toBe('COMPLETED PASSED');
    expect(outcome('1.2', back, rules({ PlayerAllowCompleteStatusChange: 'YES' }), { previous })).toBe('INCOMPLETE UNKNOWN');
    // SCORM 2004 is not concerned.
    expect(outcome('2004', { 'cmi.completion_status': 'incomplete' }, DEFAULT_TRACKING_RULES, { previous })).toBe('INCOMPLETE UNKNOWN');
  });
});

describe('applyTrackingRules: SCORM 2004', () => {
  it('PlayerScaleRawScore: a raw score alone becomes the scaled score (by min/max, else a percentage), and decides success against the passing score', () => {
    expect(outcome('2004', { 'cmi.score.raw': '45' }, DEFAULT_TRACKING_RULES, { passing: 0.5 })).toBe('UNKNOWN UNKNOWN');
    expect(outcome('2004', { 'cmi.score.raw': '45' }, rules({ PlayerScaleRawScore: 'YES' }), { passing: 0.5 })).toBe('UNKNOWN FAILED 0.45');
    expect(outcome('2004', { 'cmi.score.raw': '15', 'cmi.score.min': '0', 'cmi.score.max': '20' }, rules({ PlayerScaleRawScore: 'YES' }))).toBe('UNKNOWN UNKNOWN 0.75');
    // A scaled score the SCO set wins.
    expect(outcome('2004', { 'cmi.score.raw': '15', 'cmi.score.scaled': '0.1' }, rules({ PlayerScaleRawScore: 'YES' }))).toBe('UNKNOWN UNKNOWN 0.1');
  });

  it('PlayerSatisfiedCausesCompletion: passed makes the activity completed', () => {
    const passed = { 'cmi.success_status': 'passed', 'cmi.completion_status': 'incomplete' };
    expect(outcome('2004', passed, DEFAULT_TRACKING_RULES)).toBe('INCOMPLETE PASSED');
    expect(outcome('2004', passed, rules({ PlayerSatisfiedCausesCompletion: 'YES' }))).toBe('COMPLETED PASSED');
  });
});

describe('applyTrackingRules: what is tracked and what is meaningful while incomplete (both standards)', () => {
  const cmi = { 'cmi.completion_status': 'incomplete', 'cmi.success_status': 'failed', 'cmi.score.scaled': '0.4' };
  it('not meaningful while incomplete: success and score are not kept until the activity is completed', () => {
    expect(outcome('2004', cmi, DEFAULT_TRACKING_RULES)).toBe('INCOMPLETE FAILED 0.4');
    expect(outcome('2004', cmi, rules({ PlayerIsIncompleteSatisfactionMeaningful: 'NO' }))).toBe('INCOMPLETE UNKNOWN 0.4');
    expect(outcome('2004', cmi, rules({ PlayerIsIncompleteScoreMeaningful: 'NO' }))).toBe('INCOMPLETE FAILED dropped');
    expect(outcome('2004', { ...cmi, 'cmi.completion_status': 'completed' }, rules({ PlayerIsIncompleteScoreMeaningful: 'NO', PlayerIsIncompleteSatisfactionMeaningful: 'NO' }))).toBe('COMPLETED FAILED 0.4');
  });
  it('not tracked: that part of the status is unknown, the score absent', () => {
    expect(outcome('2004', cmi, rules({ PlayerIsCompletionTracked: 'NO' }))).toBe('UNKNOWN FAILED 0.4');
    expect(outcome('2004', cmi, rules({ PlayerIsSatisfactionTracked: 'NO' }))).toBe('INCOMPLETE UNKNOWN 0.4');
    expect(outcome('1.2', { 'cmi.core.lesson_status': 'passed', 'cmi.core.score.raw': '80', 'cmi.core.score.max': '100' }, rules({ PlayerIsScoreTracked: 'NO' }))).toBe('COMPLETED PASSED dropped');
  });
  it('ruledCmi gives the sequencing engine the status and score the rules decided', () => {
    const state = applyTrackingRules('2004', cmi, activityStateOf('2004', cmi, undefined), rules({ PlayerIsScoreTracked: 'NO', PlayerIsSatisfactionTracked: 'NO' }), undefined, undefined);
    expect(ruledCmi({ ...cmi, 'cmi.score.raw': '4' }, state)).toEqual({ 'cmi.completion_status': 'incomplete', 'cmi.success_status': 'unknown' });
  });
});

describe('course-wide rules', () => {
  const tree = (): ActivityResult =>
    ({
      id: 'course',
      children: ['pre', 'a', 'b'].map((id) => ({ id, activityCompletion: id === 'b' ? 'INCOMPLETE' : 'UNKNOWN', activitySuccess: 'UNKNOWN', attempts: 0 })),
    }) as unknown as ActivityResult;

  it('PlayerFirstScoIsPretest: the first SCO passed completes the others; another SCO passed, or the first failed, does not', () => {
    const t = tree();
    t.children[0].activitySuccess = 'PASSED';
    expect(applyPretest(t, 'a')).toBe(false);
    expect(applyPretest(t, 'pre')).toBe(true);
    expect(t.children.slice(1).map((c) => c.activityCompletion)).toEqual(['COMPLETED', 'COMPLETED']);
    const failed = tree();
    failed.children[0].activitySuccess = 'FAILED';
    expect(applyPretest(failed, 'pre')).toBe(false);
  });

  it('PlayerMakeStudentPrefsGlobalToCourse: the preferences go to every SCO', () => {
    const t = tree();
    shareLearnerPreference(t, { language: 'fr', audioLevel: 2 });
    expect(t.children.map((c) => c.runtime?.learnerPreference)).toEqual([{ language: 'fr', audioLevel: 2 }, { language: 'fr', audioLevel: 2 }, { language: 'fr', audioLevel: 2 }]);
  });
});

describe('sequencingDefinitionFor', () => {
  it('PlayerForceObjectiveCompletionSetByContent: both flags true on every activity, one forced copy per definition; off: the definition itself', () => {
    const def = { root: 'r', order: ['r', 'a'], activities: { r: { completionSetByContent: false, objectiveSetByContent: false }, a: { completionSetByContent: false, objectiveSetByContent: true } } } as unknown as SequencingDefinition;
    const forced = rules({ PlayerForceObjectiveCompletionSetByContent: 'YES' });
    expect(sequencingDefinitionFor(def, DEFAULT_TRACKING_RULES)).toBe(def);
    const f = sequencingDefinitionFor(def, forced);
    expect(Object.values(f.activities).map((a) => [a.completionSetByContent, a.objectiveSetByContent])).toEqual([[true, true], [true, true]]);
    expect(sequencingDefinitionFor(def, forced)).toBe(f);
    expect(def.activities.a.completionSetByContent).toBe(false);
  });
});
