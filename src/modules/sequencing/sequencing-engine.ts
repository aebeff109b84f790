/**
 * SCORM 2004 (2nd–4th edition) sequencing and navigation, evaluated on the server: a pure, deterministic engine
 * over the sequencing definition of a course and the tracking state of one registration. The player calls
 * `navigate()` for every navigation request (from the UI or `adl.nav.request`), `reportRuntime()` with what the SCO
 * set before it terminates, `validRequests()` for the navigation UI and `adl.nav.request_valid`, and stores
 * `serialize()` with the registration. OP.1 (Overall Sequencing Process) is `navigate()`.
 */
import { ActivityTree, cloneObjectives, cloneTrackingState, initialTrackingState, ownTrackingState, type ActivityState, type ObjectiveState, type TrackingState } from './activity-tree';
import { buildSequencingDefinition, type ManifestSequencingData, type SequencingDefinition, type SharedDataMap } from './sequencing-definition';
import { SequencingException } from './sequencing-exception';
import { SequencingProcesses, type NavigationRequest, type NavigationRequestType } from './sequencing-processes';
import type { SequencingRequest } from './sequencing-requests';
import { emptyRecord } from '../../platform/records';

export { SequencingException, type NavigationRequest, type NavigationRequestType };

export interface NavigationResult {
  /** The activity to launch now. */
  deliver?: string;
  /** The sequencing session ended (exit all, suspend all, continue past the last activity, exit at the root). */
  ended?: boolean;
  /** The request was not valid now (nothing changed unless termination already happened, as the book says). */
  error?: { code: string; message: string };
}

/** What a SCO set in its run-time data model before it terminated (cmi.* values, already parsed). */
export interface RuntimeResults {
  completionStatus?: 'completed' | 'incomplete' | 'not attempted' | 'unknown';
  successStatus?: 'passed' | 'failed' | 'unknown';
  scoreScaled?: number;
  scoreRaw?: number;
  scoreMin?: number;
  scoreMax?: number;
  progressMeasure?: number;
  /** cmi.exit: "suspend" keeps the attempt open for a later resume. */
  exit?: string;
  /** The attempt's total time so far, in seconds (for attemptAbsoluteDurationLimit). */
  attemptDurationSeconds?: number;
  objectives?: Array<{
    id: string;
    completionStatus?: RuntimeResults['completionStatus'];
    successStatus?: RuntimeResults['successStatus'];
    scoreScaled?: number;
    scoreRaw?: number;
    scoreMin?: number;
    scoreMax?: number;
    progressMeasure?: number;
  }>;
}

/** Which navigation requests would be valid now (`adl.nav.request_valid.*`, the player's buttons and table of contents). */
export interface ValidRequests {
  start: boolean;
  resumeAll: boolean;
  continue: boolean;
  previous: boolean;
  exit: boolean;
  exitAll: boolean;
  suspendAll: boolean;
  abandon: boolean;
  abandonAll: boolean;
  /** Activities a choice request would succeed for (the table of contents shows these as selectable). */
  choice: string[];
  /** Activities a jump request may target. */
  jump: string[];
}

/** Rolled-up status of one activity, as the registration's activityDetails reports it. */
export interface ActivityStatus {
  id: string;
  attempts: number;
  completion: 'completed' | 'incomplete' | 'unknown';
  success: 'passed' | 'failed' | 'unknown';
  scaledScore?: number;
  progressMeasure?: number;
  active: boolean;
  suspended: boolean;
}

/** adl.data.n.store is a characterstring of at most 64000 characters (SCORM 2004 4th edition RTE). */
const SHARED_DATA_MAX = 64000;

export interface SerializedSequencingState {
  version: 1;
  state: TrackingState;
}

/** Parses an `adl.nav.request` value: `continue`, `{target=ID}choice`, `{target=ID}jump`, `_none_` (undefined). */
export function parseNavigationRequest(value: string): NavigationRequest | undefined {
  const m = /^\s*(?:\{target=([^}]*)\})?\s*([A-Za-z_]+)\s*$/.exec(value);
  if (!m || m[2] === '_none_') return undefined;
  const type = m[2] as NavigationRequestType;
  return m[1] !== undefined ? { type, target: m[1] } : { type };
}

export class SequencingEngine {
  private tree: ActivityTree;
  /** PlayerInvokeRollupAtSuspendAll: a suspend all applies the Overall Rollup Process to the current activity (the book's TB.2.3); false: it does not. */
  rollupAtSuspendAll = true;

  private constructor(
    readonly definition: SequencingDefinition,
    state: TrackingState,
  ) {
    this.tree = new ActivityTree(definition, state);
  }

  /**
   * A new registration's engine: selection and randomization with timing "once", and those of the first attempt with
   * "onEachNewAttempt", happen here (SR.1, SR.2), from `seed` (the same seed, the same orders);
   * `globalObjectives` seeds the shared objectives (what `globalObjectives()` of another engine returned).
   */
  static create(
    data: ManifestSequencingData | SequencingDefinition,
    options: { seed?: number; globalObjectives?: Record<string, ObjectiveState> } = {},
  ): SequencingEngine {
    const def = 'activities' in data && 'order' in data ? data : buildSequencingDefinition(data);
    const state = initialTrackingState(def, options.seed ?? 1);
    // objectivesGlobalToSystem: the learner's shared objectives from other courses (or earlier registrations).
    if (options.globalObjectives) state.globalObjectives = cloneObjectives(options.globalObjectives);
    const engine = new SequencingEngine(def, state);
    const p = new SequencingProcesses(engine.tree);
    for (const id of def.order) {
      p.selectChildren(id, 'once');
      p.randomizeChildren(id, 'once');
    }
    p.prepareNextAttempts();
    return engine;
  }

  /** An engine for a stored registration (the state `serialize()` returned). */
  static restore(data: ManifestSequencingData | SequencingDefinition, saved: SerializedSequencingState | string): SequencingEngine {
    const def = 'activities' in data && 'order' in data ? data : buildSequencingDefinition(data);
    const parsed = (typeof saved === 'string' ? JSON.parse(saved) : saved) as SerializedSequencingState;
    // Activities the stored state does not know (a changed course) start fresh; ones no longer in the course are dropped.
    // Every objective gets the engine's one shape (JSON leaves unknown fields out); a state given as an object is copied.
    for (const id of Object.keys(parsed.state.activities)) parsed.state.activities[id].availableChildren ??= [...(def.activities[id]?.children ?? [])];
    const state = typeof saved === 'string' ? ownTrackingState(parsed.state) : cloneTrackingState(parsed.state);
    let fresh: TrackingState | undefined;
    const activities = emptyRecord<ActivityState>();
    for (const id of def.order) activities[id] = state.activities[id] ?? (fresh ??= initialTrackingState(def, 1)).activities[id];
    const engine = new SequencingEngine(def, { ...state, activities });
    // A state stored before selection and randomization were drawn per attempt gets its clusters' next orders now.
    new SequencingProcesses(engine.tree).prepareNextAttempts();
    return engine;
  }

  serialize(): SerializedSequencingState {
    return { version: 1, state: cloneTrackingState(this.tree.state) };
  }

  /** `serialize()` as the JSON text that is stored (and that `restore()` takes). */
  serializedText(): string {
    return JSON.stringify({ version: 1, state: this.tree.state });
  }

  get currentActivity(): string | undefined {
    return this.tree.state.currentActivity;
  }
  get suspendedActivity(): string | undefined {
    return this.tree.state.suspendedActivity;
  }

  /** OP.1 Overall Sequencing Process for one navigation request. */
  navigate(request: NavigationRequest | string): NavigationResult {
    const req = typeof request === 'string' ? parseNavigationRequest(request) : request;
    if (!req) return { error: { code: 'NB.2.1-13', message: `"${typeof request === 'string' ? request : request.type}" is not a navigation request` } };
    if (req.type === 'choice' || req.type === 'jump') {
      // A choice the learner cannot make must not end the current attempt first: try it on a copy of the state.
      const trial = new SequencingEngine(this.definition, cloneTrackingState(this.tree.state)).run(req, true);
      if (trial.error) return trial;
    }
    return this.run(req);
  }

  /** OP.1; a `trial` only finds out what would be delivered (it stops before DB.2, which only sets up the delivery and cannot fail). */
  private run(req: NavigationRequest, trial = false): NavigationResult {
    const p = new SequencingProcesses(this.tree, this.rollupAtSuspendAll);
    try {
      const nav = p.navigationRequest(req); // NB.2.1
      let seq = nav.sequencing;
      if (nav.termination) {
        const replaced = p.terminationRequest(nav.termination); // TB.2.3
        // A sequencing request from the termination (post condition rules, exit at the root) replaces the pending one.
        if (replaced) seq = replaced;
        // Clusters whose attempt the termination ended get their children for the next one (SR.1, SR.2).
        p.prepareNextAttempts();
      }
      if (!seq) return {};
      const outcome = p.sequencingRequest(seq, nav.target); // SB.2.12
      if (outcome.endSession) {
        this.endSession();
        return { ended: true };
      }
      if (!outcome.deliver) return {};
      p.deliveryRequest(outcome.deliver); // DB.1.1
      if (!trial) p.contentDeliveryEnvironment(outcome.deliver); // DB.2
      return { deliver: outcome.deliver };
    } catch (e) {
      if (e instanceof SequencingException) return { error: { code: e.code, message: e.message } };
      throw e;
    } finally {
      // Attempts the delivery (or a choice that could deliver nothing) ended.
      p.prepareNextAttempts();
    }
  }

  /**
   * End of the sequencing session: attempts still open end (so the next session's start begins a new attempt on
   * the course), the current activity is cleared; a suspended activity stays for resume all.
   */
  private endSession(): void {
    const t = this.tree;
    const cur = t.state.currentActivity;
    if (cur !== undefined) {
      const p = new SequencingProcesses(t);
      for (const x of t.pathToRoot(cur)) if (t.s(x).isActive) p.endAttempt(x);
    }
    t.state.currentActivity = undefined;
  }

  /**
   * The run-time data of the delivered SCO, mapped to the tracking model (SCORM RTE book 4.2, SN book 4.2.1):
   * completion/success status, score, progress measure (with the completion threshold), objectives by id, and
   * suspension (cmi.exit "suspend"). Rollup runs so that status queries and the table of contents see it at once;
   * with `rollup` false (PlayerRollupRuntimeAtScoUnload NO) the activity's ancestors are left as the last rollup
   * left them, until rollUp() or the next navigation request (the End Attempt Process rolls up).
   */
  reportRuntime(activityId: string, r: RuntimeResults, rollup = true): void {
    const t = this.tree;
    if (!t.has(activityId)) return;
    const a = t.a(activityId);
    const s = t.s(activityId);
    if (r.exit !== undefined) s.isSuspended = r.exit === 'suspend';
    if (r.attemptDurationSeconds !== undefined && r.attemptDurationSeconds >= 0) s.attemptExperiencedDuration = r.attemptDurationSeconds;
    if (!a.tracked) return;
    const primary = t.primaryObjective(activityId);

    if (r.progressMeasure !== undefined) {
      s.attemptCompletionAmountStatus = true;
      s.attemptCompletionAmount = r.progressMeasure;
      t.setPrimary(activityId, { progressMeasureKnown: true, progressMeasure: r.progressMeasure });
    }
    if (r.completionStatus !== undefined) s.completionReported = true;
    if (r.successStatus !== undefined) s.successReported = true;
    let completion = r.completionStatus;
    // Completed by measure (4th edition): only the progress measure decides, against the completion threshold.
    if (a.completedByMeasure && r.progressMeasure !== undefined) completion = r.progressMeasure >= a.minProgressMeasure ? 'completed' : 'incomplete';
    else if (a.completedByMeasure && completion !== undefined) completion = 'unknown';
    if (completion === 'completed') t.setCompletion(activityId, true, true);
    else if (completion === 'incomplete' || completion === 'not attempted') t.setCompletion(activityId, true, false);
    else if (completion === 'unknown') t.setCompletion(activityId, false, false);

    const score: Partial<ObjectiveState> = {};
    if (r.scoreRaw !== undefined) score.rawScore = r.scoreRaw;
    if (r.scoreMin !== undefined) score.minScore = r.scoreMin;
    if (r.scoreMax !== undefined) score.maxScore = r.scoreMax;
    if (r.scoreScaled !== undefined) Object.assign(score, { measureStatus: true, normalizedMeasure: r.scoreScaled });
    if (Object.keys(score).length) t.setPrimary(activityId, score);
    let success = r.successStatus;
    // Satisfied by measure: only the score decides (cmi.success_status is judged against the passing score).
    if (primary.satisfiedByMeasure && r.scoreScaled !== undefined) success = r.scoreScaled >= primary.minNormalizedMeasure ? 'passed' : 'failed';
    else if (primary.satisfiedByMeasure && success !== undefined) success = 'unknown';
    if (success === 'passed') t.setPrimary(activityId, { progressStatus: true, satisfiedStatus: true });
    else if (success === 'failed') t.setPrimary(activityId, { progressStatus: true, satisfiedStatus: false });
    else if (success === 'unknown') t.setPrimary(activityId, { progressStatus: false, satisfiedStatus: false });

    for (const o of r.objectives ?? []) {
      const def = a.objectives.find((d) => d.id === o.id);
      if (!def || (def.primary && def.id === primary.id && r.successStatus !== undefined)) continue;
      const patch: Partial<ObjectiveState> = {};
      // cmi.objectives.n for the primary objective reports the activity's own status as much as cmi.success_status.
      if (def === primary && o.successStatus !== undefined) s.successReported = true;
      if (def === primary && o.completionStatus !== undefined) s.completionReported = true;
      if (o.scoreScaled !== undefined) Object.assign(patch, { measureStatus: true, normalizedMeasure: o.scoreScaled });
      let os = o.successStatus;
      if (def.satisfiedByMeasure && o.scoreScaled !== undefined) os = o.scoreScaled >= def.minNormalizedMeasure ? 'passed' : 'failed';
      if (os === 'passed' || os === 'failed') Object.assign(patch, { progressStatus: true, satisfiedStatus: os === 'passed' });
      else if (os === 'unknown') Object.assign(patch, { progressStatus: false, satisfiedStatus: false });
      // For the primary objective cmi.completion_status, when the SCO set it, wins over cmi.objectives.n.completion_status.
      const primaryCompletion = def === primary && completion !== undefined;
      if (o.completionStatus && o.completionStatus !== 'unknown' && !primaryCompletion) {
        Object.assign(patch, { completionKnown: true, completed: o.completionStatus === 'completed' });
      } else if (o.completionStatus === 'unknown' && !primaryCompletion) Object.assign(patch, { completionKnown: false, completed: false });
      if (o.progressMeasure !== undefined) Object.assign(patch, { progressMeasureKnown: true, progressMeasure: o.progressMeasure });
      if (o.scoreRaw !== undefined) patch.rawScore = o.scoreRaw;
      if (o.scoreMin !== undefined) patch.minScore = o.scoreMin;
      if (o.scoreMax !== undefined) patch.maxScore = o.scoreMax;
      t.writeObjective(activityId, def, patch);
    }
    if (rollup) t.overallRollup(activityId);
  }

  /** The Overall Rollup Process from an activity (its ancestors' status from what it and its siblings hold now). */
  rollUp(activityId: string): void {
    if (this.tree.has(activityId)) this.tree.overallRollup(activityId);
  }

  /**
   * What the SCO sees in cmi.* when it is launched: values the sequencer holds for its objectives (read through the
   * global objective maps), e.g. an objective another SCO satisfied. Keys are objective ids ("" for an unnamed primary).
   */
  objectiveData(activityId: string): Record<string, ObjectiveState> {
    const t = this.tree;
    if (!t.has(activityId)) return {};
    return Object.fromEntries(t.a(activityId).objectives.map((o) => [o.primary && !o.id ? '' : o.id, t.readObjective(activityId, o, true)]));
  }

  /** The completion of an activity, as status() reports it (the table of contents' marks, without the rest). */
  completion(activityId: string): ActivityStatus['completion'] {
    const c = this.tree.completion(activityId);
    return c.known ? (c.completed ? 'completed' : 'incomplete') : 'unknown';
  }

  /** The rolled-up status of an activity. */
  /** An activity's success alone (the table of contents' marks), without the rest of status(). */
  success(activityId: string): ActivityStatus['success'] {
    const p = this.tree.primaryStatus(activityId);
    return p.progressStatus ? (p.satisfiedStatus ? 'passed' : 'failed') : 'unknown';
  }

  status(activityId: string): ActivityStatus {
    const t = this.tree;
    const s = t.s(activityId);
    const p = t.primaryStatus(activityId);
    const amount = t.progressAmount(activityId);
    return {
      id: activityId,
      attempts: s.attemptCount,
      completion: this.completion(activityId),
      success: this.success(activityId),
      ...(p.measureStatus ? { scaledScore: p.normalizedMeasure } : {}),
      ...(amount.known ? { progressMeasure: amount.amount } : {}),
      active: s.isActive,
      suspended: s.isSuspended,
    };
  }

  /** Global (shared) objectives, by target objective id. */
  globalObjectives(): Record<string, ObjectiveState> {
    return cloneObjectives(this.tree.state.globalObjectives);
  }

  /**
   * The adl.data buckets of an activity (adlcp:data maps, 4th edition): its maps in order (adl.data.n) and the stores
   * written so far of those it may read (a bucket nobody wrote has no store).
   */
  sharedDataOf(activityId: string): { maps: SharedDataMap[]; stores: Record<string, string> } {
    const maps = this.definition.activities[activityId]?.sharedData ?? [];
    const all = this.tree.state.sharedData ?? emptyRecord<string>();
    const stores = Object.fromEntries(maps.filter((m) => m.readSharedData && Object.hasOwn(all, m.targetID)).map((m) => [m.targetID, all[m.targetID]]));
    return { maps, stores };
  }

  /** Stores what the SCO of an activity wrote to adl.data.n.store; buckets it may not write (or has no map for) are ignored. */
  writeSharedData(activityId: string, stores: Record<string, unknown>): void {
    const maps = this.definition.activities[activityId]?.sharedData ?? [];
    for (const m of maps) {
      const v = stores[m.targetID];
      if (!m.writeSharedData || typeof v !== 'string' || v.length > SHARED_DATA_MAX) continue;
      (this.tree.state.sharedData ??= emptyRecord())[m.targetID] = v;
    }
  }

  /** Some cluster of the course selects or reorders its children (SR.1, SR.2): the order can differ from the manifest's. */
  get drawsChildren(): boolean {
    return Object.values(this.definition.activities).some((a) => (a.selectCount !== undefined && a.selectionTiming !== 'never') || (a.reorderChildren && a.randomizationTiming !== 'never'));
  }

  /** The available activities (selected by their parents) in tree order, with the current orders of children. */
  activityOrder(): string[] {
    return this.tree.preorder();
  }

  /** Children of an activity in their current (selected, randomized) order. */
  availableChildren(activityId: string): string[] {
    return [...this.tree.children(activityId)];
  }

  /**
   * Which navigation requests are valid now. Start, resume all, the termination requests and continue follow the
   * Navigation Request Process (NB.2.1); previous and each choice target are valid when the whole request (OP.1:
   * termination, sequencing and delivery checks) would deliver an activity, tried on a copy of the state (one copy
   * for all the choice targets, see deliverableChoices). The
   * boolean answers are worked out when first read: read them before the engine runs another request.
   */
  validRequests(): ValidRequests & { readonly continueLeads: boolean } {
    const t = this.tree;
    // The Navigation Request Process only reads the state: it runs on the engine's own tree.
    const processes = new SequencingProcesses(t);
    const navOk = (req: NavigationRequest): boolean => accepted(() => processes.navigationRequest(req));
    const cur = t.state.currentActivity;
    const { choice, previous, continueLeads } = this.lookahead(processes);
    const jump = cur === undefined ? [] : this.definition.order.filter((id) => t.isLeaf(id) && t.isAvailable(id));
    return new LazyValidRequests(choice, jump, continueLeads, {
      start: () => navOk({ type: 'start' }),
      resumeAll: () => navOk({ type: 'resumeAll' }),
      continue: () => navOk({ type: 'continue' }),
      previous: () => previous,
      exit: () => navOk({ type: 'exit' }),
      exitAll: () => navOk({ type: 'exitAll' }),
      suspendAll: () => navOk({ type: 'suspendAll' }) && cur !== undefined && t.s(cur).isActive,
      abandon: () => navOk({ type: 'abandon' }),
      abandonAll: () => navOk({ type: 'abandonAll' }),
    });
  }

  /**
   * The activities a choice request would deliver now, and whether previous would deliver one, as navigate() would
   * run them (OP.1: NB.2.1, the termination of the current attempt, SB.2.9 or SB.2.8, the DB.1.1 checks). The
   * termination is the same whatever the request: it runs once, on one copy of the state, and every request is tried
   * from there without changing it (trying each target on its own copy cost the square of the activity count).
   */
  private lookahead(processes: SequencingProcesses): { choice: string[]; previous: boolean; continueLeads: boolean } {
    const none = { choice: [], previous: false, continueLeads: false };
    const t = this.tree;
    const cur = t.state.currentActivity;
    const targets = this.definition.order.filter((id) => id !== t.root && t.isAvailable(id));
    if (cur === undefined) targets.unshift(t.root);
    const allowed = targets.filter((id) => !processes.choiceRefusal(id));
    const previous = accepted(() => processes.navigationRequest({ type: 'previous' }));
    const next = accepted(() => processes.navigationRequest({ type: 'continue' }));
    if (!allowed.length && !previous && !next) return none;
    const p = new SequencingProcesses(new ActivityTree(this.definition, cloneTrackingState(t.state)));
    let replaced: SequencingRequest | undefined;
    const terminated = accepted(() => {
      if (cur !== undefined && t.s(cur).isActive) replaced = p.terminationRequest('exit');
      p.prepareNextAttempts();
    });
    if (!terminated) return none;
    if (replaced) {
      // Post condition rules (or an exit at the root) replaced the request: the same answer for every one.
      const leads = p.leadsSomewhere(replaced);
      const delivers = leads && p.delivers(replaced);
      return { choice: delivers ? allowed : [], previous: previous && delivers, continueLeads: next && leads };
    }
    // The choices and continue first: they leave the copy as it is.
    const choice = p.deliverableChoices(allowed);
    const continueLeads = next && p.leadsSomewhere('continue');
    return { choice, previous: previous && p.delivers('previous'), continueLeads };
  }

  /**
   * The value of `adl.nav.request_valid.<request>` for the SCO: `continue`, `previous`, `choice.{target=ID}`,
   * `jump.{target=ID}` → "true" / "false" (an unknown target is "false"; anything else "unknown").
   */
  navRequestValid(request: string): 'true' | 'false' | 'unknown' {
    const valid = this.validRequests();
    if (request === 'continue' || request === 'previous') return valid[request] ? 'true' : 'false';
    const m = /^(choice|jump)\.\{target=([^}]*)\}$/.exec(request);
    if (!m) return 'unknown';
    return valid[m[1] as 'choice' | 'jump'].includes(m[2]) ? 'true' : 'false';
  }
}

/** The step ran without a sequencing exception. */
function accepted(step: () => unknown): boolean {
  try {
    step();
    return true;
  } catch (e) {
    if (e instanceof SequencingException) return false;
    throw e;
  }
}

type RequestCheck = Exclude<keyof ValidRequests, 'choice' | 'jump'>;

/**
 * Valid requests whose navigation request checks run when read (the player's commit reads four of the nine), once
 * each; JSON has them all.
 */
class LazyValidRequests implements ValidRequests {
  private readonly known: Partial<Record<RequestCheck, boolean>> = {};

  constructor(
    readonly choice: string[],
    readonly jump: string[],
    /**
     * Continue, tried as navigate() would run it, delivers an activity or ends the session: the page offers it only
     * then (the Navigation Request Process alone allows a continue the next activity's rules refuse).
     */
    readonly continueLeads: boolean,
    private readonly checks: Record<RequestCheck, () => boolean>,
  ) {}

  private read(name: RequestCheck): boolean {
    return (this.known[name] ??= this.checks[name]());
  }
  get start(): boolean {
    return this.read('start');
  }
  get resumeAll(): boolean {
    return this.read('resumeAll');
  }
  get continue(): boolean {
    return this.read('continue');
  }
  get previous(): boolean {
    return this.read('previous');
  }
  get exit(): boolean {
    return this.read('exit');
  }
  get exitAll(): boolean {
    return this.read('exitAll');
  }
  get suspendAll(): boolean {
    return this.read('suspendAll');
  }
  get abandon(): boolean {
    return this.read('abandon');
  }
  get abandonAll(): boolean {
    return this.read('abandonAll');
  }
  toJSON(): ValidRequests {
    const { start, resumeAll, exit, exitAll, suspendAll, abandon, abandonAll, choice, jump } = this;
    return { start, resumeAll, continue: this.continue, previous: this.previous, exit, exitAll, suspendAll, abandon, abandonAll, choice, jump };
  }
}
