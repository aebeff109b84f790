/**
 * The activity tree with its tracking model (SN book, "Tracking Model"): per activity the activity/attempt progress
 * information and the objective progress information, plus the global (shared) objectives. Objective reads and
 * writes go through the objective maps (imsss:mapInfo, 4th edition adlseq:mapInfo); the rule evaluation
 * (UP.1, UP.2, UP.5) lives here, the rollup (RB.1.x) in rollup-process.ts.
 */
import { RollupProcess } from './rollup-process';
import type { ActivityDefinition, ObjectiveDefinition, SequencingDefinition, SequencingRule } from './sequencing-definition';
import { emptyRecord, recordOf } from '../../platform/records';

/** Objective progress information (plus the 4th edition completion/score data an objective carries). */
export interface ObjectiveState {
  progressStatus: boolean;
  satisfiedStatus: boolean;
  measureStatus: boolean;
  normalizedMeasure: number;
  completionKnown?: boolean;
  completed?: boolean;
  progressMeasureKnown?: boolean;
  progressMeasure?: number;
  rawScore?: number;
  minScore?: number;
  maxScore?: number;
}

export interface ActivityState {
  /** Activity progress status: at least one attempt has begun. */
  activityProgressStatus: boolean;
  attemptCount: number;
  attemptProgressStatus: boolean;
  attemptCompletionStatus: boolean;
  attemptCompletionAmountStatus: boolean;
  attemptCompletionAmount: number;
  /** Seconds of the current attempt (reported by the runtime: cmi.total_time of the attempt). */
  attemptExperiencedDuration: number;
  isActive: boolean;
  isSuspended: boolean;
  /** The parent's attempt count when this activity's current attempt began (useCurrentAttempt*Info). */
  parentAttempt?: number;
  /** The SCO reported cmi.completion_status / cmi.success_status in this attempt (even "unknown"). */
  completionReported?: boolean;
  successReported?: boolean;
  objectives: Record<string, ObjectiveState>;
  /** The activity's available children after selection and randomization (SR.1, SR.2). */
  availableChildren: string[];
  /**
   * A cluster with selection or randomization on each new attempt: the attempt (attempt count) its available
   * children were drawn for. They are drawn when the previous attempt ends (at the start for the first), so that
   * flow, choice and the table of contents see the order the attempt will have; states stored before have none.
   */
  orderFor?: number;
}

export interface TrackingState {
  currentActivity?: string;
  suspendedActivity?: string;
  activities: Record<string, ActivityState>;
  globalObjectives: Record<string, ObjectiveState>;
  /** adl.data shared data buckets (4th edition), by target id: the store of each bucket a SCO wrote. */
  sharedData?: Record<string, string>;
  /** State of the seeded random number generator (selection and randomization). */
  rng: number;
}

/** A copy of objectives by key (their values are flat). */
export function cloneObjectives(objectives: Record<string, ObjectiveState>): Record<string, ObjectiveState> {
  const out = emptyRecord<ObjectiveState>();
  for (const k of Object.keys(objectives)) out[k] = objectiveOf(objectives[k]);
  return out;
}

/**
 * A deep copy of a tracking state. Its shape is known (flat objectives, a list of children, primitives), so this is
 * a few times cheaper than a JSON round trip: the valid requests try every choice on a copy, on every commit that
 * changes the tracking.
 */
export function cloneTrackingState(state: TrackingState): TrackingState {
  const activities = emptyRecord<ActivityState>();
  for (const id of Object.keys(state.activities)) {
    const a = state.activities[id];
    activities[id] = { ...a, objectives: cloneObjectives(a.objectives), availableChildren: a.availableChildren.slice() };
  }
  return {
    ...state,
    activities,
    globalObjectives: cloneObjectives(state.globalObjectives),
    ...(state.sharedData !== undefined ? { sharedData: recordOf(state.sharedData) } : {}),
  };
}

/**
 * A tracking state just parsed from its JSON, made the engine's own in place: every objective gets the one shape
 * (JSON leaves unknown fields out). The rest is already a fresh copy: restoring a stored state copies nothing twice.
 */
export function ownTrackingState(state: TrackingState): TrackingState {
  state.activities = recordOf(state.activities);
  for (const id of Object.keys(state.activities)) state.activities[id].objectives = cloneObjectives(state.activities[id].objectives);
  state.globalObjectives = cloneObjectives(state.globalObjectives ?? {});
  if (state.sharedData !== undefined) state.sharedData = recordOf(state.sharedData);
  return state;
}

export type Tri = boolean | undefined;

const emptyObjective = (): ObjectiveState => objectiveOf({ progressStatus: false, satisfiedStatus: false, measureStatus: false, normalizedMeasure: 0 });

/**
 * An objective's state with every field present (undefined when not known, which JSON leaves out): all objectives
 * share one shape, so the engine's reads and writes of them stay fast.
 */
function objectiveOf(o: ObjectiveState): ObjectiveState {
  return {
    progressStatus: o.progressStatus,
    satisfiedStatus: o.satisfiedStatus,
    measureStatus: o.measureStatus,
    normalizedMeasure: o.normalizedMeasure,
    completionKnown: o.completionKnown,
    completed: o.completed,
    progressMeasureKnown: o.progressMeasureKnown,
    progressMeasure: o.progressMeasure,
    rawScore: o.rawScore,
    minScore: o.minScore,
    maxScore: o.maxScore,
  };
}

export const objectiveKey = (o: ObjectiveDefinition): string => (o.primary && !o.id ? '#primary' : o.id);

export function initialTrackingState(def: SequencingDefinition, seed: number): TrackingState {
  const activities = emptyRecord<ActivityState>();
  for (const id of def.order) {
    const a = def.activities[id];
    activities[id] = {
      activityProgressStatus: false,
      attemptCount: 0,
      attemptProgressStatus: false,
      attemptCompletionStatus: false,
      attemptCompletionAmountStatus: false,
      attemptCompletionAmount: 0,
      attemptExperiencedDuration: 0,
      isActive: false,
      isSuspended: false,
      objectives: recordOf(Object.fromEntries(a.objectives.map((o) => [objectiveKey(o), emptyObjective()]))),
      availableChildren: [...a.children],
    };
  }
  return { activities, globalObjectives: emptyRecord(), rng: seed >>> 0 || 1 };
}

export class ActivityTree {
  constructor(
    readonly def: SequencingDefinition,
    public state: TrackingState,
  ) {}

  get root(): string {
    return this.def.root;
  }
  a(id: string): ActivityDefinition {
    return this.def.activities[id];
  }
  s(id: string): ActivityState {
    return this.state.activities[id];
  }
  has(id: string): boolean {
    return Object.hasOwn(this.def.activities, id);
  }
  isLeaf(id: string): boolean {
    return this.a(id).children.length === 0;
  }
  parent(id: string): string | undefined {
    return this.a(id).parent;
  }
  children(id: string): string[] {
    return this.s(id).availableChildren;
  }
  /** Activities from `from` up to the root, inclusive. */
  pathToRoot(from: string): string[] {
    const out: string[] = [];
    for (let x: string | undefined = from; x !== undefined; x = this.parent(x)) out.push(x);
    return out;
  }
  areSiblings(x: string, y: string): boolean {
    return x !== y && this.parent(x) !== undefined && this.parent(x) === this.parent(y);
  }
  isAncestorOf(anc: string, of: string): boolean {
    return this.pathToRoot(of).includes(anc) && anc !== of;
  }
  commonAncestor(x: string, y: string): string {
    const ys = new Set(this.pathToRoot(y));
    return this.pathToRoot(x).find((p) => ys.has(p)) ?? this.root;
  }
  /** The activity is in its parent's available children (selection) and every ancestor is too. */
  isAvailable(id: string): boolean {
    for (let x = id, p = this.parent(id); p !== undefined; x = p, p = this.parent(p)) {
      if (!this.children(p).includes(x)) return false;
    }
    return true;
  }
  /** Preorder position among available activities, for "forward of" comparisons. */
  preorder(): string[] {
    const out: string[] = [];
    const walk = (id: string): void => {
      out.push(id);
      for (const c of this.children(id)) walk(c);
    };
    walk(this.root);
    return out;
  }

  // ---- seeded randomness (SR.1 / SR.2 determinism) ----
  random(): number {
    // mulberry32
    let t = (this.state.rng = (this.state.rng + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  // ---- objectives through their maps ----
  primaryObjective(id: string): ObjectiveDefinition {
    return this.a(id).objectives.find((o) => o.primary) as ObjectiveDefinition;
  }
  objectiveDef(id: string, objectiveId: string | undefined): ObjectiveDefinition | undefined {
    if (!objectiveId) return this.primaryObjective(id);
    return this.a(id).objectives.find((o) => o.id === objectiveId);
  }
  private global(target: string): ObjectiveState {
    return (this.state.globalObjectives[target] ??= emptyObjective());
  }
  /** The objective as the sequencer sees it: a read map's known global value, else the local value. */
  readObjective(id: string, o: ObjectiveDefinition, forRuntime = false, forRules = false): ObjectiveState {
    let localState = this.s(id).objectives[objectiveKey(o)] ?? emptyObjective();
    if (this.staleView?.objective) localState = { ...localState, progressStatus: false, satisfiedStatus: false, measureStatus: false, normalizedMeasure: 0 };
    if (this.staleView?.progress) localState = { ...localState, completionKnown: undefined, completed: undefined, progressMeasureKnown: undefined, progressMeasure: undefined };
    const out = { ...localState };
    // An untracked activity has no objective information for sequencing; its SCO still sees the shared values.
    if (!this.a(id).tracked && !forRuntime) return out;
    for (const m of o.maps) {
      const g = this.state.globalObjectives[m.targetObjectiveID];
      // For sequencing rule conditions a read map makes the shared objective the source of the satisfaction status,
      // even while it is unknown: the local status (e.g. set by the LMS at the end of the attempt, objectiveSetByContent
      // false) does not show through (ADL test case CM-13; the ADL reference RTE keeps a record per global objective
      // from the start). Rollup and reporting keep the local value. Satisfied-by-measure objectives are judged on
      // their measure below instead.
      if (forRules && !o.satisfiedByMeasure && m.readSatisfiedStatus && !g?.progressStatus) {
        out.progressStatus = false;
        out.satisfiedStatus = false;
      }
      if (!g) continue;
      if (m.readSatisfiedStatus && g.progressStatus) {
        out.progressStatus = true;
        out.satisfiedStatus = g.satisfiedStatus;
      }
      if (m.readNormalizedMeasure && g.measureStatus) {
        out.measureStatus = true;
        out.normalizedMeasure = g.normalizedMeasure;
      }
      if (m.readCompletionStatus && g.completionKnown) {
        out.completionKnown = true;
        out.completed = g.completed;
      }
      if (m.readProgressMeasure && g.progressMeasureKnown) {
        out.progressMeasureKnown = true;
        out.progressMeasure = g.progressMeasure;
      }
      if (m.readRawScore && g.rawScore !== undefined) out.rawScore = g.rawScore;
      if (m.readMinScore && g.minScore !== undefined) out.minScore = g.minScore;
      if (m.readMaxScore && g.maxScore !== undefined) out.maxScore = g.maxScore;
    }
    // An objective satisfied by measure is judged on its (possibly read) measure; a cluster's primary objective is
    // judged by the rollup (RB.1.2a) instead, except in sequencing rule conditions when it reads a known shared
    // measure: then that measure decides, as for a leaf (ADL test cases OB-03c, RU-13b).
    const readMeasure = o.maps.some((m) => m.readNormalizedMeasure && this.state.globalObjectives[m.targetObjectiveID]?.measureStatus);
    const readOnly = forRules && o.primary && !this.isLeaf(id) && readMeasure;
    if (o.satisfiedByMeasure && (this.isLeaf(id) || !o.primary || readOnly)) {
      out.progressStatus = out.measureStatus;
      out.satisfiedStatus = out.measureStatus && out.normalizedMeasure >= o.minNormalizedMeasure;
    }
    return out;
  }
  /** Sets local objective data and writes what the write maps allow to the global objectives. */
  writeObjective(id: string, o: ObjectiveDefinition, patch: Partial<ObjectiveState>): void {
    const key = objectiveKey(o);
    const st = (this.s(id).objectives[key] ??= emptyObjective());
    Object.assign(st, patch);
    for (const m of o.maps) {
      const g = this.global(m.targetObjectiveID);
      const before = JSON.stringify(g);
      // Writes carry "unknown" too: a SCO that resets its status clears the shared objective.
      if (m.writeSatisfiedStatus && patch.progressStatus !== undefined) {
        g.progressStatus = st.progressStatus;
        g.satisfiedStatus = st.progressStatus && st.satisfiedStatus;
      }
      if (m.writeNormalizedMeasure && patch.measureStatus !== undefined) {
        g.measureStatus = st.measureStatus;
        g.normalizedMeasure = st.measureStatus ? st.normalizedMeasure : 0;
      }
      if (m.writeCompletionStatus && patch.completionKnown !== undefined) {
        g.completionKnown = st.completionKnown;
        g.completed = !!st.completionKnown && !!st.completed;
      }
      if (m.writeProgressMeasure && patch.progressMeasureKnown !== undefined && st.progressMeasureKnown) {
        g.progressMeasureKnown = true;
        g.progressMeasure = st.progressMeasure;
      }
      if (m.writeRawScore && patch.rawScore !== undefined) g.rawScore = st.rawScore;
      if (m.writeMinScore && patch.minScore !== undefined) g.minScore = st.minScore;
      if (m.writeMaxScore && patch.maxScore !== undefined) g.maxScore = st.maxScore;
      if (JSON.stringify(g) !== before) this.changedGlobals.add(m.targetObjectiveID);
    }
  }
  primaryStatus(id: string): ObjectiveState {
    return this.readObjective(id, this.primaryObjective(id));
  }
  setPrimary(id: string, patch: Partial<ObjectiveState>): void {
    this.writeObjective(id, this.primaryObjective(id), patch);
  }
  /** Attempt completion as the sequencer sees it: local, else read through the primary objective's completion map. */
  completion(id: string): { known: boolean; completed: boolean } {
    const s = this.s(id);
    const a = this.a(id);
    if (a.completedByMeasure) {
      // 4th edition completion threshold: a known progress measure (local or read) decides.
      const amount = this.progressAmount(id);
      return amount.known ? { known: true, completed: amount.amount >= a.minProgressMeasure } : { known: false, completed: false };
    }
    const p = this.primaryStatus(id);
    const read = this.primaryObjective(id).maps.some((m) => m.readCompletionStatus && this.state.globalObjectives[m.targetObjectiveID]?.completionKnown);
    if (read && a.tracked) return { known: true, completed: !!p.completed };
    if (s.attemptProgressStatus && !this.staleView?.progress) return { known: true, completed: s.attemptCompletionStatus };
    if (p.completionKnown) return { known: true, completed: !!p.completed };
    return { known: false, completed: false };
  }
  /** 4th edition: completion conditions may reference a (non-primary) objective's completion, shared through its maps. */
  private completionFor(id: string, o: ObjectiveDefinition | undefined): { known: boolean; completed: boolean } {
    if (!o || o.primary) return this.completion(id);
    const st = this.readObjective(id, o);
    return st.completionKnown ? { known: true, completed: !!st.completed } : { known: false, completed: false };
  }

  setCompletion(id: string, known: boolean, completed: boolean): void {
    const s = this.s(id);
    s.attemptProgressStatus = known;
    s.attemptCompletionStatus = known && completed;
    this.setPrimary(id, { completionKnown: known, completed: known && completed });
  }
  progressAmount(id: string): { known: boolean; amount: number } {
    const s = this.s(id);
    const p = this.primaryStatus(id);
    const read = this.primaryObjective(id).maps.some((m) => m.readProgressMeasure && this.state.globalObjectives[m.targetObjectiveID]?.progressMeasureKnown);
    if (read && this.a(id).tracked) return { known: true, amount: p.progressMeasure ?? 0 };
    if (s.attemptCompletionAmountStatus && !this.staleView?.progress) return { known: true, amount: s.attemptCompletionAmount };
    if (p.progressMeasureKnown) return { known: true, amount: p.progressMeasure ?? 0 };
    return { known: false, amount: 0 };
  }

  /** Resets the objective and attempt progress information for a new attempt (DB.2 step "initialize"). */
  initializeAttempt(id: string): void {
    const s = this.s(id);
    s.attemptProgressStatus = false;
    s.attemptCompletionStatus = false;
    s.attemptCompletionAmountStatus = false;
    s.attemptCompletionAmount = 0;
    s.attemptExperiencedDuration = 0;
    s.completionReported = false;
    s.successReported = false;
    for (const o of this.a(id).objectives) s.objectives[objectiveKey(o)] = emptyObjective();
  }

  // ---- UP.1 Limit Conditions Check Process ----
  limitConditionsViolated(id: string): boolean {
    const a = this.a(id);
    const s = this.s(id);
    if (!a.tracked) return false;
    if (s.isActive || s.isSuspended) return false;
    if (a.attemptLimit !== undefined && s.activityProgressStatus && s.attemptCount >= a.attemptLimit) return true;
    if (a.attemptAbsoluteDurationLimit !== undefined && s.activityProgressStatus && s.attemptExperiencedDuration >= a.attemptAbsoluteDurationLimit) {
      return true;
    }
    return false;
  }

  // ---- UP.2.1 Sequencing Rule Check Subprocess: one rule condition (true / false / unknown) ----
  condition(id: string, c: SequencingRule['conditions'][number]): Tri {
    const a = this.a(id);
    const s = this.s(id);
    const objDef = this.objectiveDef(id, c.referencedObjective);
    const obj = objDef ? this.readObjective(id, objDef, false, true) : emptyObjective();
    let v: Tri;
    switch (c.condition) {
      case 'satisfied':
        v = obj.progressStatus ? obj.satisfiedStatus : undefined;
        break;
      case 'objectiveStatusKnown':
        v = obj.progressStatus;
        break;
      case 'objectiveMeasureKnown':
        v = obj.measureStatus;
        break;
      case 'objectiveMeasureGreaterThan':
        v = obj.measureStatus ? obj.normalizedMeasure > c.measureThreshold : undefined;
        break;
      case 'objectiveMeasureLessThan':
        v = obj.measureStatus ? obj.normalizedMeasure < c.measureThreshold : undefined;
        break;
      case 'completed': {
        const comp = this.completionFor(id, objDef);
        v = comp.known ? comp.completed : undefined;
        break;
      }
      case 'activityProgressKnown':
        v = this.completionFor(id, objDef).known;
        break;
      case 'attempted':
        v = s.activityProgressStatus && s.attemptCount > 0;
        break;
      case 'attemptLimitExceeded':
        v = a.attemptLimit !== undefined && s.activityProgressStatus && s.attemptCount >= a.attemptLimit;
        break;
      case 'timeLimitExceeded':
        v = a.attemptAbsoluteDurationLimit !== undefined && s.attemptExperiencedDuration >= a.attemptAbsoluteDurationLimit;
        break;
      case 'outsideAvailableTimeRange':
        v = false;
        break;
      case 'always':
        v = true;
        break;
      case 'never':
        v = false;
        break;
      default:
        v = undefined;
    }
    return c.not && v !== undefined ? !v : v;
  }

  combine(values: Tri[], combination: 'all' | 'any'): Tri {
    if (combination === 'all') {
      if (values.some((v) => v === false)) return false;
      return values.every((v) => v === true) ? true : undefined;
    }
    if (values.some((v) => v === true)) return true;
    return values.every((v) => v === false) ? false : undefined;
  }

  /** UP.2 Sequencing Rules Check Process: the action of the first rule (of the given actions) whose conditions hold. */
  rulesCheck(id: string, rules: SequencingRule[], actions: string[]): string | undefined {
    for (const r of rules) {
      if (!actions.includes(r.action)) continue;
      if (r.conditions.length === 0) continue;
      const v = this.combine(
        r.conditions.map((c) => this.condition(id, c)),
        r.combination,
      );
      if (v === true) return r.action;
    }
    return undefined;
  }
  preRule(id: string, actions: string[]): string | undefined {
    return this.rulesCheck(id, this.a(id).preConditionRules, actions);
  }

  /** While set (a lookahead that leaves the tree as it is), the answers of checkActivity by activity. */
  checks?: Map<string, boolean>;

  /** UP.5 Check Activity Process: disabled by a precondition rule, or a limit condition is violated. */
  checkActivity(id: string): boolean {
    const known = this.checks?.get(id);
    if (known !== undefined) return known;
    const violated = !!this.preRule(id, ['disabled']) || this.limitConditionsViolated(id);
    this.checks?.set(id, violated);
    return violated;
  }

  // ---- RB.1.x rollup (rollup-process.ts) ----

  /**
   * While a parent rolls up, a child whose latest attempt began in an earlier attempt of the parent is seen without
   * its local objective (useCurrentAttemptObjectiveInfo) or progress (useCurrentAttemptProgressInfo) information.
   */
  staleView?: { objective: boolean; progress: boolean };
  /** Global objectives written since the last rollup of the activities that read them. */
  readonly changedGlobals = new Set<string>();
  /** An overall rollup is running (the readers' rollups it triggers do not start another round). */
  rollingUp = false;

  /** RB.1.5 Overall Rollup Process. */
  overallRollup(id: string): void {
    new RollupProcess(this).overallRollup(id);
  }
}
