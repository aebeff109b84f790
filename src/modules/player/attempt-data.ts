import type { ActivityResult, Runtime } from '../registrations/registration-types';
import { formatTracked, trackedSeconds } from './scorm-runtime';

/**
 * What a new attempt on a SCO starts with. SCORM 2004 (RTE 4.2.7 cmi.entry, SN DB.2): only a suspended attempt
 * resumes; a new attempt starts with a fresh data model. SCORM 1.2 (RTE 3.4.4 cmi.core.entry): ab-initio unless the
 * SCO left with exit "suspend". PlayerResetRunTimeData says when the player wipes the run-time data (cmi) of a SCO:
 * NEVER (the next attempt sees the last one's data, entry ""), WHEN_EXIT_IS_NOT_SUSPEND (a new attempt after an exit
 * other than suspend starts fresh: the default, as SCORM Cloud sets it on imported courses), ON_EACH_NEW_SEQUENCING_ATTEMPT
 * (every new attempt starts fresh, whatever the exit).
 */
export const ATTEMPT_SETTING_IDS = ['PlayerResetRunTimeData', 'PlayerLaunchCompletedRegsAsNoCredit'] as const;

export type ResetTiming = 'NEVER' | 'WHEN_EXIT_IS_NOT_SUSPEND' | 'ON_EACH_NEW_SEQUENCING_ATTEMPT';
const TIMINGS: readonly ResetTiming[] = ['NEVER', 'WHEN_EXIT_IS_NOT_SUSPEND', 'ON_EACH_NEW_SEQUENCING_ATTEMPT'];

/** The launch's PlayerResetRunTimeData (the catalogue's default when unset or unknown). */
export function resetTimingOf(values: ReadonlyMap<string, string>): ResetTiming {
  const v = values.get('PlayerResetRunTimeData');
  return (TIMINGS as readonly (string | undefined)[]).includes(v) ? (v as ResetTiming) : 'WHEN_EXIT_IS_NOT_SUSPEND';
}

/**
 * PlayerLaunchCompletedRegsAsNoCredit (SCORM 1.1/1.2 and AICC): a launch of a registration that is completed or passed
 * runs in no-credit mode, so that what the SCO reports does not change its results.
 */
export function launchesAsNoCredit(learningStandard: string, values: ReadonlyMap<string, string>, summary: { completion: string; success: string }): boolean {
  if (!/^(SCORM11|SCORM12|AICC)$/.test(learningStandard)) return false;
  if (!/^(yes|true)$/i.test(values.get('PlayerLaunchCompletedRegsAsNoCredit') ?? 'YES')) return false;
  return summary.completion === 'COMPLETED' || summary.success === 'PASSED';
}

/** Seconds of the activity's current attempt (cmi.total_time): its runtime's total time, else (older data) the activity's. */
export const attemptSecondsOf = (node: ActivityResult | null | undefined): number => trackedSeconds(node?.runtime?.totalTime ?? node?.timeTracked);

/** SCORM courses (not AICC, media, xAPI or cmi5) whose run-time data PlayerResetRunTimeData governs. */
export const resetsRuntimeData = (learningStandard: string, media: boolean): boolean => !media && /^SCORM/.test(learningStandard);

/**
 * Starts a new attempt on an activity (its attempt count has moved on): the run-time data is wiped when the timing
 * says so, except on the first attempt (whatever initialRegistrationState gave it stays). Learner preferences belong to
 * the learner, not to the attempt, and stay. Returns whether it wiped.
 *
 * `bySequencer`: the SCORM 2004 sequencer began the attempt, so the last one ended (exit all, a retry, a new attempt
 * on its parent): whatever cmi.exit the SCO left, its attempt is not resumed (a suspended attempt resumes through
 * resume all or a choice, and the sequencer then counts no new attempt; RTE 4.2.8 cmi.entry), so only NEVER keeps it.
 */
export function startNewAttempt(node: ActivityResult, timing: ResetTiming | undefined, previousAttempts: number, keepScore: boolean, bySequencer = false): boolean {
  if (!timing || timing === 'NEVER' || previousAttempts < 1 || !node.runtime) return false;
  if (timing === 'WHEN_EXIT_IS_NOT_SUSPEND' && node.runtime.exit === 'suspend' && !bySequencer) return false;
  const preference = node.runtime.learnerPreference;
  node.runtime = { ...(preference ? { learnerPreference: preference } : {}), totalTime: formatTracked(0) } satisfies Runtime;
  node.suspended = false;
  // A non-sequenced SCO's score is its attempt's (the sequencer keeps its activities' scores itself; a no-credit
  // launch changes no result).
  if (!keepScore) delete node.score;
  return true;
}
