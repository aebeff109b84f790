/**
 * The LMS's checks of the statements an AU sends in a cmi5 session (cmi5 spec 9, as ADL's LMS test suite checks them):
 * each statement is accepted or refused with the requirement it breaks, and the session's state moves on.
 */
import type { ActivityResult } from '../registrations/registration-types';
import { agentKey, type Json } from '../xapi/lrs/statement-keys';
import { CMI5_CATEGORY, CMI5_EXT, type LaunchMode, MOVEON_CATEGORY, VERB } from './cmi5-launch';
import type { XapiAccountAgent } from './xapi-launch';

/** One cmi5 session (one launch of one AU), kept with the player session. */
export interface Cmi5SessionState {
  /** The cmi5 session id (the sessionid extension). */
  id: string;
  /** The AU's publisher id (the launchable's id). */
  auId: string;
  /** The AU's activity id given by the LMS. */
  activityId: string;
  registration: string;
  actor: XapiAccountAgent;
  launchMode: LaunchMode;
  masteryScore?: number;
  /** ms since the epoch. */
  launchedAt: number;
  /** The fetch URL answered its one auth token. */
  fetched?: boolean;
  /** The AU read cmi5LearnerPreferences (before initialized, cmi5 11.0.0.0-3). */
  preferencesRead?: boolean;
  initialized?: boolean;
  terminated?: boolean;
  abandoned?: boolean;
  /** cmi5 defined verbs the AU sent in this session (completed, passed, failed). */
  sent?: string[];
  /** LcdsCmi5StrictMode: the AU's lapses that cmi5 does not let an LMS refuse are refused all the same. */
  strict?: boolean;
}

/** The AU's status in the registration so far (the registration tree's node). */
export type AuRecord = Pick<ActivityResult, 'activityCompletion' | 'activitySuccess'>;

/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call -- statements are free-form JSON */
const ids = (list: Json): string[] => (Array.isArray(list) ? list.map((c: Json) => (typeof c?.id === 'string' ? c.id : '')) : []);
const UTC = /(Z|[+-]00:?00)$/i;

/**
 * Why the session refuses this statement (a message naming the cmi5 requirement), or null when it accepts it. `state`
 * is updated as if the statement were stored (for the next statement of the same batch); `record` is the AU's
 * status in the registration.
 *
 * What is refused: the statement rules of cmi5 section 9, which the LMS SHOULD reject (6.3, and what ADL's LMS test
 * suite checks it rejects), voiding (6.3: an AU may not void), and the statements of launch modes that record no
 * satisfaction (10.2.2). What the AU owes otherwise, which cmi5 gives the LMS no right to refuse for (reading
 * cmi5LearnerPreferences before initialized, 11.0), is a lapse: pushed to `lapses` (the launch's history log says
 * it) and accepted, unless the session is strict (LcdsCmi5StrictMode), which refuses it.
 */
export function cmi5StatementProblem(state: Cmi5SessionState, record: AuRecord, s: Record<string, Json>, lapses?: string[]): string | null {
  const verb: string = typeof s.verb?.id === 'string' ? s.verb.id : '';
  if (s.actor?.objectType !== undefined && s.actor.objectType !== 'Agent') return 'the actor must be an Agent (cmi5 9.2.0.0-2)';
  if (agentKey(s.actor) !== agentKey(state.actor) || s.actor?.account === undefined) return 'the actor must be the launch actor, identified by its account (cmi5 9.2.0.0-3)';
  if (typeof s.id !== 'string') return 'the AU must give every statement an id (cmi5 9.1.0.0-1)';
  if (typeof s.timestamp !== 'string') return 'the AU must give every statement a timestamp (cmi5 9.7.0.0-1)';
  if (!UTC.test(s.timestamp)) return 'the timestamp must be in UTC (cmi5 9.7.0.0-2)';
  if (verb === VERB.voided) return 'an AU may not void statements (cmi5 6.3.0.0-1)';
  const context = s.context;
  if (!context || typeof context !== 'object') return 'every statement needs a context (cmi5 9.6.0.0-1)';
  if (typeof context.registration !== 'string' || context.registration.toLowerCase() !== state.registration.toLowerCase()) return 'context.registration must be the launch registration (cmi5 9.6.1.0-1)';
  if (context.extensions?.[CMI5_EXT.sessionId] !== state.id) return 'context.extensions must carry the session id of LMS.LaunchData (cmi5 9.6.3.1-4)';
  const categories = ids(context.contextActivities?.category);
  const defined = categories.includes(CMI5_CATEGORY);
  const moveOnCategory = categories.includes(MOVEON_CATEGORY);
  const scoring = verb === VERB.completed || verb === VERB.passed || verb === VERB.failed;
  if (!state.initialized && !(defined && verb === VERB.initialized)) return 'the first statement of a session must be initialized (cmi5 9.3.0.0-4)';
  if (!defined) {
    if (moveOnCategory) return 'the moveOn category is only for completed, passed and failed statements (cmi5 9.6.2.2-2)';
    return null;
  }
  // cmi5 defined statements
  if (![VERB.initialized, VERB.completed, VERB.passed, VERB.failed, VERB.terminated].includes(verb as never)) return `the cmi5 category is only for cmi5 defined statements; ${verb} is not one an AU sends (cmi5 9.6.2.1)`;
  if (s.object?.id !== state.activityId) return 'the object of a cmi5 defined statement must be the AU activity id of the launch (cmi5 8.1.5.0-6)';
  if (scoring && !moveOnCategory) return `a ${verb.split('/').pop()} statement needs the moveOn category (cmi5 9.6.2.2-1)`;
  if (!scoring && moveOnCategory) return 'the moveOn category is only for completed, passed and failed statements (cmi5 9.6.2.2-2)';
  const result = s.result;
  const score = result?.score;
  if (score && typeof score.raw === 'number' && (typeof score.min !== 'number' || typeof score.max !== 'number')) return 'a raw score needs min and max (cmi5 9.5.1.0-3)';
  const sent = state.sent ?? [];
  switch (verb) {
    case VERB.initialized:
      if (state.initialized) return 'initialized may be sent once per session (cmi5 9.3.2.0-3)';
      if (!state.preferencesRead) {
        const lapse = 'the AU must read the agent profile cmi5LearnerPreferences before initialized (cmi5 11.0.0.0-3)';
        if (state.strict) return lapse;
        lapses?.push(lapse);
      }
      state.initialized = true;
      return null;
    case VERB.terminated:
      if (typeof result?.duration !== 'string') return 'terminated needs result.duration (cmi5 9.5.4.1-1)';
      state.terminated = true;
      return null;
  }
  if (state.launchMode !== 'Normal') return `in ${state.launchMode} mode an AU may send only initialized and terminated (cmi5 10.2.2.0-${state.launchMode === 'Browse' ? 2 : 3})`;
  if (typeof result?.duration !== 'string') return `${verb.split('/').pop()} needs result.duration (cmi5 9.5.4.1)`;
  const masteryExt: unknown = context.extensions?.[CMI5_EXT.masteryScore];
  if (verb === VERB.completed) {
    if (result.completion !== true) return 'completed needs result.completion true (cmi5 9.5.3.0-1)';
    if (result.success !== undefined) return 'completed may not carry result.success (cmi5 9.5.2.0-3)';
    if (score !== undefined) return 'completed may not carry a score (cmi5 9.5.1.0-2)';
    if (sent.includes(verb)) return 'completed may be sent once per session (cmi5 9.3.0.0-2)';
    if (record.activityCompletion === 'COMPLETED') return 'completed may be sent once per registration (cmi5 9.3.0.0-6)';
  } else {
    const passed = verb === VERB.passed;
    if (result.success !== passed) return `${passed ? 'passed' : 'failed'} needs result.success ${passed} (cmi5 9.5.2.0-${passed ? 1 : 2})`;
    if (result.completion !== undefined) return `${passed ? 'passed' : 'failed'} may not carry result.completion (cmi5 9.5.3.0-2)`;
    if (state.masteryScore !== undefined) {
      // A statement judged against the masteryScore (it has a score) says so with the extension; any extension must be the launch's.
      if ((score !== undefined || masteryExt !== undefined) && masteryExt !== state.masteryScore) return `a ${passed ? 'passed' : 'failed'} statement needs the masteryScore extension of the launch (${state.masteryScore}) (cmi5 9.6.3.2-2)`;
      const scaled: unknown = score?.scaled;
      if (passed && typeof scaled === 'number' && scaled < state.masteryScore) return `passed with a score below the masteryScore ${state.masteryScore} (cmi5 9.3.4.0-2)`;
      if (!passed && typeof scaled === 'number' && scaled >= state.masteryScore) return `failed with a score at or above the masteryScore ${state.masteryScore} (cmi5 9.3.5.0-2)`;
    }
    if (sent.includes(VERB.passed) || sent.includes(VERB.failed)) return 'passed or failed may be sent once per session (cmi5 9.3.0.0-2, 9.3.0.0-3)';
    if (record.activitySuccess === 'PASSED') return passed ? 'passed may be sent once per registration (cmi5 9.3.0.0-7)' : 'failed may not follow passed in a registration (cmi5 9.3.0.0-8)';
  }
  state.sent = [...sent, verb];
  return null;
}
/* eslint-enable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call */
