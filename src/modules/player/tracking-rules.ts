import type { ActivityResult, Completion, Success } from '../registrations/registration-types';
import type { SequencingDefinition } from '../sequencing/sequencing-definition';
import type { ActivityState, FlatCmi, ScormVersion } from './scorm-runtime';

/**
 * The tracking and data model settings (issue #17) a launch reads once with the rollup settings: how the server
 * turns what a SCO reports into the activity's status and score (TrackingRules, kept in the session for its
 * commits), and what the page's SCORM API enforces and how it commits (PlayerClientSettings, sent with the page).
 */
export const TRACKING_SETTING_IDS = [
  'PlayerScoreOverridesStatus',
  'PlayerFirstScoIsPretest',
  'PlayerSatisfiedCausesCompletion',
  'PlayerCompletionStatOfFailedSuccessStat',
  'PlayerIsCompletionTracked',
  'PlayerIsSatisfactionTracked',
  'PlayerIsScoreTracked',
  'PlayerIsIncompleteSatisfactionMeaningful',
  'PlayerIsIncompleteScoreMeaningful',
  'PlayerScaleRawScore',
  'PlayerAllowCompleteStatusChange',
  'PlayerMakeStudentPrefsGlobalToCourse',
  'PlayerForceObjectiveCompletionSetByContent',
] as const;

/** The settings of the page's SCORM API and commits (read at launch with the others, kept in the session). */
export const CLIENT_SETTING_IDS = ['PlayerCommCommitFrequency', 'PlayerCommMaxFailedSubmissions', 'PlayerFinishCausesImmediateCommit', 'PlayerSuspendDataMaxLength', 'PreferSendBeacon'] as const;

/**
 * The page's settings that change nothing unless set somewhere on the fallback chain (read with the UI settings'
 * explicit values): PlayerValidateInteractionResponses' catalogue default, YES, would refuse SCORM 1.2 responses
 * that content sends today (choice answers longer than one character, "true" for a true-false question).
 */
export const EXPLICIT_CLIENT_SETTING_IDS = ['PlayerValidateInteractionResponses', 'MaxPersistRuntimeDataAttempts'] as const;

/** How many times the server tries to store a commit that loses a race with another write before answering 409 (MaxPersistRuntimeDataAttempts unset). */
export const DEFAULT_PERSIST_ATTEMPTS = 5;

/**
 * SCORM 1.2 RTE 3.4.4 (CMIFeedback): the format of cmi.interactions.n.student_response and
 * cmi.interactions.n.correct_responses.n.pattern for each interaction type (regular expression sources; the empty
 * string, no response, is valid for every type). Types not listed (fill-in, performance) take any CMIString255.
 */
const ONE = '[0-9a-z]';
const list = (item: string) => `${item}(,${item})*`;
export const SCORM12_RESPONSE_FORMATS: Readonly<Record<string, string>> = {
  'true-false': '^([01tf])?$',
  choice: `^(${list(ONE)}|\\{${list(ONE)}\\})?$`,
  'fill-in': '^[\\s\\S]{0,255}$',
  numeric: '^(-?([0-9]+(\\.[0-9]*)?|\\.[0-9]+))?$',
  likert: `^(${ONE})?$`,
  matching: `^(${list(`${ONE}\\.${ONE}`)}|\\{${list(`${ONE}\\.${ONE}`)}\\})?$`,
  performance: '^[\\s\\S]{0,255}$',
  sequencing: `^(${list(ONE)})?$`,
};

export interface TrackingRules {
  /** SCORM 1.2/AICC: with a mastery score, the raw score decides passed/failed (and completed) whatever status the SCO set. */
  scoreOverridesStatus: boolean;
  /** SCORM 1.2: passing the first SCO completes the others. */
  firstScoIsPretest: boolean;
  /** SCORM 2004: passed makes the activity completed. */
  satisfiedCausesCompletion: boolean;
  /** SCORM 1.2/AICC: the completion of a failed SCO (PlayerCompletionStatOfFailedSuccessStat Completed / Incomplete; others leave it). */
  completionOfFailed?: 'COMPLETED' | 'INCOMPLETE';
  completionTracked: boolean;
  satisfactionTracked: boolean;
  scoreTracked: boolean;
  incompleteSatisfactionMeaningful: boolean;
  incompleteScoreMeaningful: boolean;
  /** SCORM 2004: a raw score without a scaled one is scaled (by min/max, else as a percentage). */
  scaleRawScore: boolean;
  /** SCORM 1.2/AICC: a completed (passed, failed) SCO may go back to incomplete. */
  allowCompleteStatusChange: boolean;
  /** Learner preferences a SCO sets apply to every SCO of the course. */
  globalPreferences: boolean;
  /** SCORM 2004: every activity's completionSetByContent and objectiveSetByContent are true (the LMS never sets them at the end of an attempt). */
  forceSetByContent?: boolean;
}

/** The catalogue's defaults (sessions launched before these settings were read use them). */
export const DEFAULT_TRACKING_RULES: TrackingRules = {
  scoreOverridesStatus: false,
  firstScoIsPretest: false,
  satisfiedCausesCompletion: false,
  completionTracked: true,
  satisfactionTracked: true,
  scoreTracked: true,
  incompleteSatisfactionMeaningful: true,
  incompleteScoreMeaningful: true,
  scaleRawScore: false,
  allowCompleteStatusChange: false,
  globalPreferences: false,
};

/** What the page's SCORM API enforces and how it commits. */
export interface PlayerClientSettings {
  /** PlayerCommCommitFrequency in seconds: the page commits this long after the SCO's last change (0: only on Commit/Finish). */
  commitSeconds: number;
  /** PlayerCommMaxFailedSubmissions: failed commits in a row before the page tells the learner. */
  maxFailedSubmissions: number;
  /** PlayerFinishCausesImmediateCommit: LMSFinish/Terminate commits at once (else with the next timed commit). */
  finishImmediateCommit: boolean;
  /** PlayerSuspendDataMaxLength: longest suspend_data SetValue accepts (null: the standard's own limit). */
  suspendDataMaxLength: number | null;
  /** PreferSendBeacon: the commits of an unloading page go by navigator.sendBeacon (else fetch keepalive). */
  sendBeacon: boolean;
  /**
   * PlayerValidateInteractionResponses when set somewhere: true, SCORM 1.2 responses and correct response patterns
   * are checked against their interaction type's format (SCORM 2004's always are); false, any text is taken (SCORM 1.2
   * and 2004). Absent: SCORM 2004's are checked, SCORM 1.2's are not.
   */
  validateResponses?: boolean;
  /**
   * MaxPersistRuntimeDataAttempts when set somewhere: the server's attempts at storing a commit that loses a race
   * with another write of the registration before it answers 409 (the page then retries). Absent: DEFAULT_PERSIST_ATTEMPTS.
   */
  persistAttempts?: number;
}

export const DEFAULT_CLIENT_SETTINGS: PlayerClientSettings = { commitSeconds: 10, maxFailedSubmissions: 2, finishImmediateCommit: true, suspendDataMaxLength: null, sendBeacon: false };

/** SCORM 2004's smallest permitted maximum of cmi.suspend_data (RTE 4.2.23): the catalogue's default (4096, SCORM 1.2's) does not lower it. */
const SCORM2004_SUSPEND_DATA_SPM = 64_000;

const yes = (values: ReadonlyMap<string, string>, id: string, fallback: boolean): boolean => {
  const v = values.get(id);
  return v === undefined ? fallback : /^(yes|true)$/i.test(v);
};
const whole = (values: ReadonlyMap<string, string>, id: string, fallback: number): number => {
  const n = Number(values.get(id));
  return values.has(id) && Number.isSafeInteger(n) && n >= 0 ? n : fallback;
};

/** The tracking rules of a launch from the effective values of TRACKING_SETTING_IDS. */
export function trackingRulesOf(values: ReadonlyMap<string, string>): TrackingRules {
  const d = DEFAULT_TRACKING_RULES;
  const failed = values.get('PlayerCompletionStatOfFailedSuccessStat');
  return {
    scoreOverridesStatus: yes(values, 'PlayerScoreOverridesStatus', d.scoreOverridesStatus),
    firstScoIsPretest: yes(values, 'PlayerFirstScoIsPretest', d.firstScoIsPretest),
    satisfiedCausesCompletion: yes(values, 'PlayerSatisfiedCausesCompletion', d.satisfiedCausesCompletion),
    ...(failed === 'Completed' ? { completionOfFailed: 'COMPLETED' as const } : failed === 'Incomplete' ? { completionOfFailed: 'INCOMPLETE' as const } : {}),
    completionTracked: yes(values, 'PlayerIsCompletionTracked', d.completionTracked),
    satisfactionTracked: yes(values, 'PlayerIsSatisfactionTracked', d.satisfactionTracked),
    scoreTracked: yes(values, 'PlayerIsScoreTracked', d.scoreTracked),
    incompleteSatisfactionMeaningful: yes(values, 'PlayerIsIncompleteSatisfactionMeaningful', d.incompleteSatisfactionMeaningful),
    incompleteScoreMeaningful: yes(values, 'PlayerIsIncompleteScoreMeaningful', d.incompleteScoreMeaningful),
    scaleRawScore: yes(values, 'PlayerScaleRawScore', d.scaleRawScore),
    allowCompleteStatusChange: yes(values, 'PlayerAllowCompleteStatusChange', d.allowCompleteStatusChange),
    globalPreferences: yes(values, 'PlayerMakeStudentPrefsGlobalToCourse', d.globalPreferences),
    ...(yes(values, 'PlayerForceObjectiveCompletionSetByContent', false) ? { forceSetByContent: true } : {}),
  };
}

/**
 * The page's settings of a launch from the effective values of CLIENT_SETTING_IDS and the values of
 * EXPLICIT_CLIENT_SETTING_IDS set somewhere on the fallback chain.
 */
export function clientSettingsOf(version: ScormVersion, values: ReadonlyMap<string, string>, explicit: ReadonlyMap<string, string> = new Map()): PlayerClientSettings {
  const d = DEFAULT_CLIENT_SETTINGS;
  const max = values.has('PlayerSuspendDataMaxLength') ? whole(values, 'PlayerSuspendDataMaxLength', 0) : null;
  const validate = explicit.get('PlayerValidateInteractionResponses');
  const persist = Number(explicit.get('MaxPersistRuntimeDataAttempts'));
  return {
    ...(validate !== undefined ? { validateResponses: /^(yes|true)$/i.test(validate) } : {}),
    ...(Number.isSafeInteger(persist) && persist >= 1 ? { persistAttempts: Math.min(persist, 50) } : {}),
    commitSeconds: whole(values, 'PlayerCommCommitFrequency', d.commitSeconds * 1000) / 1000,
    maxFailedSubmissions: whole(values, 'PlayerCommMaxFailedSubmissions', d.maxFailedSubmissions),
    finishImmediateCommit: yes(values, 'PlayerFinishCausesImmediateCommit', d.finishImmediateCommit),
    suspendDataMaxLength: max === null || (version === '2004' && max === 4096) ? (version === '2004' ? SCORM2004_SUSPEND_DATA_SPM : max) : max,
    sendBeacon: yes(values, 'PreferSendBeacon', d.sendBeacon),
  };
}

const num = (v: unknown): number | undefined => {
  if (v === undefined || v === null || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
};

/** An activity's state after the tracking rules; `scoreDropped`: the activity keeps no score (not tracked, or not meaningful now). */
export type TrackedState = ActivityState & { scoreDropped?: true };

/**
 * Applies the tracking rules to what activityStateOf made of a commit. `previous`: the activity's status before the
 * commit; `passing`: its scaled passing score (SCORM 1.2 mastery score / 100). Every rule leaves the state alone with
 * the catalogue's defaults, except a SCORM 1.2 status that would move away from completed (PlayerAllowCompleteStatusChange NO).
 */
export function applyTrackingRules(version: ScormVersion, cmi: FlatCmi, state: ActivityState, rules: TrackingRules, previous: { completion: Completion; success: Success } | undefined, passing: number | undefined): TrackedState {
  const out: TrackedState = { ...state, runtime: { ...state.runtime } };
  const setCompletion = (c: Completion) => {
    out.completion = c;
    if (version === '1.2') out.runtime.completionStatus = c === 'COMPLETED' ? 'completed' : c === 'INCOMPLETE' ? 'incomplete' : out.runtime.completionStatus;
  };
  const setSuccess = (s: Success) => {
    out.success = s;
    out.runtime.runtimeSuccessStatus = s;
  };
  if (version === '1.2') {
    const raw = num(cmi['cmi.core.score.raw']);
    if (rules.scoreOverridesStatus && raw !== undefined && passing !== undefined) {
      setSuccess(raw / 100 >= passing ? 'PASSED' : 'FAILED');
      setCompletion('COMPLETED');
    }
    if (rules.completionOfFailed && out.success === 'FAILED') setCompletion(rules.completionOfFailed);
    if (!rules.allowCompleteStatusChange && previous?.completion === 'COMPLETED' && out.completion !== 'COMPLETED') {
      setCompletion('COMPLETED');
      if (out.success === 'UNKNOWN') setSuccess(previous.success);
    }
  } else {
    const raw = num(cmi['cmi.score.raw']);
    if (rules.scaleRawScore && out.scoreScaled === undefined && raw !== undefined) {
      const min = num(cmi['cmi.score.min']);
      const max = num(cmi['cmi.score.max']);
      const scaled = Math.min(1, Math.max(-1, min !== undefined && max !== undefined && max > min ? (raw - min) / (max - min) : raw / 100));
      out.scoreScaled = scaled;
      out.runtime.scoreScaled = String(scaled);
      const threshold = num(cmi['cmi.scaled_passing_score']) ?? passing;
      if (out.success === 'UNKNOWN' && threshold !== undefined) setSuccess(scaled >= threshold ? 'PASSED' : 'FAILED');
    }
    if (rules.satisfiedCausesCompletion && out.success === 'PASSED') out.completion = 'COMPLETED';
  }
  if (out.completion !== 'COMPLETED') {
    if (!rules.incompleteSatisfactionMeaningful) out.success = 'UNKNOWN';
    if (!rules.incompleteScoreMeaningful) dropScore(out);
  }
  if (!rules.completionTracked) out.completion = 'UNKNOWN';
  if (!rules.satisfactionTracked) out.success = 'UNKNOWN';
  if (!rules.scoreTracked) dropScore(out);
  return out;
}

function dropScore(state: TrackedState): void {
  delete state.scoreScaled;
  state.scoreDropped = true;
}

/** Whether the rules can change a commit's state at all (the commit skips them, and the copy of the data model, when not). */
export function changesState(version: ScormVersion, rules: TrackingRules, previous: Completion | undefined): boolean {
  const d = DEFAULT_TRACKING_RULES;
  return (
    rules.scoreOverridesStatus !== d.scoreOverridesStatus ||
    rules.completionOfFailed !== undefined ||
    (version === '1.2' && !rules.allowCompleteStatusChange && previous === 'COMPLETED') ||
    rules.scaleRawScore !== d.scaleRawScore ||
    rules.satisfiedCausesCompletion !== d.satisfiedCausesCompletion ||
    !rules.incompleteSatisfactionMeaningful ||
    !rules.incompleteScoreMeaningful ||
    !rules.completionTracked ||
    !rules.satisfactionTracked ||
    !rules.scoreTracked
  );
}

/**
 * SCORM 2004 sequenced courses: the data model the sequencing engine reads, with the status and score the rules
 * decided (the engine, not the commit's state, tracks the activity).
 */
export function ruledCmi(cmi: FlatCmi, state: TrackedState): FlatCmi {
  const out: FlatCmi = { ...cmi };
  out['cmi.completion_status'] = state.completion === 'COMPLETED' ? 'completed' : state.completion === 'INCOMPLETE' ? 'incomplete' : 'unknown';
  out['cmi.success_status'] = state.success === 'PASSED' ? 'passed' : state.success === 'FAILED' ? 'failed' : 'unknown';
  if (state.scoreScaled !== undefined) out['cmi.score.scaled'] = String(state.scoreScaled);
  if (state.scoreDropped) for (const k of ['cmi.score.scaled', 'cmi.score.raw', 'cmi.score.min', 'cmi.score.max']) delete out[k];
  return out;
}

const leavesOf = (node: ActivityResult): ActivityResult[] => (node.children?.length ? node.children.flatMap(leavesOf) : [node]);

/** PlayerFirstScoIsPretest: the first SCO passed completes every other SCO of the course. True when it changed the tree. */
export function applyPretest(tree: ActivityResult, activityId: string): boolean {
  const [first, ...rest] = leavesOf(tree);
  if (first?.id !== activityId || first.activitySuccess !== 'PASSED') return false;
  let changed = false;
  for (const leaf of rest) {
    if (leaf.activityCompletion === 'COMPLETED') continue;
    leaf.activityCompletion = 'COMPLETED';
    leaf.completionAmount = { scaled: 1 };
    changed = true;
  }
  return changed;
}

/** PlayerMakeStudentPrefsGlobalToCourse: the preferences a SCO set become every SCO's. */
export function shareLearnerPreference(tree: ActivityResult, preference: NonNullable<NonNullable<ActivityResult['runtime']>['learnerPreference']>): void {
  for (const leaf of leavesOf(tree)) leaf.runtime = { ...(leaf.runtime ?? {}), learnerPreference: { ...preference } };
}

/** The definitions with the SetByContent flags forced, by the definition they were made from (definitions are cached and immutable). */
const forcedDefinitions = new WeakMap<SequencingDefinition, SequencingDefinition>();

/** PlayerForceObjectiveCompletionSetByContent: the course's sequencing definition with both flags true on every activity. */
export function sequencingDefinitionFor(def: SequencingDefinition, rules: TrackingRules | undefined): SequencingDefinition {
  if (!rules?.forceSetByContent) return def;
  let forced = forcedDefinitions.get(def);
  if (!forced) {
    const activities = Object.fromEntries(Object.entries(def.activities).map(([id, a]) => [id, { ...a, completionSetByContent: true, objectiveSetByContent: true }]));
    forced = { ...def, activities };
    forcedDefinitions.set(def, forced);
  }
  return forced;
}
