/**
 * The runtime interactions and objectives of an activity as the API reports them (RuntimeInteractionSchema,
 * RuntimeObjectiveSchema). The tree stores what the content sent: a SCORM SCO's `cmi.interactions.n.*` and
 * `cmi.objectives.n.*` elements under their data model names (a resumed attempt gets them back from there), an xAPI
 * course's interactions and an initialRegistrationState's records under the schema's names. Responses map both to the
 * schema; a record's fields that neither names are left out.
 */

import { ownValue } from '../../platform/records';

type StoredRecord = Record<string, string | string[]>;

/** Interaction types (SCORM 1.2 and 2004 data model, xAPI interactionType: the same names) → RuntimeInteractionSchema `type`. */
const INTERACTION_TYPES: Record<string, string> = {
  'true-false': 'TrueFalse',
  choice: 'Choice',
  'fill-in': 'FillIn',
  'long-fill-in': 'LongFillIn',
  likert: 'Likert',
  matching: 'Matching',
  performance: 'Performance',
  sequencing: 'Sequencing',
  numeric: 'Numeric',
  other: 'Other',
};
const SCHEMA_TYPES = new Set(Object.values(INTERACTION_TYPES));

/** The RuntimeInteractionSchema type of a data model or xAPI interaction type; undefined when it names none. */
export function schemaInteractionType(type: string): string | undefined {
  return ownValue(INTERACTION_TYPES, type);
}

const OBJECTIVE_SUCCESS: Record<string, string> = { passed: 'PASSED', failed: 'FAILED', unknown: 'UNKNOWN' };
const OBJECTIVE_COMPLETION: Record<string, string> = { completed: 'COMPLETED', incomplete: 'INCOMPLETE', 'not attempted': 'NOT_ATTEMPTED', browsed: 'BROWSED', unknown: 'UNKNOWN' };

const text = (v: string | string[] | undefined): string | undefined => (typeof v === 'string' ? v : Array.isArray(v) ? v.join(',') : undefined);
const list = (v: string | string[] | undefined): string[] | undefined => (Array.isArray(v) ? v : typeof v === 'string' ? [v] : undefined);

/** `prefix.n.field` values in index order (`correct_responses.0.pattern`, `objectives.1.id`). */
function indexed(r: StoredRecord, prefix: string, field: string): string[] {
  const found: Array<[number, string]> = [];
  const re = new RegExp(`^${prefix}\\.(\\d+)\\.${field}$`);
  for (const [k, v] of Object.entries(r)) {
    const m = re.exec(k);
    if (m && typeof v === 'string') found.push([Number(m[1]), v]);
  }
  return found.sort((a, b) => a[0] - b[0]).map(([, v]) => v);
}

/** An ISO 8601 timestamp with a zone as UTC ('…Z'); undefined when it has none or is not a date. */
function utcOf(timestamp: string | undefined): string | undefined {
  if (!timestamp || !/(Z|[+-]\d\d(:?\d\d)?)$/.test(timestamp)) return undefined;
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

/** The record without its undefined fields. */
function defined(o: Record<string, string | string[] | undefined>): StoredRecord {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o as StoredRecord;
}

export function runtimeInteractionOf(r: StoredRecord): StoredRecord {
  const type = text(r.type);
  const correctResponses = list(r.correctResponses) ?? indexed(r, 'correct_responses', 'pattern');
  const objectives = list(r.objectives) ?? indexed(r, 'objectives', 'id');
  const timestamp = text(r.timestamp) ?? text(r.time);
  const result = text(r.result);
  return defined({
    id: text(r.id),
    type: type === undefined ? undefined : SCHEMA_TYPES.has(type) ? type : (schemaInteractionType(type) ?? 'Other'),
    objectives,
    timestamp,
    timestampUtc: text(r.timestampUtc) ?? utcOf(timestamp),
    correctResponses,
    weighting: text(r.weighting),
    learnerResponse: text(r.learnerResponse) ?? text(r.learner_response) ?? text(r.student_response),
    // SCORM 1.2 says "wrong" where SCORM 2004 and the API say "incorrect".
    result: result === 'wrong' ? 'incorrect' : result,
    latency: text(r.latency),
    description: text(r.description),
  });
}

export function runtimeObjectiveOf(r: StoredRecord): Record<string, string> {
  // SCORM 1.2 has one status for both (cmi.objectives.n.status): passed/failed say success and completion.
  const status12 = text(r.status);
  const success = text(r.runtimeObjectiveSuccessStatus) ?? ownValue(OBJECTIVE_SUCCESS, text(r.success_status) ?? (status12 === 'passed' || status12 === 'failed' ? status12 : 'unknown')) ?? 'UNKNOWN';
  const completion =
    text(r.runtimeObjectiveCompletionStatus) ??
    ownValue(OBJECTIVE_COMPLETION, text(r.completion_status) ?? (status12 === 'passed' || status12 === 'failed' ? 'completed' : (status12 ?? 'unknown'))) ??
    'UNKNOWN';
  return defined({
    id: text(r.id),
    scoreScaled: text(r.scoreScaled) ?? text(r['score.scaled']),
    scoreMin: text(r.scoreMin) ?? text(r['score.min']),
    scoreMax: text(r.scoreMax) ?? text(r['score.max']),
    scoreRaw: text(r.scoreRaw) ?? text(r['score.raw']),
    runtimeObjectiveSuccessStatus: success,
    runtimeObjectiveCompletionStatus: completion,
    progressMeasure: text(r.progressMeasure) ?? text(r.progress_measure),
    description: text(r.description),
  }) as Record<string, string>;
}
