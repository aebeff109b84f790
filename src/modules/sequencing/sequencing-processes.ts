/**
 * The behaviours of the SN book's Overall Sequencing Process (OP.1): navigation request (NB.2.1), termination
 * request (TB.2.x, UP.3, UP.4), sequencing request (SB.2.x), delivery request (DB.1.1, DB.2, DB.2.1) and
 * selection/randomization (SR.1, SR.2); the sequencing request behaviours (SB.2.x) are in sequencing-requests.ts.
 * Pure functions of an ActivityTree; errors carry the book's exception codes.
 */
import { objectiveKey, type ActivityTree } from './activity-tree';
import type { SequencingDefinition } from './sequencing-definition';
import { fail, SequencingException } from './sequencing-exception';
import { SequencingRequests, type SequencingOutcome, type SequencingRequest } from './sequencing-requests';

export type NavigationRequestType =
  | 'start'
  | 'resumeAll'
  | 'continue'
  | 'previous'
  | 'forward'
  | 'backward'
  | 'choice'
  | 'jump'
  | 'exit'
  | 'exitAll'
  | 'suspendAll'
  | 'abandon'
  | 'abandonAll';

export interface NavigationRequest {
  type: NavigationRequestType;
  target?: string;
}

type TerminationRequest = 'exit' | 'exitAll' | 'suspendAll' | 'abandon' | 'abandonAll' | 'exitParent';

/** Clusters with selection or randomization on each new attempt, by definition (computed once). */
const eachAttempt = new WeakMap<SequencingDefinition, string[]>();
function drawnEachAttempt(def: SequencingDefinition): string[] {
  let ids = eachAttempt.get(def);
  if (!ids) {
    ids = def.order.filter((id) => {
      const a = def.activities[id];
      return a.children.length > 0 && ((a.selectionTiming === 'onEachNewAttempt' && a.selectCount !== undefined) || (a.randomizationTiming === 'onEachNewAttempt' && a.reorderChildren));
    });
    eachAttempt.set(def, ids);
  }
  return ids;
}

export class SequencingProcesses {
  /**
   * `rollupAtSuspendAll` false (PlayerInvokeRollupAtSuspendAll NO): a suspend all does not apply the Overall Rollup
   * Process to the current activity (TB.2.3); its ancestors keep the status of the last rollup.
   */
  constructor(
    private readonly t: ActivityTree,
    private readonly rollupAtSuspendAll = true,
  ) {}

  private get current(): string | undefined {
    return this.t.state.currentActivity;
  }

  // ================= NB.2.1 Navigation Request Process =================
  navigationRequest(req: NavigationRequest): { termination?: TerminationRequest; sequencing?: SequencingRequest; target?: string } {
    const t = this.t;
    const cur = this.current;
    switch (req.type) {
      case 'start':
        if (cur === undefined) return { sequencing: 'start' };
        return fail('NB.2.1-1', 'The sequencing session has already begun');
      case 'resumeAll':
        if (cur !== undefined) return fail('NB.2.1-1', 'The sequencing session has already begun');
        if (t.state.suspendedActivity === undefined) return fail('NB.2.1-3', 'There is no suspended activity to resume');
        return { sequencing: 'resumeAll' };
      case 'continue': {
        if (cur === undefined) return fail('NB.2.1-2', 'The sequencing session has not begun');
        const p = t.parent(cur);
        if (p !== undefined && t.a(p).controlMode.flow) {
          return { ...(t.s(cur).isActive ? { termination: 'exit' as const } : {}), sequencing: 'continue' };
        }
        return fail('NB.2.1-4', 'Flow navigation is not allowed within the parent of the current activity');
      }
      case 'previous': {
        if (cur === undefined) return fail('NB.2.1-2', 'The sequencing session has not begun');
        const p = t.parent(cur);
        if (p === undefined) return fail('NB.2.1-6', 'The current activity is the root; there is no previous activity');
        if (!t.a(p).controlMode.flow) return fail('NB.2.1-4', 'Flow navigation is not allowed within the parent of the current activity');
        if (t.a(p).controlMode.forwardOnly) return fail('NB.2.1-5', 'Backward navigation is not allowed (forwardOnly)');
        return { ...(t.s(cur).isActive ? { termination: 'exit' as const } : {}), sequencing: 'previous' };
      }
      case 'forward':
      case 'backward':
        return fail('NB.2.1-7', `The ${req.type} navigation request is not supported`);
      case 'choice': {
        const refused = this.choiceRefusal(req.target);
        if (refused) throw refused;
        return { ...(cur !== undefined && t.s(cur).isActive ? { termination: 'exit' as const } : {}), sequencing: 'choice', target: req.target };
      }
      case 'jump': {
        const target = req.target;
        if (target === undefined || !t.has(target) || !t.isAvailable(target)) {
          return fail('NB.2.1-11', `The jump target "${target ?? ''}" is not an available activity`);
        }
        return { ...(cur !== undefined && t.s(cur).isActive ? { termination: 'exit' as const } : {}), sequencing: 'jump', target };
      }
      case 'exit':
      case 'abandon':
        if (cur === undefined) return fail('NB.2.1-2', 'The sequencing session has not begun');
        if (!t.s(cur).isActive) return fail('NB.2.1-12', 'The current activity is not active');
        return { termination: req.type, sequencing: 'exit' };
      case 'exitAll':
      case 'abandonAll':
      case 'suspendAll':
        if (cur === undefined) return fail('NB.2.1-2', 'The sequencing session has not begun');
        return { termination: req.type, sequencing: 'exit' };
      default:
        return fail('NB.2.1-13', `Unknown navigation request "${String((req as { type: unknown }).type)}"`);
    }
  }

  /**
   * NB.2.1 for a choice request: why it is not valid now (undefined: it is). Returned, not thrown: the valid requests
   * ask it of every activity.
   */
  choiceRefusal(target: string | undefined): SequencingException | undefined {
    const t = this.t;
    const cur = this.current;
    if (target === undefined || !t.has(target)) return new SequencingException('NB.2.1-11', `The choice target "${target ?? ''}" is not in the activity tree`);
    const p = t.parent(target);
    if (p !== undefined && !t.a(p).controlMode.choice) return new SequencingException('NB.2.1-10', `Choice is not allowed among the children of "${p}"`);
    if (cur === undefined || t.areSiblings(cur, target)) return undefined;
    const common = t.commonAncestor(cur, target);
    for (const x of t.pathToRoot(cur)) {
      if (x === common) break;
      if (t.s(x).isActive && !t.a(x).controlMode.choiceExit) return new SequencingException('NB.2.1-8', `Choice would exit "${x}", whose choiceExit is false`);
    }
    return undefined;
  }

  // ================= TB.2.3 Termination Request Process =================
  terminationRequest(req: TerminationRequest): SequencingRequest | undefined {
    const t = this.t;
    const cur = this.current;
    if (cur === undefined) return fail('TB.2.3-1', 'The sequencing session has not begun');
    if ((req === 'exit' || req === 'abandon') && !t.s(cur).isActive) return fail('TB.2.3-2', 'The current activity is not active');
    switch (req) {
      case 'exit': {
        this.endAttempt(cur);
        this.exitActionRules(); // TB.2.1
        let seqReq: SequencingRequest | undefined;
        for (;;) {
          const post = this.postConditionRules(); // TB.2.2
          seqReq = post.sequencing;
          // exitAll from a post condition (retryAll keeps its retry, now of the root).
          if (post.termination === 'exitAll') {
            const exitAll = this.terminationRequest('exitAll');
            return post.sequencing ?? exitAll;
          }
          if (post.termination === 'exitParent') {
            const c = this.current as string;
            const p = t.parent(c);
            if (p === undefined) return fail('TB.2.3-4', 'Cannot exit the parent of the root');
            t.state.currentActivity = p;
            this.endAttempt(p);
            continue;
          }
          break;
        }
        if (this.current === t.root && seqReq !== 'retry') return 'exit';
        return seqReq;
      }
      case 'exitAll': {
        // Exit all ends the attempt on the whole course: a cmi.exit "suspend" the SCO left does not keep anything
        // suspended for a later session (which starts new attempts; ADL test case OB-03b).
        for (const id of t.def.order) t.s(id).isSuspended = false;
        t.state.suspendedActivity = undefined;
        if (t.s(cur).isActive) this.endAttempt(cur);
        this.terminateDescendentAttempts(t.root);
        this.endAttempt(t.root);
        t.state.currentActivity = t.root;
        return 'exit';
      }
      case 'suspendAll': {
        let suspended: string;
        if (t.s(cur).isActive || t.s(cur).isSuspended) {
          if (this.rollupAtSuspendAll) t.overallRollup(cur);
          suspended = cur;
        } else {
          const p = t.parent(cur);
          if (p === undefined) return fail('TB.2.3-3', 'Nothing to suspend');
          suspended = p;
        }
        t.state.suspendedActivity = suspended;
        for (const x of t.pathToRoot(suspended)) {
          t.s(x).isActive = false;
          t.s(x).isSuspended = true;
        }
        t.state.currentActivity = t.root;
        return 'exit';
      }
      case 'abandon':
        t.s(cur).isActive = false;
        return undefined;
      case 'abandonAll':
        for (const x of t.pathToRoot(cur)) t.s(x).isActive = false;
        t.state.currentActivity = t.root;
        return 'exit';
      default:
        return fail('TB.2.3-7', `Unknown termination request "${req}"`);
    }
  }

  /** TB.2.1 Sequencing Exit Action Rules Subprocess: the outermost ancestor whose exit rule fires is exited. */
  private exitActionRules(): void {
    const t = this.t;
    const cur = this.current as string;
    const ancestors = t.pathToRoot(cur).slice(1).reverse(); // root … parent
    const target = ancestors.find((x) => t.rulesCheck(x, t.a(x).exitConditionRules, ['exit']));
    if (target !== undefined) {
      this.terminateDescendentAttempts(target);
      this.endAttempt(target);
      t.state.currentActivity = target;
    }
  }

  /** TB.2.2 Sequencing Post Condition Rules Subprocess. */
  private postConditionRules(): { termination?: TerminationRequest; sequencing?: SequencingRequest } {
    const t = this.t;
    const cur = this.current as string;
    if (t.s(cur).isSuspended) return {};
    const action = t.rulesCheck(cur, t.a(cur).postConditionRules, ['exitParent', 'exitAll', 'retry', 'retryAll', 'continue', 'previous']);
    switch (action) {
      case 'retry':
      case 'continue':
      case 'previous':
        return { sequencing: action };
      case 'exitParent':
      case 'exitAll':
        return { termination: action };
      case 'retryAll':
        return { termination: 'exitAll', sequencing: 'retry' };
      default:
        return {};
    }
  }

  /** UP.3 Terminate Descendent Attempts Process. */
  terminateDescendentAttempts(activity: string): void {
    const t = this.t;
    const cur = this.current;
    if (cur === undefined) return;
    const common = t.commonAncestor(cur, activity);
    for (const x of t.pathToRoot(cur)) {
      if (x === common) break;
      if (x === cur) continue;
      this.endAttempt(x);
    }
  }

  /** UP.4 End Attempt Process. */
  endAttempt(id: string): void {
    const t = this.t;
    const a = t.a(id);
    const s = t.s(id);
    if (t.isLeaf(id)) {
      if (a.tracked && !s.isSuspended) {
        const local = s.objectives[objectiveKey(t.primaryObjective(id))];
        // A status the SCO reported, even "unknown", is the content's: the defaults fill in only what it never set.
        if (!a.completionSetByContent && !s.attemptProgressStatus && !s.completionReported) {
          // Completion the SCO reported (even "unknown") is what the maps wrote; the default stays with the attempt.
          if (local?.completionKnown !== undefined) {
            s.attemptProgressStatus = true;
            s.attemptCompletionStatus = true;
          } else t.setCompletion(id, true, true);
        }
        // The default looks at the objective as read (a shared objective that is already known is left alone).
        if (!a.objectiveSetByContent && !t.primaryStatus(id).progressStatus && !s.successReported && !t.primaryObjective(id).satisfiedByMeasure) t.setPrimary(id, { progressStatus: true, satisfiedStatus: true });
      }
    } else {
      s.isSuspended = t.children(id).some((c) => t.s(c).isSuspended);
    }
    s.isActive = false;
    t.overallRollup(id);
  }

  // ================= SB.2.12 Sequencing Request Process (sequencing-requests.ts) =================
  sequencingRequest(req: SequencingRequest, target?: string): SequencingOutcome {
    const requests = new SequencingRequests(this.t, this);
    try {
      return requests.run(req, target);
    } finally {
      this.pendingRetry = requests.retried;
    }
  }

  /**
   * The targets (of those given) a choice request (SB.2.9, then the DB.1.1 checks) would deliver from the tree as it
   * is, tried one after the other without changing it: the valid requests' lookahead, after the termination a choice
   * begins with has run once.
   */
  deliverableChoices(targets: string[]): string[] {
    const requests = new SequencingRequests(this.t, this, true);
    // The ancestors' UP.5 checks are the same for every target: worked out once.
    this.t.checks = new Map();
    try {
      return targets.filter((target) => this.deliversBy(requests, 'choice', target));
    } finally {
      this.t.checks = undefined;
    }
  }

  /** The sequencing request would deliver an activity that passes the DB.1.1 checks (a lookahead: the tree may change). */
  delivers(req: SequencingRequest): boolean {
    return this.deliversBy(new SequencingRequests(this.t, this), req);
  }

  /**
   * The sequencing request would deliver an activity that passes the DB.1.1 checks, or end the session (continue past
   * the last activity, an exit at the root): where the page's Continue leads. Tried without changing the tree.
   */
  leadsSomewhere(req: SequencingRequest): boolean {
    return this.deliversBy(new SequencingRequests(this.t, this, true), req, undefined, true);
  }

  private deliversBy(requests: SequencingRequests, req: SequencingRequest, target?: string, orEnds = false): boolean {
    try {
      const outcome = requests.run(req, target);
      if (orEnds && outcome.endSession) return true;
      if (outcome.deliver === undefined) return false;
      this.deliveryRequest(outcome.deliver);
      return true;
    } catch (e) {
      if (e instanceof SequencingException) return false;
      throw e;
    }
  }

  /** Activity a retry request began a new attempt on (DB.2 resets its descendants). */
  pendingRetry?: string;

  // ================= DB.1.1 Delivery Request Process =================
  deliveryRequest(activity: string): void {
    const t = this.t;
    if (!t.isLeaf(activity)) fail('DB.1.1-1', `"${activity}" is not a leaf activity`);
    for (const x of t.pathToRoot(activity).reverse()) {
      if (t.checkActivity(x)) fail('DB.1.1-3', `"${x}" is disabled or has reached a limit condition`);
    }
  }

  // ================= DB.2 Content Delivery Environment Process =================
  contentDeliveryEnvironment(activity: string): void {
    const t = this.t;
    const cur = this.current;
    if (cur !== undefined && t.s(cur).isActive) fail('DB.2-1', 'The current activity is still active');
    if (t.state.suspendedActivity !== activity) this.clearSuspendedActivity(activity);
    this.terminateDescendentAttempts(activity);
    const retried = this.pendingRetry;
    this.pendingRetry = undefined;
    for (const x of t.pathToRoot(activity).reverse()) {
      const s = t.s(x);
      if (s.isActive) continue;
      if (t.a(x).tracked) {
        if (s.isSuspended) s.isSuspended = false;
        else {
          s.attemptCount += 1;
          if (s.attemptCount === 1) s.activityProgressStatus = true;
          t.initializeAttempt(x);
          const parent = t.parent(x);
          s.parentAttempt = parent === undefined ? undefined : t.s(parent).attemptCount;
          if (s.attemptCount > 1 && !t.isLeaf(x)) this.newClusterAttempt(x, x === retried);
        }
      }
      s.isActive = true;
    }
    t.state.currentActivity = activity;
    t.state.suspendedActivity = undefined;
  }

  /**
   * A cluster begins a new attempt (its children for it were drawn when the previous one ended: prepareNextAttempts);
   * on a retry the descendants' objective and attempt progress information of the earlier attempt is dropped, so that the new
   * attempt rolls up only what is learned in it.
   */
  private newClusterAttempt(id: string, retried: boolean): void {
    const t = this.t;
    if (!retried) return;
    const walk = (x: string): void => {
      for (const c of t.a(x).children) {
        t.initializeAttempt(c);
        walk(c);
      }
    };
    walk(id);
  }

  /** DB.2.1 Clear Suspended Activity Subprocess. */
  private clearSuspendedActivity(activity: string): void {
    const t = this.t;
    const susp = t.state.suspendedActivity;
    if (susp === undefined) return;
    const common = t.commonAncestor(activity, susp);
    for (const x of t.pathToRoot(susp)) {
      if (t.isLeaf(x)) t.s(x).isSuspended = false;
      else if (!t.children(x).some((c) => t.s(c).isSuspended)) t.s(x).isSuspended = false;
      if (x === common) break;
    }
    t.state.suspendedActivity = undefined;
  }

  // ================= SR.1 / SR.2 =================
  /**
   * Selection and randomization "onEachNewAttempt" (SR.1, SR.2): every cluster that has no attempt in progress (not
   * active, not suspended) gets its children for its next attempt, once per attempt. They are drawn here, as soon as an
   * attempt has ended (and at the start for the first), not when the next attempt begins: flow, choice, their
   * lookahead and the table of contents must see the order the attempt will have before it begins (SN book 4.7 leaves
   * the moment open, as long as it is consistent). The player runs this after the termination of each request and
   * at its end. A state stored before this existed has no `orderFor`: its clusters are drawn now.
   */
  prepareNextAttempts(): void {
    const t = this.t;
    for (const id of drawnEachAttempt(t.def)) {
      const s = t.s(id);
      if (s.isActive || s.isSuspended || s.orderFor === s.attemptCount + 1) continue;
      this.selectChildren(id, 'onEachNewAttempt');
      this.randomizeChildren(id, 'onEachNewAttempt');
      s.orderFor = s.attemptCount + 1;
    }
  }

  /** SR.1 Select Children Process. */
  selectChildren(id: string, when: 'once' | 'onEachNewAttempt'): void {
    const t = this.t;
    const a = t.a(id);
    const s = t.s(id);
    if (t.isLeaf(id) || s.isActive || s.isSuspended) return;
    if (a.selectionTiming !== when || a.selectCount === undefined) return;
    if (when === 'once' && s.activityProgressStatus) return;
    if (a.selectCount >= a.children.length) {
      s.availableChildren = [...a.children];
      return;
    }
    const chosen = new Set<string>();
    while (chosen.size < a.selectCount) chosen.add(a.children[Math.floor(t.random() * a.children.length)]);
    s.availableChildren = a.children.filter((c) => chosen.has(c));
  }

  /** SR.2 Randomize Children Process. */
  randomizeChildren(id: string, when: 'once' | 'onEachNewAttempt'): void {
    const t = this.t;
    const a = t.a(id);
    const s = t.s(id);
    if (t.isLeaf(id) || s.isActive || s.isSuspended) return;
    if (a.randomizationTiming !== when || !a.reorderChildren) return;
    if (when === 'once' && s.activityProgressStatus) return;
    const list = [...s.availableChildren];
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(t.random() * (i + 1));
      [list[i], list[j]] = [list[j], list[i]];
    }
    s.availableChildren = list;
  }
}
