import type { ActivityResult, Completion, Runtime, Success } from '../registrations/registration-types';
import { formatTracked, parseIsoDuration, parseScorm12Time, trackedSeconds } from '../registrations/tracked-time';

// The registration's time format, kept by the registrations module; the player's code reads them from here too.
export { formatTracked, parseIsoDuration, parseScorm12Time, trackedSeconds } from '../registrations/tracked-time';

/** The runtime data model the SCO reported, flattened as scorm-again renders it (`cmi.core.lesson_status` …). */
export type FlatCmi = Record<string, unknown>;

export type ScormVersion = '1.2' | '2004';

export function parseDuration(version: ScormVersion, value: unknown): number | null {
  if (typeof value !== 'string' || value === '') return null;
  return version === '1.2' ? parseScorm12Time(value) : parseIsoDuration(value);
}

/** Seconds → ISO 8601 duration (SCORM 2004 cmi.total_time). */
export function isoDuration(seconds: number): string {
  const s = Math.max(0, seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = Math.round((s % 60) * 100) / 100;
  return `PT${h}H${m}M${sec}S`;
}

/** Seconds → SCORM 1.2 CMITimespan (cmi.core.total_time). */
export function scorm12Time(seconds: number): string {
  const s = Math.max(0, seconds);
  const pad = (n: number) => String(n).padStart(2, '0');
  const whole = Math.floor(s % 60);
  const hundredths = Math.round((s - Math.floor(s)) * 100);
  return `${String(Math.min(9999, Math.floor(s / 3600))).padStart(4, '0')}:${pad(Math.floor((s % 3600) / 60))}:${pad(whole)}${hundredths ? `.${pad(Math.min(99, hundredths))}` : ''}`;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);
const num = (v: unknown): number | undefined => {
  if (v === undefined || v === null || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
};

/** What one commit says about the activity it ran. */
export interface ActivityState {
  completion: Completion;
  success: Success;
  scoreScaled?: number;
  /** Seconds of this session as the SCO reported them (cmi.core.session_time / cmi.session_time). */
  sessionSeconds: number | null;
  runtime: Runtime;
  /** The SCO asked to suspend (exit = suspend). */
  suspended: boolean;
}

/**
 * Indices of a collection past this are not the SCO's records (SCORM asks for 250 interactions and 100 objectives at
 * least; journaling SCOs write thousands): a hostile commit's `cmi.interactions.99999999.id` would make an array
 * of that length.
 */
export const MAX_COLLECTION_INDEX = 100_000;

/**
 * The index of a collection element's key, read from position `from` (after `cmi.interactions.`): digits, a dot and
 * a field name after it (the field starts after the first dot from `from`); -1 for anything else (no index, no
 * field, letters in the index). No regex and no slice: a commit has a hundred keys or more.
 */
export function collectionIndex(key: string, from: number): number {
  let index = 0;
  let at = from;
  for (let c = key.charCodeAt(at); c >= 48 && c <= 57; c = key.charCodeAt(++at)) index = index * 10 + (c - 48);
  return at === from || at >= key.length - 1 || key.charCodeAt(at) !== 46 ? -1 : index;
}

/** Indexed collections (`cmi.interactions.0.id` …) as an array of flat records. */
function collection(cmi: FlatCmi, prefix: string): Array<Record<string, string | string[]>> {
  const rows: Array<Record<string, string | string[]>> = [];
  const head = `${prefix}.`;
  const from = head.length;
  for (const key in cmi) {
    // A cheap prefix test first: a commit has a hundred keys or more, most of other collections.
    if (!key.startsWith(head)) continue;
    const index = collectionIndex(key, from);
    if (index < 0 || index >= MAX_COLLECTION_INDEX) continue;
    const value = cmi[key];
    if (value === undefined || value === null || value === '') continue;
    const text = str(value);
    if (text === undefined) continue;
    const row = (rows[index] ??= {});
    row[key.slice(key.indexOf('.', from) + 1)] = text;
  }
  return rows.filter((r) => r !== undefined);
}

/**
 * Maps a SCO's data model to the activity's state: SCORM 1.2 lesson_status (passed/failed/completed/incomplete/
 * browsed/not attempted), score raw/min/max (scaled when max is given), mastery score; SCORM 2004 completion_status,
 * success_status, score.scaled, scaled_passing_score. `previous` is the stored runtime, kept where the commit is silent.
 */
export function activityStateOf(version: ScormVersion, cmi: FlatCmi, previous: Runtime | undefined, scaledPassingScore?: number): ActivityState {
  const runtime: Runtime = { ...(previous ?? {}) };
  let completion: Completion = 'UNKNOWN';
  let success: Success = 'UNKNOWN';
  let scoreScaled: number | undefined;
  let exit: string | undefined;
  let session: unknown;

  if (version === '1.2') {
    const status = str(cmi['cmi.core.lesson_status']) ?? 'not attempted';
    const raw = num(cmi['cmi.core.score.raw']);
    const min = num(cmi['cmi.core.score.min']);
    const max = num(cmi['cmi.core.score.max']);
    if (status === 'passed' || status === 'failed') {
      completion = 'COMPLETED';
      success = status === 'passed' ? 'PASSED' : 'FAILED';
    } else if (status === 'completed') completion = 'COMPLETED';
    else if (status === 'incomplete' || status === 'browsed') completion = 'INCOMPLETE';
    if (raw !== undefined && max !== undefined && max > (min ?? 0)) scoreScaled = Math.min(1, Math.max(-1, (raw - (min ?? 0)) / (max - (min ?? 0))));
    // Mastery score: with credit, the LMS decides passed/failed from the raw score once the SCO reports an outcome.
    if (scaledPassingScore !== undefined && raw !== undefined && (status === 'completed' || status === 'passed' || status === 'failed')) {
      success = raw / 100 >= scaledPassingScore ? 'PASSED' : 'FAILED';
    }
    runtime.completionStatus = completion === 'COMPLETED' ? 'completed' : completion === 'INCOMPLETE' ? 'incomplete' : status === 'not attempted' ? 'not attempted' : 'unknown';
    runtime.location = str(cmi['cmi.core.lesson_location']) ?? runtime.location;
    runtime.credit = str(cmi['cmi.core.credit']) ?? runtime.credit;
    runtime.mode = str(cmi['cmi.core.lesson_mode']) ?? runtime.mode;
    if (raw !== undefined) runtime.scoreRaw = String(raw);
    if (min !== undefined) runtime.scoreMin = String(min);
    if (max !== undefined) runtime.scoreMax = String(max);
    exit = str(cmi['cmi.core.exit']);
    session = cmi['cmi.core.session_time'];
    runtime.runtimeObjectives = collection(cmi, 'cmi.objectives') as Array<Record<string, string>>;
  } else {
    const cs = str(cmi['cmi.completion_status']) ?? 'unknown';
    const ss = str(cmi['cmi.success_status']) ?? 'unknown';
    completion = cs === 'completed' ? 'COMPLETED' : cs === 'incomplete' ? 'INCOMPLETE' : 'UNKNOWN';
    success = ss === 'passed' ? 'PASSED' : ss === 'failed' ? 'FAILED' : 'UNKNOWN';
    scoreScaled = num(cmi['cmi.score.scaled']);
    const passing = num(cmi['cmi.scaled_passing_score']) ?? scaledPassingScore;
    if (success === 'UNKNOWN' && passing !== undefined && scoreScaled !== undefined) success = scoreScaled >= passing ? 'PASSED' : 'FAILED';
    runtime.completionStatus = cs;
    runtime.location = str(cmi['cmi.location']) ?? runtime.location;
    runtime.credit = str(cmi['cmi.credit']) ?? runtime.credit;
    runtime.mode = str(cmi['cmi.mode']) ?? runtime.mode;
    runtime.progressMeasure = str(cmi['cmi.progress_measure']) ?? runtime.progressMeasure;
    for (const [field, key] of [
      ['scoreRaw', 'cmi.score.raw'],
      ['scoreMin', 'cmi.score.min'],
      ['scoreMax', 'cmi.score.max'],
    ] as const) {
      const v = num(cmi[key]);
      if (v !== undefined) runtime[field] = String(v);
    }
    exit = str(cmi['cmi.exit']);
    session = cmi['cmi.session_time'];
    runtime.runtimeObjectives = collection(cmi, 'cmi.objectives') as Array<Record<string, string>>;
  }
  if (scoreScaled !== undefined) runtime.scoreScaled = String(scoreScaled);
  runtime.runtimeSuccessStatus = success;
  runtime.suspendData = str(cmi['cmi.suspend_data']) ?? runtime.suspendData ?? '';
  runtime.exit = exit ?? runtime.exit;
  const interactions = collection(cmi, 'cmi.interactions');
  if (interactions.length) runtime.runtimeInteractions = interactions;
  return {
    completion,
    success,
    ...(scoreScaled !== undefined ? { scoreScaled } : {}),
    sessionSeconds: parseDuration(version, session),
    runtime,
    suspended: exit === 'suspend',
  };
}

/** The flat data model a launch starts from: learner, stored progress, entry = resume after a suspend. */
/** The cmi.objectives.n elements a resumed SCORM 2004 attempt gets back. */
const RESUMED_OBJECTIVE_FIELDS = ['id', 'success_status', 'completion_status', 'progress_measure', 'description', 'score.scaled', 'score.raw', 'score.min', 'score.max'];

export function initialCmi(version: ScormVersion, runtime: Runtime | undefined, learner: { id: string; name: string }, extra: { launchData?: string; masteryScore?: number; scaledPassingScore?: number; totalSeconds: number; noCredit?: boolean }): FlatCmi {
  const rt = runtime ?? {};
  const resumed = rt.exit === 'suspend';
  const started = rt.completionStatus !== undefined && rt.completionStatus !== 'unknown' && rt.completionStatus !== 'not attempted';
  const entry = resumed ? 'resume' : started ? '' : 'ab-initio';
  const out: FlatCmi = {};
  if (version === '1.2') {
    out['cmi.core.student_id'] = learner.id;
    out['cmi.core.student_name'] = learner.name;
    out['cmi.core.entry'] = entry;
    out['cmi.core.credit'] = extra.noCredit ? 'no-credit' : 'credit';
    out['cmi.core.lesson_mode'] = rt.mode ?? 'normal';
    out['cmi.core.lesson_location'] = rt.location ?? '';
    out['cmi.core.total_time'] = scorm12Time(extra.totalSeconds);
    const status = rt.runtimeSuccessStatus === 'PASSED' ? 'passed' : rt.runtimeSuccessStatus === 'FAILED' ? 'failed' : rt.completionStatus === 'completed' ? 'completed' : rt.completionStatus === 'incomplete' ? 'incomplete' : 'not attempted';
    out['cmi.core.lesson_status'] = status;
    if (rt.scoreRaw !== undefined) out['cmi.core.score.raw'] = rt.scoreRaw;
    if (rt.scoreMin !== undefined) out['cmi.core.score.min'] = rt.scoreMin;
    if (rt.scoreMax !== undefined) out['cmi.core.score.max'] = rt.scoreMax;
    if (extra.masteryScore !== undefined) out['cmi.student_data.mastery_score'] = String(extra.masteryScore);
  } else {
    out['cmi.learner_id'] = learner.id;
    out['cmi.learner_name'] = learner.name;
    out['cmi.entry'] = entry;
    out['cmi.credit'] = extra.noCredit ? 'no-credit' : 'credit';
    out['cmi.mode'] = rt.mode ?? 'normal';
    out['cmi.location'] = rt.location ?? '';
    out['cmi.total_time'] = isoDuration(extra.totalSeconds);
    out['cmi.completion_status'] = rt.completionStatus && rt.completionStatus !== '' ? rt.completionStatus : 'unknown';
    out['cmi.success_status'] = rt.runtimeSuccessStatus === 'PASSED' ? 'passed' : rt.runtimeSuccessStatus === 'FAILED' ? 'failed' : 'unknown';
    if (rt.scoreScaled !== undefined) out['cmi.score.scaled'] = rt.scoreScaled;
    if (rt.scoreRaw !== undefined) out['cmi.score.raw'] = rt.scoreRaw;
    if (rt.scoreMin !== undefined) out['cmi.score.min'] = rt.scoreMin;
    if (rt.scoreMax !== undefined) out['cmi.score.max'] = rt.scoreMax;
    if (extra.scaledPassingScore !== undefined) out['cmi.scaled_passing_score'] = String(extra.scaledPassingScore);
    // A resumed attempt finds its cmi.objectives as it left them (the sequencer's known values are laid over them).
    if (resumed) {
      (rt.runtimeObjectives ?? []).forEach((o, n) => {
        if (typeof o?.id !== 'string' || !o.id) return;
        for (const k of RESUMED_OBJECTIVE_FIELDS) if (typeof o[k] === 'string' && o[k] !== '') out[`cmi.objectives.${n}.${k}`] = o[k];
      });
    }
  }
  out['cmi.suspend_data'] = rt.suspendData ?? '';
  if (extra.launchData) out['cmi.launch_data'] = extra.launchData;
  return out;
}

/** Finds an activity of the tree by id. */
export function findActivity(node: ActivityResult, id: string): ActivityResult | null {
  if (node.id === id) return node;
  for (const c of node.children ?? []) {
    const hit = findActivity(c, id);
    if (hit) return hit;
  }
  return null;
}

// ---- rollup ---------------------------------------------------------------------------------------------------

export const STATUS_ROLLUP_MODES = [
  'STATUS_PROVIDED_BY_COURSE',
  'COMPLETE_WHEN_ALL_UNITS_COMPLETE',
  'COMPLETE_WHEN_ALL_UNITS_COMPLETE_AND_NOT_FAILED',
  'COMPLETE_WHEN_THRESHOLD_SCORE_IS_MET',
  'COMPLETE_WHEN_ALL_UNITS_COMPLETE_AND_THRESHOLD_SCORE_IS_MET',
  'COMPLETE_WHEN_ALL_UNITS_ARE_PASSED',
] as const;
export type StatusRollupMode = (typeof STATUS_ROLLUP_MODES)[number];

export const SCORE_ROLLUP_MODES = [
  'SCORE_PROVIDED_BY_COURSE',
  'AVERAGE_SCORE_OF_ALL_UNITS',
  'AVERAGE_SCORE_OF_ALL_UNITS_WITH_SCORES',
  'FIXED_AVERAGE',
  'AVERAGE_SCORE_OF_ALL_UNITS_WITH_NONZERO_SCORES',
  'LAST_SCO_SCORE',
] as const;
export type ScoreRollupMode = (typeof SCORE_ROLLUP_MODES)[number];

/**
 * How a registration's activity tree rolls up, resolved from the settings once per launch. `units`: the rules of
 * non-2004 content (SCORM 1.2, later AICC and cmi5), where the course's status and score come from its SCOs (the
 * units) by the Player*RollupMode* settings. `simple`: SCORM 2004 until the sequencer brings its own rollup.
 */
export interface RollupRules {
  kind: 'units' | 'simple';
  status: StatusRollupMode;
  /** PlayerStatusRollupModeThresholdScore as a scaled score (0..1; a value above 1 is read as a percentage). */
  thresholdScore: number;
  applyStatusToSuccess: boolean;
  score: ScoreRollupMode;
  /** PlayerScoreRollupModeNumberOfScoringObjects: the FIXED_AVERAGE divisor (≤ 0: the number of units). */
  scoringObjects: number;
  /** SCORM 2004: an aggregation whose children contribute nothing is unknown rather than completed/passed. */
  emptySetToUnknown: boolean;
}

/** The settings rollupRulesOf reads. */
export const ROLLUP_SETTING_IDS = [
  'PlayerStatusRollupModeValue',
  'PlayerStatusRollupModeThresholdScore',
  'PlayerApplyRollupStatusToSuccess',
  'PlayerScoreRollupModeValue',
  'PlayerScoreRollupModeNumberOfScoringObjects',
  'PlayerRollupEmptySetToUnknown',
] as const;

/** The catalogue's defaults. */
export const DEFAULT_ROLLUP_RULES: RollupRules = {
  kind: 'units',
  status: 'COMPLETE_WHEN_ALL_UNITS_COMPLETE_AND_NOT_FAILED',
  thresholdScore: 0,
  applyStatusToSuccess: false,
  score: 'AVERAGE_SCORE_OF_ALL_UNITS_WITH_SCORES',
  scoringObjects: 0,
  emptySetToUnknown: false,
};

/** The rollup rules of a launch from the effective values of ROLLUP_SETTING_IDS (stored normalised by the settings service). */
export function rollupRulesOf(version: ScormVersion, values: ReadonlyMap<string, string>): RollupRules {
  const oneOf = <T extends string>(allowed: readonly T[], value: string | undefined, fallback: T): T => (allowed as readonly string[]).includes(value ?? '') ? (value as T) : fallback;
  const yes = (id: string) => /^(yes|true)$/i.test(values.get(id) ?? '');
  const threshold = num(values.get('PlayerStatusRollupModeThresholdScore')) ?? 0;
  const objects = num(values.get('PlayerScoreRollupModeNumberOfScoringObjects')) ?? 0;
  return {
    kind: version === '2004' ? 'simple' : 'units',
    status: oneOf(STATUS_ROLLUP_MODES, values.get('PlayerStatusRollupModeValue'), DEFAULT_ROLLUP_RULES.status),
    thresholdScore: threshold > 1 ? threshold / 100 : threshold,
    applyStatusToSuccess: yes('PlayerApplyRollupStatusToSuccess'),
    score: oneOf(SCORE_ROLLUP_MODES, values.get('PlayerScoreRollupModeValue'), DEFAULT_ROLLUP_RULES.score),
    scoringObjects: objects,
    emptySetToUnknown: yes('PlayerRollupEmptySetToUnknown'),
  };
}

/**
 * Rolls a tree up from its leaves to its root. `currentId` is the activity whose commit caused the rollup (the
 * course's "provided" status and score come from it); launches and switches roll up without one.
 */
export type RollupFunction = (root: ActivityResult, rules: RollupRules, currentId?: string) => void;

/** The rollup of a launch; the SCORM 2004 sequencer can replace `simple` here. */
export const rollUp: RollupFunction = (root, rules, currentId) => (rules.kind === 'units' ? unitsRollUp(root, rules, currentId) : simpleRollUp(root, rules));

/**
 * The time tracked up the tree alone (PlayerRollupRuntimeAtScoUnload NO: commits leave the aggregations' status and
 * score to the next rollup, but the course's time, which PlayerTimeLimit and the launch history count, stays current).
 */
export function rollUpTime(node: ActivityResult): void {
  const kids = node.children ?? [];
  if (!kids.length) return;
  for (const k of kids) rollUpTime(k);
  node.timeTracked = formatTracked(kids.reduce((a, k) => a + trackedSeconds(k.timeTracked), 0));
}

/** Averages to 7 decimals: 0.7, not 0.6999999999999998. */
const roundScore = (x: number): number => Math.round(x * 1e7) / 1e7;

const leavesOf = (node: ActivityResult): ActivityResult[] => (node.children?.length ? node.children.flatMap(leavesOf) : [node]);

/** Common to both rollups: time, attempts, suspension, and how much is done (completed units / progress measures). */
function rollUpBookkeeping(node: ActivityResult, kids: ActivityResult[]): void {
  node.timeTracked = formatTracked(kids.reduce((a, k) => a + trackedSeconds(k.timeTracked), 0));
  node.attempts = Math.max(node.attempts, ...kids.map((k) => k.attempts));
  node.suspended = kids.some((k) => k.suspended);
  const leaves = leavesOf(node);
  const amount = leaves.reduce((a, l) => a + (l.activityCompletion === 'COMPLETED' ? 1 : Math.min(1, Math.max(0, l.completionAmount?.scaled ?? 0))), 0) / leaves.length;
  node.completionAmount = { scaled: node.activityCompletion === 'COMPLETED' ? 1 : Math.round(amount * 10000) / 10000 };
}

/**
 * SCORM 2004 (until the sequencer's rollup): completed when every child is, passed when all are, failed when any
 * is, the mean score of the scored children.
 */
function simpleRollUp(node: ActivityResult, rules: RollupRules): void {
  const kids = node.children ?? [];
  if (!kids.length) return;
  for (const k of kids) simpleRollUp(k, rules);
  // Every child contributes until the sequencer knows rollupObjectiveSatisfied / rollupProgressCompletion.
  const contributing = kids;
  const all = (f: (k: ActivityResult) => boolean) => contributing.every(f);
  const any = (f: (k: ActivityResult) => boolean) => contributing.some(f);
  const empty = contributing.length === 0 && rules.emptySetToUnknown;
  node.activityCompletion = empty ? 'UNKNOWN' : all((k) => k.activityCompletion === 'COMPLETED') ? 'COMPLETED' : any((k) => k.activityCompletion !== 'UNKNOWN') ? 'INCOMPLETE' : 'UNKNOWN';
  node.activitySuccess = empty ? 'UNKNOWN' : any((k) => k.activitySuccess === 'FAILED') ? 'FAILED' : all((k) => k.activitySuccess === 'PASSED') ? 'PASSED' : 'UNKNOWN';
  const scored = contributing.map((k) => k.score?.scaled).filter((s): s is number => typeof s === 'number');
  if (scored.length) node.score = { scaled: roundScore(scored.reduce((a, b) => a + b, 0) / scored.length) };
  rollUpBookkeeping(node, kids);
}

/** The course score of units (SCOs) under a score rollup mode; undefined when there is none. */
function unitsScore(node: ActivityResult, units: ActivityResult[], rules: RollupRules, current: ActivityResult | undefined): number | undefined {
  const scores = units.map((u) => u.score?.scaled).filter((s): s is number => typeof s === 'number');
  const sum = scores.reduce((a, b) => a + b, 0);
  switch (rules.score) {
    case 'SCORE_PROVIDED_BY_COURSE':
      // The score the content reported last; a rollup without a commit keeps it.
      return typeof current?.score?.scaled === 'number' ? current.score.scaled : node.score?.scaled;
    case 'AVERAGE_SCORE_OF_ALL_UNITS':
      return scores.length ? sum / units.length : undefined;
    case 'FIXED_AVERAGE':
      return scores.length ? Math.min(1, sum / (rules.scoringObjects > 0 ? rules.scoringObjects : units.length)) : undefined;
    case 'AVERAGE_SCORE_OF_ALL_UNITS_WITH_NONZERO_SCORES': {
      const nonZero = scores.filter((s) => s !== 0);
      return nonZero.length ? nonZero.reduce((a, b) => a + b, 0) / nonZero.length : scores.length ? 0 : undefined;
    }
    case 'LAST_SCO_SCORE':
      return units[units.length - 1]?.score?.scaled;
    default:
      return scores.length ? sum / scores.length : undefined;
  }
}

/**
 * SCORM 1.2 (and the other non-2004 standards): each aggregation's status and score come from the units (SCOs)
 * under it by the status and score rollup modes. A unit that failed makes the course failed (completed, FAILED)
 * under …_AND_NOT_FAILED; with PlayerApplyRollupStatusToSuccess the course passes when the mode says it is
 * complete and fails when every unit is done but the mode is not met.
 */
function unitsRollUp(node: ActivityResult, rules: RollupRules, currentId: string | undefined): void {
  const kids = node.children ?? [];
  if (!kids.length) return;
  for (const k of kids) unitsRollUp(k, rules, currentId);
  const units = leavesOf(node);
  const current = currentId !== undefined ? units.find((u) => u.id === currentId) : undefined;
  const raw = unitsScore(node, units, rules, current);
  const score = raw === undefined ? undefined : roundScore(raw);
  if (score !== undefined) node.score = { scaled: score };
  else delete node.score;

  const allComplete = units.every((u) => u.activityCompletion === 'COMPLETED');
  const anyFailed = units.some((u) => u.activitySuccess === 'FAILED');
  const allPassed = units.every((u) => u.activitySuccess === 'PASSED');
  const started = units.some((u) => u.activityCompletion !== 'UNKNOWN');
  const thresholdMet = score !== undefined && score >= rules.thresholdScore;
  const simpleSuccess: Success = anyFailed ? 'FAILED' : allPassed ? 'PASSED' : 'UNKNOWN';

  if (rules.status === 'STATUS_PROVIDED_BY_COURSE') {
    // The status the content reported last; a rollup without a commit keeps it.
    if (current) {
      node.activityCompletion = current.activityCompletion;
      node.activitySuccess = current.activitySuccess;
    } else if (!started) {
      node.activityCompletion = 'UNKNOWN';
      node.activitySuccess = 'UNKNOWN';
    }
    rollUpBookkeeping(node, kids);
    return;
  }
  const done = {
    COMPLETE_WHEN_ALL_UNITS_COMPLETE: allComplete,
    COMPLETE_WHEN_ALL_UNITS_COMPLETE_AND_NOT_FAILED: allComplete,
    COMPLETE_WHEN_THRESHOLD_SCORE_IS_MET: thresholdMet,
    COMPLETE_WHEN_ALL_UNITS_COMPLETE_AND_THRESHOLD_SCORE_IS_MET: allComplete && thresholdMet,
    COMPLETE_WHEN_ALL_UNITS_ARE_PASSED: allPassed,
  }[rules.status];
  const failed = (rules.status === 'COMPLETE_WHEN_ALL_UNITS_COMPLETE_AND_NOT_FAILED' || rules.status === 'COMPLETE_WHEN_ALL_UNITS_ARE_PASSED') && allComplete && anyFailed;
  node.activityCompletion = done || failed ? 'COMPLETED' : started ? 'INCOMPLETE' : 'UNKNOWN';
  if (rules.applyStatusToSuccess) node.activitySuccess = failed ? 'FAILED' : done ? 'PASSED' : allComplete ? 'FAILED' : 'UNKNOWN';
  else node.activitySuccess = failed ? 'FAILED' : simpleSuccess;
  rollUpBookkeeping(node, kids);
}
