/**
 * AICC HACP (CMI001 appendix A, the HTTP-based AICC/CMI protocol): the AU is launched with `aicc_sid` and
 * `aicc_url` on its query string and form-posts `command`, `version`, `session_id` and `aicc_data` to that URL.
 * This module is the protocol alone: the launch query, the INI-style `aicc_data` of GetParam/PutParam and the
 * tables of PutInteractions/PutObjectives, mapped to and from the flat SCORM 1.2 data model (`cmi.core.*`), which
 * is what AICC's CMI data model became.
 */
import { createHmac } from 'node:crypto';
import type { KeyRing } from '../../platform/crypto/keyring';
import { parseCsv, parseIni } from '../courses/packages/aicc-parser';
import { emptyRecord } from '../../platform/records';
import { type FlatCmi, MAX_COLLECTION_INDEX } from './scorm-runtime';

/** Where the HACP endpoint lives (under PUBLIC_URL). */
export const HACP_PATH = '/player/hacp';

export const HACP_COMMANDS = ['getparam', 'putparam', 'exitau', 'putinteractions', 'putobjectives', 'putcomments', 'putpath', 'putperformance'] as const;
export type HacpCommand = (typeof HACP_COMMANDS)[number];

/** HACP error codes (CMI001 A.7) with their standard texts. */
export const HACP_ERRORS = { 0: 'Successful', 1: 'Invalid Command', 2: 'Invalid AU password', 3: 'Invalid Session ID' } as const;
export type HacpError = keyof typeof HACP_ERRORS;

/** A HACP answer: `error=N`, `error_text=…`, then `aicc_data=…` (GetParam), lines ending CRLF. */
export function hacpResponse(error: HacpError, aiccData?: string, errorText: string = HACP_ERRORS[error]): string {
  return `error=${error}\r\nerror_text=${errorText}\r\n${aiccData !== undefined ? `aicc_data=${aiccData}\r\n` : ''}`;
}

// ---- session ids --------------------------------------------------------------------------------------------------

/**
 * The `aicc_sid` of one AU launch: the player session's id and a MAC of (session, activity), hex only (some AUs
 * put it in file names or cookies). An AU the player has moved away from no longer matches the session's activity.
 */
export function aiccSessionId(keys: KeyRing, sessionId: string, activityId: string): string {
  return aiccSid(keys.key('links'), sessionId, activityId);
}

/** Whether `sid` is the `aicc_sid` of (session, activity), made with the current master key or a previous one. */
export function isAiccSessionId(keys: KeyRing, sid: string, sessionId: string, activityId: string): boolean {
  const given = sid.trim().toLowerCase();
  return keys.verificationKeys('links').some((key) => aiccSid(key, sessionId, activityId) === given);
}

function aiccSid(key: Buffer, sessionId: string, activityId: string): string {
  const mac = createHmac('sha256', key).update(`aicc\n${sessionId}\n${activityId}`).digest('hex').slice(0, 32);
  return `${sessionId.replace(/-/g, '')}${mac}`;
}

/** The player session id inside an `aicc_sid` (to be checked against aiccSessionId), or null when it is not one. */
export function sessionIdOfAiccSid(sid: string): string | null {
  const m = /^([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})[0-9a-f]{32}$/.exec(sid.trim().toLowerCase());
  return m ? m.slice(1).join('-') : null;
}

/**
 * `AICC_SID=…&AICC_URL=…` for the AU's launch URL (both URL-encoded, as CMI001 A.3 asks). The names are
 * case-insensitive by CMI001, but many AUs look up only the upper-case ones, so they are sent upper case (as other
 * LMSs do); the HACP side reads its field, group and keyword names in any case.
 */
export function aiccLaunchQuery(sid: string, hacpUrl: string): string {
  return `AICC_SID=${encodeURIComponent(sid)}&AICC_URL=${encodeURIComponent(hacpUrl)}`;
}

// ---- values -----------------------------------------------------------------------------------------------------

const STATUS: Record<string, string> = { p: 'passed', c: 'completed', f: 'failed', i: 'incomplete', b: 'browsed', n: 'not attempted' };
const EXIT: Record<string, string> = { t: 'time-out', s: 'suspend', l: 'logout' };

/**
 * `Lesson_Status` of a PutParam: a status and an optional exit flag, full or abbreviated to its first letter
 * (`incomplete, suspend`, `i,s`, `P`). Null when the status is not one AICC knows.
 */
export function parseLessonStatus(value: string): { status: string; exit?: string } | null {
  const [head = '', flag = ''] = value.split(',').map((p) => p.trim().toLowerCase());
  const status = head === 'not attempted' || head === 'not_attempted' ? 'not attempted' : STATUS[head.charAt(0)];
  if (!status || (head.length > 1 && head !== status && head !== 'not_attempted')) return null;
  const exit = flag ? EXIT[flag.charAt(0)] : undefined;
  return exit ? { status, exit } : { status };
}

/** AICC CMITimespan (`H:MM:SS`, `HHHH:MM:SS.SS`) as SCORM 1.2 writes it; null when malformed. */
export function normalizeTimespan(value: string): string | null {
  const m = /^(\d{1,4}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,2})\d*)?$/.exec(value.trim());
  if (!m || Number(m[2]) > 59 || Number(m[3]) > 59) return null;
  return `${m[1].padStart(2, '0')}:${m[2].padStart(2, '0')}:${m[3].padStart(2, '0')}${m[4] ? `.${m[4].padEnd(2, '0')}` : ''}`;
}

/** `Score=raw[,max[,min]]` → the three numbers (blank parts stay unset); null when a part is not a number. */
export function parseScore(value: string): { raw?: string; max?: string; min?: string } | null {
  if (value.trim() === '') return {};
  const parts = value.split(',').map((p) => p.trim());
  if (parts.length > 3 || parts.some((p) => p !== '' && !Number.isFinite(Number(p)))) return null;
  const [raw, max, min] = parts.map((p) => (p === '' ? undefined : String(Number(p))));
  return { ...(raw !== undefined ? { raw } : {}), ...(max !== undefined ? { max } : {}), ...(min !== undefined ? { min } : {}) };
}

/** A value of the flat data model as text (scalars only; anything else is absent). */
export function flatValue(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

// ---- GetParam / PutParam ------------------------------------------------------------------------------------------

/** What GetParam tells the AU beyond the data model: the AU's `.au` fields. */
export interface AuStaticData {
  coreVendor?: string;
  masteryScore?: string;
  maxTimeAllowed?: string;
  timeLimitAction?: string;
}

/** The `aicc_data` of a GetParam answer, from the flat SCORM 1.2 data model the launch starts with. */
export function getParamData(cmi: FlatCmi, au: AuStaticData): string {
  const v = (k: string) => flatValue(cmi[k]) ?? '';
  const entry = v('cmi.core.entry');
  const status = v('cmi.core.lesson_status') || 'not attempted';
  const score = [v('cmi.core.score.raw'), v('cmi.core.score.max'), v('cmi.core.score.min')];
  while (score.length && score[score.length - 1] === '') score.pop();
  const lines = [
    '[Core]',
    `Student_ID=${v('cmi.core.student_id')}`,
    `Student_Name=${v('cmi.core.student_name')}`,
    `Lesson_Location=${v('cmi.core.lesson_location')}`,
    `Credit=${v('cmi.core.credit') || 'credit'}`,
    `Lesson_Status=${status}${entry ? `, ${entry}` : ''}`,
    `Score=${score.join(',')}`,
    `Time=${v('cmi.core.total_time') || '00:00:00'}`,
    `Lesson_Mode=${v('cmi.core.lesson_mode') || 'normal'}`,
    '[Core_Lesson]',
    ...(v('cmi.suspend_data') ? [v('cmi.suspend_data')] : []),
    '[Core_Vendor]',
    ...(au.coreVendor ? [au.coreVendor] : []),
    '[Evaluation]',
    'Course_ID=',
    '[Student_Data]',
    `Mastery_Score=${au.masteryScore ?? v('cmi.student_data.mastery_score')}`,
    `Max_Time_Allowed=${au.maxTimeAllowed ?? ''}`,
    `Time_Limit_Action=${au.timeLimitAction ?? ''}`,
  ];
  return lines.join('\r\n');
}

/**
 * A PutParam's `aicc_data` as changes to the flat data model ([Core], [Core_Lesson]) and the rows of its
 * [Objectives_Status] (`J_ID.n`, `J_Score.n`, `J_Status.n`, for objectivesToCmi), or what is wrong with it.
 */
export function putParamToCmi(aiccData: string): { cmi: FlatCmi; objectives: Array<Record<string, string>> } | { problem: string } {
  const ini = parseIni(aiccData);
  const core = ini.sections['core'] ?? {};
  const out: FlatCmi = {};
  if (core['lesson_location'] !== undefined) out['cmi.core.lesson_location'] = core['lesson_location'];
  if (core['lesson_status'] !== undefined && core['lesson_status'] !== '') {
    const ls = parseLessonStatus(core['lesson_status']);
    if (!ls) return { problem: `Lesson_Status "${core['lesson_status']}" is not an AICC lesson status` };
    out['cmi.core.lesson_status'] = ls.status;
    out['cmi.core.exit'] = ls.exit ?? '';
  }
  if (core['score'] !== undefined) {
    const score = parseScore(core['score']);
    if (!score) return { problem: `Score "${core['score']}" is not raw[,max[,min]]` };
    if (score.raw !== undefined) out['cmi.core.score.raw'] = score.raw;
    if (score.max !== undefined) out['cmi.core.score.max'] = score.max;
    if (score.min !== undefined) out['cmi.core.score.min'] = score.min;
  }
  if (core['time'] !== undefined && core['time'] !== '') {
    const t = normalizeTimespan(core['time']);
    if (!t) return { problem: `Time "${core['time']}" is not a timespan HH:MM:SS` };
    out['cmi.core.session_time'] = t;
  }
  if ('core_lesson' in ini.sections) out['cmi.suspend_data'] = ini.text['core_lesson'] ?? '';
  const objectives: Array<Record<string, string>> = [];
  for (const [key, value] of Object.entries(ini.sections['objectives_status'] ?? {})) {
    const m = /^(j_id|j_score|j_status)\.(\d+)$/.exec(key);
    if (m && Number(m[2]) >= 1 && Number(m[2]) <= MAX_COLLECTION_INDEX) (objectives[Number(m[2]) - 1] ??= emptyRecord())[m[1]] = value;
  }
  return { cmi: out, objectives: objectives.filter((o) => o) };
}

// ---- PutInteractions / PutObjectives --------------------------------------------------------------------------

/** An AICC table (header row, then rows), comma-separated with quoted fields, or tab-separated. */
export function parseHacpTable(text: string): Array<Record<string, string>> {
  const firstLine = text.split(/\r\n|\r|\n/, 1)[0] ?? '';
  const rows = firstLine.includes('\t') && !firstLine.includes(',') ? text.split(/\r\n|\r|\n/).filter((l) => l.trim()).map((l) => l.split('\t').map((c) => c.trim().replace(/^"(.*)"$/, '$1'))) : parseCsv(text);
  const [head = [], ...rest] = rows;
  const headers = head.map((h) => h.trim().toLowerCase());
  return rest.map((r) => Object.fromEntries(headers.map((h, i) => [h, (r[i] ?? '').trim()])));
}

const INTERACTION_TYPES: Record<string, string> = { t: 'true-false', c: 'choice', f: 'fill-in', m: 'matching', p: 'performance', s: 'sequencing', l: 'likert', n: 'numeric' };
const RESULTS: Record<string, string> = { c: 'correct', w: 'wrong', u: 'unanticipated', n: 'neutral' };

/** PutInteractions rows as `cmi.interactions.N.*`, numbered from `start` (the interactions are a journal). */
export function interactionsToCmi(rows: Array<Record<string, string>>, start: number): FlatCmi {
  const out: FlatCmi = {};
  rows.forEach((r, i) => {
    const p = `cmi.interactions.${start + i}`;
    const type = (r['type_interaction'] ?? r['type'] ?? '').toLowerCase();
    const result = (r['result'] ?? '').toLowerCase();
    const fields: Record<string, string | undefined> = {
      id: r['interaction_id'],
      'objectives.0.id': r['objective_id'],
      type: INTERACTION_TYPES[type.charAt(0)] && (type.length === 1 || Object.values(INTERACTION_TYPES).includes(type)) ? INTERACTION_TYPES[type.charAt(0)] : type || undefined,
      'correct_responses.0.pattern': r['correct_response'],
      student_response: r['student_response'],
      result: result.length === 1 && RESULTS[result] ? RESULTS[result] : result || undefined,
      weighting: r['weighting'],
      latency: r['latency'],
      time: r['time'],
    };
    for (const [k, v] of Object.entries(fields)) if (v) out[`${p}.${k}`] = v;
  });
  return out;
}

/** PutObjectives rows (`j_id`, `j_score`, `j_status`) as `cmi.objectives.N.*` (an objective's id keeps its index). */
export function objectivesToCmi(rows: Array<Record<string, string>>, current: FlatCmi): FlatCmi {
  const out: FlatCmi = {};
  const ids = new Map<string, number>();
  for (const [k, v] of Object.entries(current)) {
    const m = /^cmi\.objectives\.(\d+)\.id$/.exec(k);
    if (m && typeof v === 'string') ids.set(v, Number(m[1]));
  }
  for (const r of rows) {
    const id = r['j_id'] ?? r['objective_id'];
    if (!id) continue;
    const n = ids.get(id) ?? ids.size;
    ids.set(id, n);
    out[`cmi.objectives.${n}.id`] = id;
    const score = parseScore(r['j_score'] ?? r['score'] ?? '');
    if (score?.raw !== undefined) out[`cmi.objectives.${n}.score.raw`] = score.raw;
    if (score?.max !== undefined) out[`cmi.objectives.${n}.score.max`] = score.max;
    if (score?.min !== undefined) out[`cmi.objectives.${n}.score.min`] = score.min;
    const status = r['j_status'] ?? r['status'];
    if (status) out[`cmi.objectives.${n}.status`] = parseLessonStatus(status)?.status ?? status;
  }
  return out;
}

/** The number of interactions a flat data model holds (the next PutInteractions row is numbered from it). */
export function interactionCount(cmi: FlatCmi): number {
  let n = 0;
  for (const k of Object.keys(cmi)) {
    const m = /^cmi\.interactions\.(\d+)\./.exec(k);
    if (m) n = Math.max(n, Number(m[1]) + 1);
  }
  return n;
}
