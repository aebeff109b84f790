/**
 * The LMS side of cmi5 (cmi5 spec sections 8–11), as pure functions: the launch URL's parameters, the LMS.LaunchData
 * document, the statements the LMS issues (launched, satisfied, abandoned, waived), and moveOn evaluation.
 */
import { createHash } from 'node:crypto';
import type { LaunchableActivity } from '../courses/packages/package-types';
import type { ActivityResult } from '../registrations/registration-types';
import type { Json } from '../xapi/lrs/statement-keys';
import { formatTracked, trackedSeconds } from './scorm-runtime';
import { launchParameters, type XapiAccountAgent } from './xapi-launch';

export const CMI5_CATEGORY = 'https://w3id.org/xapi/cmi5/context/categories/cmi5';
export const MOVEON_CATEGORY = 'https://w3id.org/xapi/cmi5/context/categories/moveon';
const EXT = 'https://w3id.org/xapi/cmi5/context/extensions/';
export const CMI5_EXT = {
  sessionId: `${EXT}sessionid`,
  masteryScore: `${EXT}masteryscore`,
  launchMode: `${EXT}launchmode`,
  launchUrl: `${EXT}launchurl`,
  moveOn: `${EXT}moveon`,
  launchParameters: `${EXT}launchparameters`,
} as const;
export const REASON_EXT = 'https://w3id.org/xapi/cmi5/result/extensions/reason';
export const LAUNCH_DATA_STATE = 'LMS.LaunchData';
export const LEARNER_PREFERENCES_PROFILE = 'cmi5LearnerPreferences';

export const VERB = {
  launched: 'http://adlnet.gov/expapi/verbs/launched',
  initialized: 'http://adlnet.gov/expapi/verbs/initialized',
  completed: 'http://adlnet.gov/expapi/verbs/completed',
  passed: 'http://adlnet.gov/expapi/verbs/passed',
  failed: 'http://adlnet.gov/expapi/verbs/failed',
  terminated: 'http://adlnet.gov/expapi/verbs/terminated',
  abandoned: 'https://w3id.org/xapi/adl/verbs/abandoned',
  waived: 'https://w3id.org/xapi/adl/verbs/waived',
  satisfied: 'https://w3id.org/xapi/adl/verbs/satisfied',
  voided: 'http://adlnet.gov/expapi/verbs/voided',
} as const;

export type LaunchMode = 'Normal' | 'Browse' | 'Review';
export type MoveOn = 'NotApplicable' | 'Passed' | 'Completed' | 'CompletedAndPassed' | 'CompletedOrPassed';

/** What the import kept of an AU (cmi5-parser.ts). */
export interface Cmi5Au {
  /** The publisher's AU id (cmi5.xml). */
  publisherId: string;
  moveOn: MoveOn;
  launchMethod: 'AnyWindow' | 'OwnWindow';
  masteryScore?: number;
  launchParameters?: string;
  entitlementKey?: string;
  blockIds: string[];
}

export function cmi5AuOf(launchable: LaunchableActivity): Cmi5Au {
  const d = launchable.data;
  return {
    publisherId: launchable.id,
    moveOn: (typeof d.moveOn === 'string' ? d.moveOn : 'NotApplicable') as MoveOn,
    launchMethod: d.launchMethod === 'OwnWindow' ? 'OwnWindow' : 'AnyWindow',
    ...(typeof d.masteryScore === 'number' ? { masteryScore: d.masteryScore } : {}),
    ...(typeof d.launchParameters === 'string' ? { launchParameters: d.launchParameters } : {}),
    ...(typeof d.entitlementKey === 'string' ? { entitlementKey: d.entitlementKey } : {}),
    blockIds: Array.isArray(d.blockIds) ? d.blockIds.filter((b): b is string => typeof b === 'string') : [],
  };
}

/**
 * The activity id the LMS gives a course, block or AU (cmi5 8.1.5.0-3: not the publisher's id): an IRI under the
 * service's public URL, the same for every launch of the course in the application (8.1.5.0-4).
 */
export function cmi5ActivityId(publicUrl: string, appId: string, courseId: string, kind: 'course' | 'block' | 'au', publisherId: string): string {
  const digest = createHash('sha256').update(`${appId}\n${courseId}\n${kind}\n${publisherId}`).digest('base64url').slice(0, 32);
  return `${publicUrl.replace(/\/+$/, '')}/cmi5/${kind}/${digest}`;
}

/** The cmi5 launch parameters (cmi5 8.1), to append to the AU's own url query. */
export function cmi5LaunchQuery(p: { endpoint: string; fetch: string; actor: XapiAccountAgent; registration: string; activityId: string }): string {
  return launchParameters({ endpoint: p.endpoint, fetch: p.fetch, actor: JSON.stringify(p.actor), registration: p.registration, activityId: p.activityId });
}

/** What a cmi5 session (one launch of one AU) is about. */
export interface Cmi5SessionFacts {
  sessionId: string;
  registration: string;
  actor: XapiAccountAgent;
  activityId: string;
  au: Cmi5Au;
  launchMode: LaunchMode;
}

/** contextTemplate of LMS.LaunchData (cmi5 10.2.1): the publisher id in grouping, the session id extension. */
export function contextTemplate(f: Cmi5SessionFacts): Record<string, Json> {
  return { contextActivities: { grouping: [{ objectType: 'Activity', id: f.au.publisherId }] }, extensions: { [CMI5_EXT.sessionId]: f.sessionId } };
}

/** The LMS.LaunchData state document (cmi5 10). */
export function launchData(f: Cmi5SessionFacts, returnURL: string, alternateEntitlementKey?: string): Record<string, Json> {
  return {
    contextTemplate: contextTemplate(f),
    launchMode: f.launchMode,
    launchMethod: f.au.launchMethod,
    moveOn: f.au.moveOn,
    returnURL,
    ...(f.au.masteryScore !== undefined ? { masteryScore: f.au.masteryScore } : {}),
    ...(f.au.launchParameters !== undefined ? { launchParameters: f.au.launchParameters } : {}),
    entitlementKey: { ...(f.au.entitlementKey !== undefined ? { courseStructure: f.au.entitlementKey } : {}), ...(alternateEntitlementKey ? { alternate: alternateEntitlementKey } : {}) },
  };
}

/* eslint-disable @typescript-eslint/no-unsafe-assignment -- statements are free-form JSON (Json) */
const verb = (id: string, en: string): Json => ({ id, display: { 'en-US': en } });

/** The context of a statement the LMS issues in a session. */
function lmsContext(f: Pick<Cmi5SessionFacts, 'sessionId' | 'registration'>, extra: { grouping?: Json[]; moveOn?: boolean; extensions?: Record<string, Json> }): Json {
  return {
    registration: f.registration,
    contextActivities: {
      category: [{ id: CMI5_CATEGORY }, ...(extra.moveOn ? [{ id: MOVEON_CATEGORY }] : [])],
      ...(extra.grouping ? { grouping: extra.grouping } : {}),
    },
    extensions: { [CMI5_EXT.sessionId]: f.sessionId, ...(extra.extensions ?? {}) },
  };
}

/** A statement the LMS issues about an activity in a session; `grouping` is the publisher's id of the object. */
function lmsStatement(
  f: Pick<Cmi5SessionFacts, 'sessionId' | 'registration' | 'actor'>,
  what: { verb: string; display: string; object: Json; grouping: string; at: Date; result?: Json; moveOn?: boolean; extensions?: Record<string, Json> },
): Record<string, Json> {
  return {
    id: crypto.randomUUID(),
    timestamp: what.at.toISOString(),
    actor: f.actor,
    verb: verb(what.verb, what.display),
    object: what.object,
    ...(what.result ? { result: what.result } : {}),
    context: lmsContext(f, { grouping: [{ objectType: 'Activity', id: what.grouping }], moveOn: what.moveOn, extensions: what.extensions }),
  };
}

const auObject = (f: Cmi5SessionFacts): Json => ({ objectType: 'Activity', id: f.activityId });

/** The launched statement (cmi5 9.3.1). */
export function launchedStatement(f: Cmi5SessionFacts, launchUrl: string, at: Date): Record<string, Json> {
  const extensions: Record<string, Json> = {
    [CMI5_EXT.launchMode]: f.launchMode,
    [CMI5_EXT.launchUrl]: launchUrl,
    [CMI5_EXT.moveOn]: f.au.moveOn,
    ...(f.au.launchParameters !== undefined ? { [CMI5_EXT.launchParameters]: f.au.launchParameters } : {}),
    ...(f.au.masteryScore !== undefined ? { [CMI5_EXT.masteryScore]: f.au.masteryScore } : {}),
  };
  return lmsStatement(f, { verb: VERB.launched, display: 'Launched', object: auObject(f), grouping: f.au.publisherId, at, extensions });
}

/** The abandoned statement of a session that ended without terminated (cmi5 9.3.6): its duration since the launch. */
export function abandonedStatement(f: Cmi5SessionFacts, launchedAt: Date, at: Date): Record<string, Json> {
  const seconds = Math.max(0, Math.round((at.getTime() - launchedAt.getTime()) / 1000));
  return lmsStatement(f, { verb: VERB.abandoned, display: 'Abandoned', object: auObject(f), grouping: f.au.publisherId, at, result: { duration: `PT${seconds}S` } });
}

/** The waived statement (cmi5 9.3.7): the AU is satisfied for a reason other than the learner's work. */
export function waivedStatement(f: Cmi5SessionFacts, reason: string, at: Date): Record<string, Json> {
  const result = { completion: true, success: true, extensions: { [REASON_EXT]: reason } };
  return lmsStatement(f, { verb: VERB.waived, display: 'Waived', object: auObject(f), grouping: f.au.publisherId, at, result, moveOn: true });
}

/** The satisfied statement of a block or the course (cmi5 9.3.9): object the LMS's id, grouping the publisher's. */
export function satisfiedStatement(f: Pick<Cmi5SessionFacts, 'sessionId' | 'registration' | 'actor'>, target: { kind: 'block' | 'course'; activityId: string; publisherId: string }, at: Date): Record<string, Json> {
  const object = { objectType: 'Activity', id: target.activityId, definition: { type: `https://w3id.org/xapi/cmi5/activitytype/${target.kind}` } };
  return lmsStatement(f, { verb: VERB.satisfied, display: 'Satisfied', object, grouping: target.publisherId, at });
}

/* eslint-enable @typescript-eslint/no-unsafe-assignment */

/** Whether an AU's moveOn criterion is met by its recorded status (cmi5 9.3.x, moveOn). */
export function moveOnMet(moveOn: MoveOn, node: Pick<ActivityResult, 'activityCompletion' | 'activitySuccess'>): boolean {
  const completed = node.activityCompletion === 'COMPLETED';
  const passed = node.activitySuccess === 'PASSED';
  switch (moveOn) {
    case 'NotApplicable':
      return true;
    case 'Completed':
      return completed;
    case 'Passed':
      return passed;
    case 'CompletedAndPassed':
      return completed && passed;
    case 'CompletedOrPassed':
      return completed || passed;
  }
}

/** A course or block node of the registration's tree that became satisfied. */
export interface NewlySatisfied {
  kind: 'block' | 'course';
  publisherId: string;
}

/**
 * Marks satisfied AUs, blocks and the course in the registration's tree (each once: `cmi5.satisfied`), and rolls the
 * course's status up: a block or the course is satisfied when every AU and block in it is (cmi5 9.3.9); its
 * completion is COMPLETED then (INCOMPLETE once an AU in it was launched). Its success comes from its AUs' passed
 * and failed (judged against their masteryScore), never from satisfaction alone: FAILED when an AU in it failed
 * last, PASSED when it is satisfied and an AU in it passed, UNKNOWN otherwise (e.g. AUs that only completed, or
 * NotApplicable ones). Its score is the mean of its AUs' scores, its time the sum of theirs. Returns the blocks and
 * course that became satisfied, innermost first (the order of their satisfied statements).
 */
export function rollUpCmi5(root: ActivityResult, aus: ReadonlyMap<string, Cmi5Au>): NewlySatisfied[] {
  const out: NewlySatisfied[] = [];
  const visit = (node: ActivityResult, isRoot: boolean): { satisfied: boolean; failed: boolean; passed: boolean; scores: number[] } => {
    const au = aus.get(node.id);
    if (au && node.children.length === 0) {
      const satisfied = node.cmi5?.satisfied === true || moveOnMet(au.moveOn, node);
      if (satisfied) node.cmi5 = { ...node.cmi5, satisfied: true };
      if (node.attempts > 0 && node.activityCompletion === 'UNKNOWN') node.activityCompletion = 'INCOMPLETE';
      return { satisfied, failed: node.activitySuccess === 'FAILED', passed: node.activitySuccess === 'PASSED', scores: node.score?.scaled !== undefined ? [node.score.scaled] : [] };
    }
    const parts = node.children.map((c) => visit(c, false));
    const seconds = node.children.reduce((sum, c) => sum + trackedSeconds(c.timeTracked), 0);
    if (seconds > 0) node.timeTracked = formatTracked(seconds);
    const satisfied = parts.every((p) => p.satisfied);
    const failed = parts.some((p) => p.failed);
    const passed = parts.some((p) => p.passed);
    const scores = parts.flatMap((p) => p.scores);
    if (satisfied) {
      if (node.cmi5?.satisfied !== true) out.push({ kind: isRoot ? 'course' : 'block', publisherId: node.id });
      node.cmi5 = { ...node.cmi5, satisfied: true };
      node.activityCompletion = 'COMPLETED';
      node.completionAmount = { scaled: 1 };
    } else if (node.children.some((c) => c.attempts > 0)) node.activityCompletion = 'INCOMPLETE';
    node.activitySuccess = failed ? 'FAILED' : satisfied && passed ? 'PASSED' : 'UNKNOWN';
    if (scores.length > 0) node.score = { scaled: scores.reduce((a, b) => a + b, 0) / scores.length };
    if (parts.length > 0 && node.children.some((c) => c.attempts > 0) && node.attempts === 0) node.attempts = 1;
    return { satisfied, failed, passed: node.activitySuccess === 'PASSED', scores };
  };
  visit(root, true);
  return out;
}
