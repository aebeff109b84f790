/**
 * The player's use of the SCORM 2004 sequencing engine (src/modules/sequencing): which course versions run through
 * it, the cmi data model of a SCO as the engine's run-time results, the engine's tracking mapped onto the
 * registration's activity tree, and the valid navigation requests the page shows and answers
 * `adl.nav.request_valid` from.
 */
import { randomInt } from 'node:crypto';
import { setBounded } from '../../platform/bounded-map';
import type { CourseVersion } from '../courses/course-version';
import type { ActivityResult, Completion, Objective, Success } from '../registrations/registration-types';
import { buildSequencingDefinition, type SequencingDefinition } from '../sequencing/sequencing-definition';
import { SequencingEngine, type NavigationRequest, type RuntimeResults, type SerializedSequencingState, type ValidRequests } from '../sequencing/sequencing-engine';
import type { LookaheadMode } from './player-ui';
import { formatTracked, trackedSeconds, type FlatCmi } from './scorm-runtime';

/** What the page needs to draw the navigation UI and answer adl.nav.request_valid (sent with every answer). */
export interface SequencingNav {
  continue: boolean;
  previous: boolean;
  exitAll: boolean;
  suspendAll: boolean;
  /** Activities a choice request may select now (the table of contents enables only these). */
  choice: string[];
  /** Activities a jump request may target (adl.nav.request_valid.jump). */
  jump: string[];
  /** The completion of each leaf (the table of contents' marks): COMPLETED, INCOMPLETE or UNKNOWN. */
  completion: Record<string, Completion>;
  /** Each leaf's success (the table of contents' marks, PlayerStatusDisplayPreference): PASSED, FAILED or UNKNOWN. */
  success: Record<string, Success>;
  /** Exit (the current activity alone: the Close button, PlayerShowCloseItem). */
  exit: boolean;
  /**
   * PlayerLookaheadSequencerMode DISABLED: what the buttons and table of contents offer, from the control modes alone
   * (no rule is evaluated; a request the rules refuse gets a message). Absent: they offer the valid requests.
   */
  offer?: { continue: boolean; previous: boolean; choice: string[] };
  /**
   * Courses with selection or randomization of children: the activities of the current (or next) attempts in their
   * order (the table of contents follows it and leaves out the children not selected); absent otherwise (manifest order).
   */
  order?: string[];
}

/** A SCORM 2004 course version runs through the sequencing engine (media, xAPI, AICC and SCORM 1.2 do not). */
export function isSequenced(version: CourseVersion): boolean {
  return version.learningStandard.startsWith('SCORM2004') && !!version.rootActivity && !!version.package?.packageData && !version.package.packageData.media;
}

/** Definitions by content prefix (each import has its own): immutable, so a cache is safe on every node. */
const definitions = new Map<string, SequencingDefinition>();
const DEFINITION_CACHE = 200;

/** The cached definition of a course version's content prefix, if this process built it already. */
export const cachedDefinition = (contentPrefix: string): SequencingDefinition | undefined => definitions.get(contentPrefix);

/** The sequencing definition of a course version (built from its stored manifest data once per process). */
export function definitionOf(version: CourseVersion): SequencingDefinition {
  const key = version.contentPrefix;
  let def = definitions.get(key);
  if (!def) {
    def = buildSequencingDefinition({ rootActivity: version.rootActivity!, packageData: version.package!.packageData });
    setBounded(definitions, key, def, DEFINITION_CACHE);
  }
  return def;
}

/**
 * The engine of a stored state, or a new one (the registration's global objectives seeded from `globals`). A new
 * state's random generator (selection and randomization of children) starts from a random seed, so that learners get
 * different orders; the generator's state is stored with it, so one registration's draws are reproducible.
 */
export function engineOf(def: SequencingDefinition, state: string | null | undefined, globals?: string | null): SequencingEngine {
  if (state) return SequencingEngine.restore(def, state);
  const prior = globals ? (JSON.parse(globals) as SerializedSequencingState).state.globalObjectives : undefined;
  return SequencingEngine.create(def, { seed: randomInt(1, 0xffffffff), ...(prior ? { globalObjectives: prior } : {}) });
}

export const serializeEngine = (engine: SequencingEngine): string => engine.serializedText();

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
const num = (v: unknown): number | undefined => {
  if (v === undefined || v === null || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
};
const COMPLETION = ['completed', 'incomplete', 'not attempted'] as const;
const SUCCESS = ['passed', 'failed'] as const;
const oneOf = <T extends string>(allowed: readonly T[], v: unknown): T | undefined => ((allowed as readonly string[]).includes(str(v) ?? '') ? (v as T) : undefined);

/**
 * The SCO's data model as the engine's run-time results. "unknown" statuses count as not reported: the page's
 * snapshot holds the whole data model, including the values the player initialised it with.
 */
export function runtimeResultsOf(cmi: FlatCmi, attemptSeconds?: number): RuntimeResults {
  const r: RuntimeResults = {};
  const completion = oneOf(COMPLETION, cmi['cmi.completion_status']);
  if (completion) r.completionStatus = completion;
  const success = oneOf(SUCCESS, cmi['cmi.success_status']);
  if (success) r.successStatus = success;
  const scores = { scoreScaled: 'cmi.score.scaled', scoreRaw: 'cmi.score.raw', scoreMin: 'cmi.score.min', scoreMax: 'cmi.score.max', progressMeasure: 'cmi.progress_measure' } as const;
  for (const [field, key] of Object.entries(scores) as Array<[keyof typeof scores, string]>) {
    const n = num(cmi[key]);
    if (n !== undefined) r[field] = n;
  }
  const exit = str(cmi['cmi.exit']);
  if (exit !== undefined) r.exit = exit;
  if (attemptSeconds !== undefined) r.attemptDurationSeconds = attemptSeconds;
  const rows = new Map<number, Record<string, string>>();
  for (const key in cmi) {
    if (!key.startsWith('cmi.objectives.')) continue; // most keys are not (interactions, suspend data)
    const m = /^cmi\.objectives\.(\d+)\.(.+)$/.exec(key);
    const v = str(cmi[key]);
    if (!m || v === undefined || v === '') continue;
    const row = rows.get(Number(m[1])) ?? {};
    row[m[2]] = v;
    rows.set(Number(m[1]), row);
  }
  const objectives: NonNullable<RuntimeResults['objectives']> = [];
  for (const [, row] of [...rows.entries()].sort((a, b) => a[0] - b[0])) {
    if (!row.id) continue;
    const o: NonNullable<RuntimeResults['objectives']>[number] = { id: row.id };
    const oc = oneOf(COMPLETION, row.completion_status);
    if (oc) o.completionStatus = oc;
    const os = oneOf(SUCCESS, row.success_status);
    if (os) o.successStatus = os;
    const fields = { scoreScaled: 'score.scaled', scoreRaw: 'score.raw', scoreMin: 'score.min', scoreMax: 'score.max', progressMeasure: 'progress_measure' } as const;
    for (const [field, key] of Object.entries(fields) as Array<[keyof typeof fields, string]>) {
      const n = num(row[key]);
      if (n !== undefined) o[field] = n;
    }
    if (Object.keys(o).length > 1) objectives.push(o);
  }
  if (objectives.length) r.objectives = objectives;
  return r;
}

/**
 * The cmi.objectives.n.* a SCO starts with: its objectives as the sequencer holds them (read through the global
 * objective maps), so a SCO sees an objective that another SCO satisfied. Objectives the SCO stored keep their index.
 */
export function objectiveCmi(engine: SequencingEngine, activityId: string, cmi: FlatCmi): void {
  const data = engine.objectiveData(activityId);
  const index = new Map<string, number>();
  let next = 0;
  for (const key in cmi) {
    const m = /^cmi\.objectives\.(\d+)\.id$/.exec(key);
    if (!m) continue;
    index.set(String(cmi[key]), Number(m[1]));
    next = Math.max(next, Number(m[1]) + 1);
  }
  for (const [id, o] of Object.entries(data)) {
    if (!id) continue;
    const n = index.get(id) ?? next++;
    const p = `cmi.objectives.${n}.`;
    cmi[`${p}id`] = id;
    if (o.progressStatus) cmi[`${p}success_status`] = o.satisfiedStatus ? 'passed' : 'failed';
    if (o.measureStatus) cmi[`${p}score.scaled`] = String(o.normalizedMeasure);
    if (o.completionKnown) cmi[`${p}completion_status`] = o.completed ? 'completed' : 'incomplete';
    if (o.progressMeasureKnown && o.progressMeasure !== undefined) cmi[`${p}progress_measure`] = String(o.progressMeasure);
  }
}

const COMPLETION_OF: Record<string, Completion> = { completed: 'COMPLETED', incomplete: 'INCOMPLETE', unknown: 'UNKNOWN' };
const SUCCESS_OF: Record<string, Success> = { passed: 'PASSED', failed: 'FAILED', unknown: 'UNKNOWN' };

/**
 * The engine's tracking written onto the registration's activity tree: attempts, completion, success, score and
 * progress of every activity (the root is the registration's summary). Time stays what the commits tracked,
 * summed up the tree; a leaf's suspension is its SCO's cmi.exit, an aggregation's the engine's.
 */
export function applyEngine(tree: ActivityResult, engine: SequencingEngine): void {
  const walk = (node: ActivityResult): void => {
    const kids = node.children ?? [];
    for (const k of kids) walk(k);
    if (!engine.definition.activities[node.id]) return;
    const st = engine.status(node.id);
    node.attempts = st.attempts;
    // An aggregation whose completion the rollup does not know yet (the default rules wait for every child) is
    // reported incomplete once one of its children has a known status, as the registration is once the learner started.
    const started = kids.some((k) => k.activityCompletion !== 'UNKNOWN');
    node.activityCompletion = st.completion === 'unknown' && started ? 'INCOMPLETE' : COMPLETION_OF[st.completion];
    node.activitySuccess = SUCCESS_OF[st.success];
    if (st.scaledScore !== undefined) node.score = { scaled: Math.round(st.scaledScore * 1e7) / 1e7 };
    else if (kids.length) delete node.score;
    if (kids.length) {
      node.timeTracked = formatTracked(kids.reduce((a, k) => a + trackedSeconds(k.timeTracked), 0));
      node.suspended = st.suspended || kids.some((k) => k.suspended);
    }
    const amount = st.completion === 'completed' ? 1 : st.progressMeasure !== undefined ? st.progressMeasure : kids.length ? leafAmount(node) : (node.completionAmount?.scaled ?? 0);
    node.completionAmount = { scaled: Math.round(Math.min(1, Math.max(0, amount)) * 10000) / 10000 };
  };
  walk(tree);
}

const leavesOf = (node: ActivityResult): ActivityResult[] => (node.children?.length ? node.children.flatMap(leavesOf) : [node]);
const leafAmount = (node: ActivityResult): number => {
  const leaves = leavesOf(node);
  return leaves.reduce((a, l) => a + (l.activityCompletion === 'COMPLETED' ? 1 : (l.completionAmount?.scaled ?? 0)), 0) / leaves.length;
};

/** DISABLED lookahead: the requests the control modes of the current activity's parent allow, and each leaf's. */
function controlModeOffer(engine: SequencingEngine, v: ValidRequests, leaves: string[]): NonNullable<SequencingNav['offer']> {
  const acts = engine.definition.activities;
  const cur = engine.currentActivity;
  const parent = cur !== undefined ? acts[cur]?.parent : undefined;
  const cm = parent !== undefined ? acts[parent]?.controlMode : undefined;
  const choice = leaves.filter((id) => {
    const p = acts[id].parent;
    return p === undefined || acts[p].controlMode.choice;
  });
  return { continue: v.continue, previous: !!cm && cm.flow && !cm.forwardOnly, choice };
}

/**
 * The valid requests the page needs, now. Continue is valid when it leads somewhere (the lookahead); with
 * PlayerLookaheadSequencerMode DISABLED the page offers what the control modes allow (`offer`) instead.
 */
export function navOf(engine: SequencingEngine, lookahead: LookaheadMode = 'REALTIME'): SequencingNav {
  const v = engine.validRequests();
  const leaf = (id: string) => (engine.definition.activities[id]?.children.length ?? 0) === 0;
  const leaves = engine.definition.order.filter(leaf);
  const completion = Object.fromEntries(leaves.map((id) => [id, COMPLETION_OF[engine.completion(id)]]));
  const success = Object.fromEntries(leaves.map((id) => [id, SUCCESS_OF[engine.success(id)]]));
  const order = engine.drawsChildren ? engine.activityOrder() : undefined;
  return {
    continue: v.continue && v.continueLeads,
    previous: v.previous,
    exitAll: v.exitAll,
    suspendAll: v.suspendAll,
    choice: v.choice.filter(leaf),
    jump: v.jump,
    completion,
    success,
    exit: v.exit,
    ...(order ? { order } : {}),
    ...(lookahead === 'DISABLED' ? { offer: controlModeOffer(engine, v, leaves) } : {}),
  };
}

/** The registration's globalObjectives (ObjectiveSchema[]): the engine's shared objectives, by target id. */
export function globalObjectivesOf(engine: SequencingEngine): Objective[] {
  return Object.entries(engine.globalObjectives())
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, g]) => ({
      id,
      primary: false,
      ...(g.measureStatus ? { score: { scaled: g.normalizedMeasure } } : {}),
      ...(g.rawScore !== undefined ? { scoreRaw: g.rawScore } : {}),
      ...(g.minScore !== undefined ? { scoreMin: g.minScore } : {}),
      ...(g.maxScore !== undefined ? { scoreMax: g.maxScore } : {}),
      ...(g.progressMeasureKnown && g.progressMeasure !== undefined ? { progressMeasure: g.progressMeasure } : {}),
      objectiveCompletion: g.completionKnown ? (g.completed ? 'COMPLETED' : 'INCOMPLETE') : 'UNKNOWN',
      objectiveSuccess: g.progressStatus ? (g.satisfiedStatus ? 'PASSED' : 'FAILED') : 'UNKNOWN',
    }));
}

/** The player buttons the page hides while each SCO runs (adlnav:presentation/navigationInterface/hideLMSUI). */
export const HIDE_LMS_UI = ['continue', 'previous', 'exit', 'exitAll', 'abandon', 'abandonAll', 'suspendAll'] as const;
export function hideLmsUiOf(launchables: ReadonlyArray<{ id: string; data: Record<string, unknown> }>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const l of launchables) {
    const list = Array.isArray(l.data.hideLMSUI) ? l.data.hideLMSUI.filter((v): v is string => typeof v === 'string' && (HIDE_LMS_UI as readonly string[]).includes(v)) : [];
    if (list.length) out[l.id] = list;
  }
  return out;
}

/** Activities the table of contents does not show (adlcp:isvisible="false"). */
export function invisibleOf(def: SequencingDefinition): string[] {
  return def.order.filter((id) => !def.activities[id].isVisible);
}

/** A navigation request from the page or a SCO, checked: `continue`, `previous`, `exitAll`, `{target=X}choice` … */
export function requestOf(value: unknown, target?: unknown): NavigationRequest | null {
  if (typeof value !== 'string') return null;
  const types = ['start', 'resumeAll', 'continue', 'previous', 'exit', 'exitAll', 'suspendAll', 'abandon', 'abandonAll', 'choice', 'jump'];
  const m = /^\s*(?:\{target=([^}]*)\})?\s*([A-Za-z]+)\s*$/.exec(value);
  if (!m || !types.includes(m[2])) return null;
  const t = m[1] ?? (typeof target === 'string' ? target : undefined);
  if ((m[2] === 'choice' || m[2] === 'jump') !== (t !== undefined && t !== '')) return null;
  return (t ? { type: m[2], target: t } : { type: m[2] }) as NavigationRequest;
}
