/**
 * The behaviours of the SN book's Overall Sequencing Process (OP.1): navigation request (NB.2.1), termination
 * request (TB.2.x, UP.3, UP.4), sequencing request (SB.2.x), delivery request (DB.1.1, DB.2, DB.2.1) and
 * selection/randomization (SR.1, SR.2). Pure functions of an ActivityTree; errors carry the book's exception codes.
 */
import { objectiveKey, type ActivityTree } from './activity-tree';

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
type SequencingRequest = 'start' | 'resumeAll' | 'continue' | 'previous' | 'choice' | 'jump' | 'exit' | 'retry';

/** A sequencing exception: the book's code (e.g. "SB.2.9-4") and what it means. */
export class SequencingException extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SequencingException';
  }
}

const fail = (code: string, message: string): never => {
  throw new SequencingException(code, message);
};

/** Result of the sequencing request process: an activity to deliver, or the end of the sequencing session. */
interface SequencingOutcome {
  deliver?: string;
  endSession?: boolean;
}

type Direction = 'forward' | 'backward';

export class SequencingProcesses {
  constructor(private readonly t: ActivityTree) {}

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
        const target = req.target;
        if (target === undefined || !t.has(target)) return fail('NB.2.1-11', `The choice target "${target ?? ''}" is not in the activity tree`);
        const p = t.parent(target);
        if (p !== undefined && !t.a(p).controlMode.choice) {
          return fail('NB.2.1-10', `Choice is not allowed among the children of "${p}"`);
        }
        if (cur === undefined) return { sequencing: 'choice', target };
        if (!this.siblings(cur, target)) {
          const common = t.commonAncestor(cur, target);
          for (const x of t.pathToRoot(cur)) {
            if (x === common) break;
            if (t.s(x).isActive && !t.a(x).controlMode.choiceExit) {
              return fail('NB.2.1-8', `Choice would exit "${x}", whose choiceExit is false`);
            }
          }
        }
        return { ...(t.s(cur).isActive ? { termination: 'exit' as const } : {}), sequencing: 'choice', target };
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

  private siblings(x: string, y: string): boolean {
    return x !== y && this.t.parent(x) !== undefined && this.t.parent(x) === this.t.parent(y);
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
        if (t.s(cur).isActive) this.endAttempt(cur);
        this.terminateDescendentAttempts(t.root);
        this.endAttempt(t.root);
        t.state.currentActivity = t.root;
        return 'exit';
      }
      case 'suspendAll': {
        let suspended: string;
        if (t.s(cur).isActive || t.s(cur).isSuspended) {
          t.overallRollup(cur);
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

  // ================= SB.2.12 Sequencing Request Process =================
  sequencingRequest(req: SequencingRequest, target?: string): SequencingOutcome {
    switch (req) {
      case 'start':
        return this.start();
      case 'resumeAll':
        return this.resumeAll();
      case 'exit':
        return this.exit();
      case 'retry':
        return this.retry();
      case 'continue':
        return this.continueRequest();
      case 'previous':
        return this.previous();
      case 'choice':
        return this.choice(target as string);
      case 'jump':
        return this.jump(target as string);
      default:
        return fail('SB.2.12-1', `Unknown sequencing request "${String(req)}"`);
    }
  }

  /** SB.2.5 Start Sequencing Request Process. */
  private start(): SequencingOutcome {
    const t = this.t;
    if (this.current !== undefined) return fail('SB.2.5-1', 'The sequencing session has already begun');
    if (t.isLeaf(t.root)) return { deliver: t.root };
    const r = this.flow(t.root, 'forward', true);
    if (r.endSession) return r;
    if (!r.deliverable) return fail(r.exception ?? 'SB.2.5-3', 'No activity can be delivered at the start of the course');
    return { deliver: r.activity };
  }

  /** SB.2.6 Resume All Sequencing Request Process. */
  private resumeAll(): SequencingOutcome {
    const t = this.t;
    if (this.current !== undefined) return fail('SB.2.6-1', 'The sequencing session has already begun');
    if (t.state.suspendedActivity === undefined) return fail('SB.2.6-2', 'There is no suspended activity');
    return { deliver: t.state.suspendedActivity };
  }

  /** SB.2.7 Continue Sequencing Request Process. */
  private continueRequest(): SequencingOutcome {
    const t = this.t;
    const cur = this.current;
    if (cur === undefined) return fail('SB.2.7-1', 'The sequencing session has not begun');
    const p = t.parent(cur);
    if (p !== undefined && !t.a(p).controlMode.flow) return fail('SB.2.7-2', 'Flow is not allowed');
    const r = this.flow(cur, 'forward', false);
    if (r.endSession) return r;
    if (!r.deliverable) return fail(r.exception ?? 'SB.2.7-2', 'There is no next activity to deliver');
    return { deliver: r.activity };
  }

  /** SB.2.8 Previous Sequencing Request Process. */
  private previous(): SequencingOutcome {
    const t = this.t;
    const cur = this.current;
    if (cur === undefined) return fail('SB.2.8-1', 'The sequencing session has not begun');
    const p = t.parent(cur);
    if (p !== undefined && !t.a(p).controlMode.flow) return fail('SB.2.8-2', 'Flow is not allowed');
    const r = this.flow(cur, 'backward', false);
    if (!r.deliverable) return fail(r.exception ?? 'SB.2.8-2', 'There is no previous activity to deliver');
    return { deliver: r.activity };
  }

  /** SB.2.10 Retry Sequencing Request Process. */
  private retry(): SequencingOutcome {
    const t = this.t;
    const cur = this.current;
    if (cur === undefined) return fail('SB.2.10-1', 'The sequencing session has not begun');
    if (t.s(cur).isActive || t.s(cur).isSuspended) return fail('SB.2.10-2', 'The current activity is still active or suspended');
    if (!t.isLeaf(cur)) {
      // A new attempt on the cluster: its descendants' prior attempt information is not carried into it.
      this.pendingRetry = cur;
      const r = this.flow(cur, 'forward', true);
      if (!r.deliverable) return fail('SB.2.10-3', 'Nothing in the activity can be delivered');
      return { deliver: r.activity };
    }
    this.pendingRetry = cur;
    return { deliver: cur };
  }
  /** Activity a retry request began a new attempt on (DB.2 resets its descendants). */
  pendingRetry?: string;

  /** SB.2.11 Exit Sequencing Request Process. */
  private exit(): SequencingOutcome {
    const t = this.t;
    const cur = this.current;
    if (cur === undefined) return fail('SB.2.11-1', 'The sequencing session has not begun');
    if (t.s(cur).isActive) return fail('SB.2.11-2', 'The current activity is still active');
    if (cur === t.root) return { endSession: true };
    return {};
  }

  /** SB.2.13 Jump Sequencing Request Process (4th edition). */
  private jump(target: string): SequencingOutcome {
    if (this.current === undefined) return fail('SB.2.13-1', 'The sequencing session has not begun');
    return { deliver: target };
  }

  // ---- SB.2.1 Flow Tree Traversal Subprocess ----
  private flowTreeTraversal(
    activity: string,
    direction: Direction,
    considerChildren: boolean,
    previousDirection?: Direction,
  ): { activity?: string; direction?: Direction; endSession?: boolean; exception?: string } {
    const t = this.t;
    let dir = direction;
    let act = activity;
    let reversed = false;
    const p0 = t.parent(act);
    if (previousDirection === 'backward' && p0 !== undefined) {
      const sib = t.children(p0);
      if (sib[sib.length - 1] === act) {
        dir = 'backward';
        act = sib[0];
        reversed = true;
      }
    }
    if (dir === 'forward') {
      if (this.isLastInTree(act) || (act === t.root && !considerChildren)) {
        return { endSession: true, exception: 'SB.2.1-1' };
      }
      if (t.isLeaf(act) || !considerChildren) {
        const p = t.parent(act) as string;
        const sib = t.children(p);
        const i = sib.indexOf(act);
        if (i === sib.length - 1 || i < 0) return this.flowTreeTraversal(p, 'forward', false);
        return { activity: sib[i + 1], direction: 'forward' };
      }
      const kids = t.children(act);
      if (kids.length) return { activity: kids[0], direction: 'forward' };
      return { exception: 'SB.2.1-2' };
    }
    if (act === t.root) return { exception: 'SB.2.1-3' };
    if (t.isLeaf(act) || !considerChildren) {
      const p = t.parent(act) as string;
      if (!reversed && t.a(p).controlMode.forwardOnly) return { exception: 'SB.2.1-4' };
      const sib = t.children(p);
      const i = sib.indexOf(act);
      if (i <= 0) return this.flowTreeTraversal(p, 'backward', false);
      return { activity: sib[i - 1], direction: 'backward' };
    }
    const kids = t.children(act);
    if (!kids.length) return { exception: 'SB.2.1-2' };
    if (t.a(act).controlMode.forwardOnly) return { activity: kids[0], direction: 'forward' };
    return { activity: kids[kids.length - 1], direction: 'backward' };
  }

  /** The activity is the last one of a forward preorder traversal of the (available) tree. */
  private isLastInTree(id: string): boolean {
    const t = this.t;
    if (!t.isLeaf(id) && t.children(id).length) return false;
    for (let x = id, p = t.parent(id); p !== undefined; x = p, p = t.parent(p)) {
      const sib = t.children(p);
      if (sib[sib.length - 1] !== x) return false;
    }
    return true;
  }

  // ---- SB.2.2 Flow Activity Traversal Subprocess ----
  private flowActivityTraversal(
    activity: string,
    direction: Direction,
    previousDirection?: Direction,
  ): { deliverable: boolean; activity: string; endSession?: boolean; exception?: string } {
    const t = this.t;
    const p = t.parent(activity);
    if (p !== undefined && !t.a(p).controlMode.flow) return { deliverable: false, activity, exception: 'SB.2.2-1' };
    if (t.preRule(activity, ['skip'])) {
      const next = this.flowTreeTraversal(activity, direction, false, previousDirection);
      if (next.activity === undefined) return { deliverable: false, activity, endSession: next.endSession, exception: next.exception };
      if (previousDirection === 'backward' && next.direction === 'backward') return this.flowActivityTraversal(next.activity, next.direction);
      return this.flowActivityTraversal(next.activity, direction, previousDirection);
    }
    if (t.checkActivity(activity)) return { deliverable: false, activity, exception: 'SB.2.2-2' };
    if (!t.isLeaf(activity)) {
      const next = this.flowTreeTraversal(activity, direction, true);
      if (next.activity === undefined) return { deliverable: false, activity, endSession: next.endSession, exception: next.exception };
      if (direction === 'backward' && next.direction === 'forward') return this.flowActivityTraversal(next.activity, 'forward', 'backward');
      return this.flowActivityTraversal(next.activity, direction);
    }
    return { deliverable: true, activity };
  }

  // ---- SB.2.3 Flow Subprocess ----
  private flow(activity: string, direction: Direction, considerChildren: boolean): { deliverable: boolean; activity: string; endSession?: boolean; exception?: string } {
    const next = this.flowTreeTraversal(activity, direction, considerChildren);
    if (next.activity === undefined) return { deliverable: false, activity, endSession: next.endSession, exception: next.exception };
    return this.flowActivityTraversal(next.activity, next.direction ?? direction);
  }

  // ================= SB.2.9 Choice Sequencing Request Process =================
  private choice(target: string): SequencingOutcome {
    const t = this.t;
    if (!target || !t.has(target)) return fail('SB.2.9-1', `"${target}" is not in the activity tree`);
    const path = t.pathToRoot(target).reverse(); // root … target
    for (const x of path) {
      if (x !== t.root && !t.isAvailable(x)) return fail('SB.2.9-2', `"${x}" is not available (selection)`);
      if (t.preRule(x, ['hiddenFromChoice'])) return fail('SB.2.9-3', `"${x}" is hidden from choice`);
    }
    const tp = t.parent(target);
    if (tp !== undefined && !t.a(tp).controlMode.choice) return fail('SB.2.9-4', `Choice is not allowed among the children of "${tp}"`);
    const cur = this.current;
    const common = cur !== undefined ? t.commonAncestor(cur, target) : t.root;
    const order = t.preorder();
    const forwardOf = (x: string, y: string): boolean => order.indexOf(x) > order.indexOf(y);

    if (cur === undefined || cur === target) {
      // Case 1 (target is the current activity) needs no checks; with no current activity, case 3 from the root.
      if (cur === undefined) this.checkPreventActivation(common, target);
    } else if (this.siblings(cur, target)) {
      // Case 2: sibling of the current activity.
      const sib = t.children(t.parent(cur) as string);
      const i = sib.indexOf(cur);
      const j = sib.indexOf(target);
      const dir: Direction = j > i ? 'forward' : 'backward';
      const list = dir === 'forward' ? sib.slice(i, j) : sib.slice(j + 1, i + 1).reverse();
      for (const x of list) this.choiceActivityTraversal(x, dir);
    } else if (cur === common) {
      // Case 3: target is a descendant of the current activity.
      this.checkPreventActivation(common, target);
    } else if (target === common) {
      // Case 4: target is an ancestor of the current activity.
      for (const x of t.pathToRoot(cur)) {
        if (x === target) break;
        if (!t.a(x).controlMode.choiceExit) return fail('SB.2.9-7', `Choice would exit "${x}", whose choiceExit is false`);
      }
    } else {
      // Case 5: target is forward or backward of the current activity in another branch.
      let constrained: string | undefined;
      for (const x of t.pathToRoot(cur)) {
        if (x === common) break;
        if (t.s(x).isActive && !t.a(x).controlMode.choiceExit) return fail('SB.2.9-7', `Choice would exit "${x}", whose choiceExit is false`);
        if (constrained === undefined && t.a(x).constrainChoice) constrained = x;
      }
      if (constrained !== undefined) {
        const dir: Direction = forwardOf(target, constrained) ? 'forward' : 'backward';
        const consider = this.choiceFlow(constrained, dir); // SB.2.9.2
        if (target !== consider && target !== constrained && !t.isAncestorOf(consider, target) && !t.isAncestorOf(constrained, target)) {
          return fail('SB.2.9-8', `"${target}" is outside what constrained choice allows from "${constrained}"`);
        }
      }
      const down = t.pathToRoot(target).reverse();
      const fromCommon = down.slice(down.indexOf(common));
      if (forwardOf(target, cur)) {
        for (const x of fromCommon) {
          if (x !== common && x !== target) this.choiceActivityTraversal(x, 'forward');
          if (x !== common && x !== target && !t.s(x).isActive && t.a(x).preventActivation) {
            return fail('SB.2.9-6', `"${x}" prevents activation of its descendants by choice`);
          }
        }
      } else {
        this.checkPreventActivation(common, target);
      }
    }

    if (t.isLeaf(target)) return { deliver: target };
    const r = this.flow(target, 'forward', true);
    if (!r.deliverable) {
      this.terminateDescendentAttempts(common);
      this.endAttempt(common);
      t.state.currentActivity = target;
      return fail('SB.2.9-9', `Nothing inside "${target}" can be delivered`);
    }
    return { deliver: r.activity };
  }

  /** preventActivation: inactive activities between the common ancestor and the target may not be activated by choice. */
  private checkPreventActivation(common: string, target: string): void {
    const t = this.t;
    const down = t.pathToRoot(target).reverse();
    for (const x of down.slice(down.indexOf(common) + 1)) {
      if (x === target) break;
      if (!t.s(x).isActive && t.a(x).preventActivation) fail('SB.2.9-6', `"${x}" prevents activation of its descendants by choice`);
    }
  }

  /** SB.2.9.1 Choice Activity Traversal Subprocess. */
  private choiceActivityTraversal(activity: string, direction: Direction): void {
    const t = this.t;
    if (direction === 'forward') {
      if (t.preRule(activity, ['stopForwardTraversal'])) fail('SB.2.9.1-1', `"${activity}" stops forward traversal`);
      return;
    }
    const p = t.parent(activity);
    if (p === undefined) fail('SB.2.9.1-3', 'The root has no parent');
    else if (t.a(p).controlMode.forwardOnly) fail('SB.2.9.1-2', `Backward traversal is not allowed within "${p}" (forwardOnly)`);
  }

  /** SB.2.9.2 Choice Flow Subprocess with SB.2.9.3 Choice Flow Tree Traversal Subprocess. */
  private choiceFlow(activity: string, direction: Direction): string {
    return this.choiceFlowTreeTraversal(activity, direction) ?? activity;
  }
  private choiceFlowTreeTraversal(activity: string, direction: Direction): string | undefined {
    const t = this.t;
    const p = t.parent(activity);
    if (p === undefined) return undefined;
    const sib = t.children(p);
    const i = sib.indexOf(activity);
    if (direction === 'forward') {
      if (this.isLastInTree(activity)) return undefined;
      if (i === sib.length - 1) return this.choiceFlowTreeTraversal(p, 'forward');
      return sib[i + 1];
    }
    if (i === 0) return this.choiceFlowTreeTraversal(p, 'backward');
    return sib[i - 1];
  }

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
   * A cluster begins a new attempt: its children are selected/reordered again (onEachNewAttempt), and on a retry the
   * descendants' objective and attempt progress information of the earlier attempt is dropped, so that the new
   * attempt rolls up only what is learned in it.
   */
  private newClusterAttempt(id: string, retried: boolean): void {
    const t = this.t;
    this.selectChildren(id, 'onEachNewAttempt');
    this.randomizeChildren(id, 'onEachNewAttempt');
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
