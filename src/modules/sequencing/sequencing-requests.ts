/**
 * The sequencing request behaviours of the SN book (SB.2.x): start, resume all, continue, previous, choice (with
 * constrained choice), jump, retry, exit, and the flow subprocesses they share. Each returns the activity to deliver
 * or the end of the sequencing session, or throws a SequencingException with the book's code.
 */
import type { ActivityTree } from './activity-tree';
import { fail } from './sequencing-exception';
import { emptyRecord } from '../../platform/records';

export type SequencingRequest = 'start' | 'resumeAll' | 'continue' | 'previous' | 'choice' | 'jump' | 'exit' | 'retry';

/** Result of the sequencing request process: an activity to deliver, or the end of the sequencing session. */
export interface SequencingOutcome {
  deliver?: string;
  endSession?: boolean;
}

type Direction = 'forward' | 'backward';

/** The attempt-ending processes (UP.3, UP.4) a choice needs when nothing can be delivered (SB.2.9-9). */
interface AttemptEnding {
  terminateDescendentAttempts(activity: string): void;
  endAttempt(activity: string): void;
}

export class SequencingRequests {
  /** The activity a retry request begins a new attempt on. */
  retried?: string;

  /**
   * `lookahead`: the request is only tried (the valid requests), and the same object tries many: the tree must not
   * change (a choice that cannot deliver ends no attempt, SB.2.9-9), so the preorder is worked out once.
   */
  constructor(
    private readonly t: ActivityTree,
    private readonly attempts: AttemptEnding,
    private readonly lookahead = false,
  ) {}

  /** Preorder positions of the available activities ("forward of" comparisons of a choice). */
  private preorderIndex?: Map<string, number>;
  private position(id: string): number {
    this.preorderIndex ??= new Map(this.t.preorder().map((x, i) => [x, i]));
    return this.preorderIndex.get(id) ?? -1;
  }

  private get current(): string | undefined {
    return this.t.state.currentActivity;
  }

  // ================= SB.2.12 Sequencing Request Process =================
  run(req: SequencingRequest, target?: string): SequencingOutcome {
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
        return this.flowRequest('forward');
      case 'previous':
        return this.flowRequest('backward');
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

  /** SB.2.7 Continue / SB.2.8 Previous Sequencing Request Process: flow from the current activity. */
  private flowRequest(direction: Direction): SequencingOutcome {
    const t = this.t;
    const id = direction === 'forward' ? 'SB.2.7' : 'SB.2.8';
    const cur = this.current;
    if (cur === undefined) return fail(`${id}-1`, 'The sequencing session has not begun');
    const p = t.parent(cur);
    if (p !== undefined && !t.a(p).controlMode.flow) return fail(`${id}-2`, 'Flow is not allowed');
    const r = this.flow(cur, direction, false);
    if (r.endSession && direction === 'forward') return r; // continuing past the last activity ends the session
    if (!r.deliverable) return fail(r.exception ?? `${id}-2`, `There is no ${direction === 'forward' ? 'next' : 'previous'} activity to deliver`);
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
      this.retried = cur;
      // objectivesGlobalToSystem="false": the shared objectives belong to the attempt on the course, and a retry of
      // the root begins a new one (ADL test case RU-13d; see docs/sequencing.md).
      if (cur === t.root && t.def.objectivesGlobalToSystem === false) t.state.globalObjectives = emptyRecord();
      const r = this.flow(cur, 'forward', true);
      if (!r.deliverable) return fail('SB.2.10-3', 'Nothing in the activity can be delivered');
      return { deliver: r.activity };
    }
    this.retried = cur;
    return { deliver: cur };
  }

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
    if (!this.lookahead) this.preorderIndex = undefined; // the tree may have changed since the last request
    const forwardOf = (x: string, y: string): boolean => this.position(x) > this.position(y);

    if (cur === undefined || cur === target) {
      // Case 1 (target is the current activity) needs no checks; with no current activity, case 3 from the root.
      if (cur === undefined) this.checkPreventActivation(common, target);
    } else if (t.areSiblings(cur, target)) {
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
        if (constrained === undefined && x !== cur && t.a(x).constrainChoice) constrained = x; // the current activity's own setting constrains nothing
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
      if (this.lookahead) return fail('SB.2.9-9', `Nothing inside "${target}" can be delivered`);
      this.attempts.terminateDescendentAttempts(common);
      this.attempts.endAttempt(common);
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
}
