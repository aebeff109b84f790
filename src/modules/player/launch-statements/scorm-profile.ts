import { createHash } from 'node:crypto';
import { ActivityState, activityStateOf, collectionIndex, FlatCmi, parseDuration, ScormVersion } from '../scorm-runtime';
import type { Json } from '../../xapi/lrs/statement-keys';

/**
 * Statements of a SCORM launch following the ADL xAPI SCORM Profile: the SCO is the object (type `lesson`), the
 * course its parent and grouping, the profile in `category`, the registration's xapiRegistrationId in
 * `context.registration`. Pure functions: LaunchStatements feeds them what it knows.
 */
export const SCORM_PROFILE = 'https://w3id.org/xapi/scorm';
const ADL = 'http://adlnet.gov/expapi/verbs/';
export type ScormVerb = 'launched' | 'initialized' | 'resumed' | 'suspended' | 'terminated' | 'completed' | 'passed' | 'failed' | 'scored' | 'responded';

/** What every statement of a launch shares. */
export interface LaunchContext {
  publicUrl: string;
  courseId: string;
  courseTitle: string;
  activityId: string;
  activityTitle: string;
  learner: { id: string; name?: string };
  /** The registration's xapiRegistrationId. */
  registration: string;
  instance: number;
  standard: ScormVersion;
}

/** What a launch's statements name that the player knows at launch (kept with the session, so jobs read nothing). */
export type StatementSubject = Pick<LaunchContext, 'courseId' | 'courseTitle' | 'activityTitle' | 'learner' | 'registration'>;

/** The SCO's outcome as the profile's statements need it (kept between commits to see what changed). */
export interface ReportedState {
  completion: string;
  success: string;
  score: string | null;
  interactions: number;
}

export const NOTHING_REPORTED: ReportedState = { completion: 'UNKNOWN', success: 'UNKNOWN', score: null, interactions: 0 };

/** A UUID derived from its parts: a job that runs twice stores the same statements, which the LRS takes as no-ops. */
export function stableUuid(...parts: Array<string | number>): string {
  const h = createHash('sha256').update(parts.join('\n')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function courseIri(c: LaunchContext): string {
  return `${c.publicUrl}/xapi/activities/course/${encodeURIComponent(c.courseId)}`;
}

export function scoIri(c: LaunchContext): string {
  return `${courseIri(c)}/sco/${encodeURIComponent(c.activityId)}`;
}

function verb(name: ScormVerb): { display: Record<string, string>; id: string } {
  return { display: { 'en-US': name }, id: `${ADL}${name}` };
}

// The objects of a statement are built with their keys in order: the LRS's canonical JSON (its content hash and
// stored form) then has nothing to sort.
function base(c: LaunchContext, name: ScormVerb, at: Date, id: string): Record<string, Json> {
  const course = { definition: { name: { und: c.courseTitle }, type: 'http://adlnet.gov/expapi/activities/course' }, id: courseIri(c), objectType: 'Activity' };
  return {
    actor: { account: { homePage: c.publicUrl, name: c.learner.id }, ...(c.learner.name ? { name: c.learner.name } : {}), objectType: 'Agent' },
    context: {
      contextActivities: { category: [{ id: SCORM_PROFILE, objectType: 'Activity' }], grouping: [course], parent: [course] },
      extensions: { 'https://w3id.org/xapi/scorm/extensions/instance': c.instance },
      registration: c.registration,
    },
    id,
    object: { definition: { name: { und: c.activityTitle }, type: 'http://adlnet.gov/expapi/activities/lesson' }, id: scoIri(c), objectType: 'Activity' },
    timestamp: at.toISOString(),
    verb: verb(name),
  };
}

/** launched, then initialized (a new attempt) or resumed (a suspended one). */
export function launchStatements(c: LaunchContext, at: Date, launchKey: string, resumed: boolean): Json[] {
  return [base(c, 'launched', at, stableUuid(launchKey, 'launched')), base(c, resumed ? 'resumed' : 'initialized', at, stableUuid(launchKey, resumed ? 'resumed' : 'initialized'))];
}

interface Interaction {
  index: number;
  id: string;
  type?: string;
  response?: string;
  result?: string;
  description?: string;
}

/** The interactions of a commit from index `from` on (those before it were stated already). */
function interactionsOf(cmi: FlatCmi, from: number): Interaction[] {
  const rows = new Map<number, Record<string, string>>();
  const head = INTERACTIONS.length;
  for (const key in cmi) {
    // Cheap tests first: a commit has a hundred keys or more (suspend data, objectives, the journal re-sent).
    if (!key.startsWith(INTERACTIONS)) continue;
    const index = collectionIndex(key, head);
    if (index < 0 || index < from) continue;
    const value = cmi[key];
    const field = key.slice(key.indexOf('.', head) + 1);
    if (!/^[a-z_]+$/.test(field) || typeof value !== 'string' || value === '') continue;
    const row = rows.get(index) ?? {};
    row[field] = value;
    rows.set(index, row);
  }
  return [...rows.entries()]
    .filter(([, r]) => r.id)
    .sort(([a], [b]) => a - b)
    .map(([index, r]) => ({ index, id: r.id, type: r.type, response: r.student_response ?? r.learner_response, result: r.result, description: r.description }));
}

const INTERACTIONS = 'cmi.interactions.';

const INTERACTION_TYPES: Record<string, string> = {
  'true-false': 'true-false',
  choice: 'choice',
  'fill-in': 'fill-in',
  'long-fill-in': 'long-fill-in',
  matching: 'matching',
  performance: 'performance',
  sequencing: 'sequencing',
  likert: 'likert',
  numeric: 'numeric',
  other: 'other',
};

/** What a commit reports that earlier ones did not: completed, passed/failed, scored, responded; on the last commit, suspended or terminated. */
export function commitStatements(
  c: LaunchContext,
  cmi: FlatCmi,
  previous: ReportedState,
  at: Date,
  /** The id of each statement (by verb, and interaction index for `responded`). */
  idOf: (verb: ScormVerb, suffix: string) => string,
  final: boolean,
  passing?: number,
  /** The commit's activity state when the caller has it (activityStateOf of the same cmi and passing score). */
  known?: Pick<ActivityState, 'completion' | 'success' | 'scoreScaled' | 'suspended'>,
): { statements: Json[]; state: ReportedState } {
  const s = known ?? activityStateOf(c.standard, cmi, undefined, passing);
  const v12 = c.standard === '1.2';
  const num = (k: string): number | undefined => {
    const raw = cmi[k];
    const n = typeof raw === 'string' && raw !== '' ? Number(raw) : typeof raw === 'number' ? raw : NaN;
    return Number.isFinite(n) ? n : undefined;
  };
  const score: Record<string, number> = {};
  const raw = num(v12 ? 'cmi.core.score.raw' : 'cmi.score.raw');
  const min = num(v12 ? 'cmi.core.score.min' : 'cmi.score.min');
  const max = num(v12 ? 'cmi.core.score.max' : 'cmi.score.max');
  if (s.scoreScaled !== undefined) score.scaled = Math.round(s.scoreScaled * 10_000) / 10_000;
  if (raw !== undefined && (min === undefined || raw >= min) && (max === undefined || raw <= max)) score.raw = raw;
  if (min !== undefined) score.min = min;
  if (max !== undefined && (min === undefined || max >= min)) score.max = max;
  const scoreKey = Object.keys(score).length > 0 ? JSON.stringify(score) : null;
  const out: Json[] = [];
  const add = (name: ScormVerb, result?: Record<string, Json>, extra: Record<string, Json> = {}, suffix = '') => {
    out.push({ ...base(c, name, at, idOf(name, suffix)), ...(result ? { result } : {}), ...extra });
  };
  const withScore = scoreKey !== null ? { score } : {};
  if (s.completion === 'COMPLETED' && previous.completion !== 'COMPLETED') add('completed', { completion: true, ...withScore });
  if ((s.success === 'PASSED' || s.success === 'FAILED') && s.success !== previous.success) {
    add(s.success === 'PASSED' ? 'passed' : 'failed', { completion: s.completion === 'COMPLETED', ...withScore, success: s.success === 'PASSED' });
  } else if (scoreKey !== null && scoreKey !== previous.score) {
    add('scored', { score });
  }
  const interactions = interactionsOf(cmi, previous.interactions);
  for (const i of interactions) {
    const type = INTERACTION_TYPES[(i.type ?? '').toLowerCase()] ?? 'other';
    const result: Record<string, Json> = { ...(i.response !== undefined ? { response: i.response } : {}) };
    if (i.result === 'correct') result.success = true;
    else if (i.result === 'wrong' || i.result === 'incorrect') result.success = false;
    add(
      'responded',
      Object.keys(result).length > 0 ? result : undefined,
      {
        object: {
          definition: { ...(i.description ? { description: { und: i.description } } : {}), interactionType: type, type: 'http://adlnet.gov/expapi/activities/cmi.interaction' },
          id: `${scoIri(c)}/interactions/${encodeURIComponent(i.id)}`,
          objectType: 'Activity',
        },
      },
      String(i.index),
    );
  }
  if (final) {
    const seconds = parseDuration(c.standard, cmi[v12 ? 'cmi.core.session_time' : 'cmi.session_time']);
    const duration = seconds !== null ? { duration: `PT${Math.round(seconds * 100) / 100}S` } : {};
    add(s.suspended ? 'suspended' : 'terminated', Object.keys(duration).length > 0 ? duration : undefined);
  }
  const state: ReportedState = {
    completion: s.completion === 'COMPLETED' || previous.completion === 'COMPLETED' ? 'COMPLETED' : s.completion,
    success: s.success === 'UNKNOWN' ? previous.success : s.success,
    score: scoreKey ?? previous.score,
    interactions: Math.max(previous.interactions, interactions.length === 0 ? 0 : interactions[interactions.length - 1].index + 1),
  };
  return { statements: out, state };
}
