import type { ActivityResult, Completion, Runtime, Success } from '../registrations/registration-types';

/** The runtime data model the SCO reported, flattened as scorm-again renders it (`cmi.core.lesson_status` …). */
export type FlatCmi = Record<string, unknown>;

export type ScormVersion = '1.2' | '2004';

/** SCORM 1.2 CMITimespan `HHHH:MM:SS.SS` → seconds; null when malformed. */
export function parseScorm12Time(value: string): number | null {
  const m = /^(\d{2,4}):(\d{2}):(\d{2}(?:\.\d{1,2})?)$/.exec(value.trim());
  if (!m) return null;
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

/** ISO 8601 duration (SCORM 2004 timeinterval, e.g. PT1H2M3.5S, P1DT2H) → seconds; null when malformed. */
export function parseIsoDuration(value: string): number | null {
  const m = /^P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(value.trim());
  if (!m || value.trim() === 'P' || value.trim().endsWith('T')) return null;
  const [, y, mo, d, h, mi, s] = m.map((x) => (x === undefined ? 0 : Number(x)));
  return y * 365 * 86400 + mo * 30 * 86400 + d * 86400 + h * 3600 + mi * 60 + s;
}

export function parseDuration(version: ScormVersion, value: unknown): number | null {
  if (typeof value !== 'string' || value === '') return null;
  return version === '1.2' ? parseScorm12Time(value) : parseIsoDuration(value);
}

/** Seconds → `HHHH:MM:SS` as the activity tree keeps times ('0000:00:00' when nothing was tracked). */
export function formatTracked(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const pad = (n: number, w: number) => String(n).padStart(w, '0');
  return `${pad(Math.floor(s / 3600), 4)}:${pad(Math.floor((s % 3600) / 60), 2)}:${pad(s % 60, 2)}`;
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

/** Indexed collections (`cmi.interactions.0.id` …) as an array of flat records. */
function collection(cmi: FlatCmi, prefix: string): Array<Record<string, string | string[]>> {
  const rows: Array<Record<string, string | string[]>> = [];
  const re = new RegExp(`^${prefix.replace(/\./g, '\\.')}\\.(\\d+)\\.(.+)$`);
  for (const [key, value] of Object.entries(cmi)) {
    const m = re.exec(key);
    if (!m || value === undefined || value === null || value === '') continue;
    const text = str(value);
    if (text === undefined) continue;
    const row = (rows[Number(m[1])] ??= {});
    row[m[2]] = text;
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
export function initialCmi(version: ScormVersion, runtime: Runtime | undefined, learner: { id: string; name: string }, extra: { launchData?: string; masteryScore?: number; scaledPassingScore?: number; totalSeconds: number }): FlatCmi {
  const rt = runtime ?? {};
  const resumed = rt.exit === 'suspend';
  const started = rt.completionStatus !== undefined && rt.completionStatus !== 'unknown' && rt.completionStatus !== 'not attempted';
  const entry = resumed ? 'resume' : started ? '' : 'ab-initio';
  const out: FlatCmi = {};
  if (version === '1.2') {
    out['cmi.core.student_id'] = learner.id;
    out['cmi.core.student_name'] = learner.name;
    out['cmi.core.entry'] = entry;
    out['cmi.core.credit'] = rt.credit ?? 'credit';
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
    out['cmi.credit'] = rt.credit ?? 'credit';
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

/** Parses a stored `HHHH:MM:SS` back to seconds. */
export function trackedSeconds(value: string | undefined): number {
  if (!value) return 0;
  return parseScorm12Time(value) ?? 0;
}

/**
 * Simple rollup from the leaves to the root (single-SCO courses: the root equals its SCO): completed when every
 * launchable child is, passed when all are, failed when any is, the mean score of the scored children.
 */
export function rollUp(node: ActivityResult): void {
  const kids = node.children ?? [];
  if (!kids.length) return;
  for (const k of kids) rollUp(k);
  const all = (f: (k: ActivityResult) => boolean) => kids.every(f);
  const any = (f: (k: ActivityResult) => boolean) => kids.some(f);
  node.activityCompletion = all((k) => k.activityCompletion === 'COMPLETED') ? 'COMPLETED' : any((k) => k.activityCompletion !== 'UNKNOWN') ? 'INCOMPLETE' : 'UNKNOWN';
  node.activitySuccess = any((k) => k.activitySuccess === 'FAILED') ? 'FAILED' : all((k) => k.activitySuccess === 'PASSED') ? 'PASSED' : 'UNKNOWN';
  const scored = kids.map((k) => k.score?.scaled).filter((s): s is number => typeof s === 'number');
  if (scored.length) node.score = { scaled: scored.reduce((a, b) => a + b, 0) / scored.length };
  node.timeTracked = formatTracked(kids.reduce((a, k) => a + trackedSeconds(k.timeTracked), 0));
  node.attempts = Math.max(node.attempts, ...kids.map((k) => k.attempts));
  node.suspended = any((k) => k.suspended);
}
