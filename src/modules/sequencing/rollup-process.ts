/**
 * The rollup processes of the SN book (RB.1.x): measure and completion measure rollup with 4th edition weights,
 * objective rollup by measure or by rollup rules (with the default rules), activity progress rollup, rollup rule
 * checks with requiredFor* considerations, and the overall rollup that also refreshes the readers of shared
 * objectives it wrote.
 */
import type { ActivityTree, Tri } from './activity-tree';
import type { RollupAction, RollupRule } from './sequencing-definition';

/** A child seen by its parent as it is (asSeenBy when its attempt is current). */
const CURRENT_VIEW = Object.freeze({ objective: false, progress: false });

/** The rules of each rule set by action (rulesFor). */
const RULES_BY_ACTION = new WeakMap<readonly RollupRule[], Partial<Record<RollupAction, readonly RollupRule[]>>>();

/**
 * The rules of `rules` for `action`; when the activity has no rule for the satisfaction (resp. completion) actions,
 * the default rollup rules: all children satisfied → satisfied; all children with a known status → not satisfied;
 * likewise completion.
 */
function rulesOf(rules: readonly RollupRule[], action: RollupAction): readonly RollupRule[] {
  const satisfaction = action === 'satisfied' || action === 'notSatisfied';
  const family = rules.filter((r) => (satisfaction ? r.action === 'satisfied' || r.action === 'notSatisfied' : r.action === 'completed' || r.action === 'incomplete'));
  if (family.length) return family.filter((r) => r.action === action);
  const condition = action === 'satisfied' ? 'satisfied' : action === 'notSatisfied' ? 'objectiveStatusKnown' : action === 'completed' ? 'completed' : 'activityProgressKnown';
  return [{ childActivitySet: 'all', minimumCount: 0, minimumPercent: 0, combination: 'any', conditions: [{ condition, not: false }], action }];
}

export class RollupProcess {
  constructor(private readonly t: ActivityTree) {}

  /** Evaluates `fn` with the child as its parent's current attempt sees it (useCurrentAttempt*Info). */
  private asSeenBy<T>(parent: string, child: string, fn: () => T): T {
    const cm = this.t.a(parent).controlMode;
    const c = this.t.s(child);
    const stale = c.attemptCount > 0 && c.parentAttempt !== undefined && c.parentAttempt !== this.t.s(parent).attemptCount;
    const saved = this.t.staleView;
    // Most children are seen as they are: one shared view, no object per check.
    this.t.staleView = stale ? { objective: cm.useCurrentAttemptObjectiveInfo, progress: cm.useCurrentAttemptProgressInfo } : CURRENT_VIEW;
    try {
      return fn();
    } finally {
      this.t.staleView = saved;
    }
  }

  /**
   * RB.1.5 Overall Rollup Process: from the activity up to the root. Activities elsewhere in the tree that read a
   * global objective this rollup wrote are rolled up too, so their status reflects the shared objective at once.
   */
  overallRollup(id: string): void {
    this.rollupPath(id);
    if (this.t.rollingUp) return;
    this.t.rollingUp = true;
    try {
      for (let pass = 0; pass < 5 && this.t.changedGlobals.size; pass++) {
        const changed = new Set(this.t.changedGlobals);
        this.t.changedGlobals.clear();
        for (const x of this.t.def.order) {
          if (this.t.a(x).objectives.some((o) => o.maps.some((m) => changed.has(m.targetObjectiveID)))) this.rollupPath(x);
        }
      }
    } finally {
      this.t.changedGlobals.clear();
      this.t.rollingUp = false;
    }
  }

  private rollupPath(id: string): void {
    for (const x of this.t.pathToRoot(id)) {
      if (!this.t.a(x).tracked) continue; // an untracked activity has no tracking status to roll up into
      if (!this.t.isLeaf(x)) {
        this.measureRollup(x);
        this.completionMeasureRollup(x);
      }
      this.objectiveRollup(x);
      this.progressRollup(x);
    }
  }

  private trackedChildren(id: string): string[] {
    return this.t.children(id).filter((c) => this.t.a(c).tracked);
  }

  /**
   * The weighted average the measure rollups compute over the tracked children that contribute: every contributing
   * child's weight counts, known values are summed; undefined when no child has a known value.
   */
  private weightedAverage(id: string, contributes: (c: string) => boolean, weight: (c: string) => number, value: (c: string) => number | undefined): number | undefined {
    let total = 0;
    let counted = 0;
    let valid = false;
    for (const c of this.trackedChildren(id)) {
      if (!contributes(c)) continue;
      counted += weight(c);
      const v = this.asSeenBy(id, c, () => value(c));
      if (v !== undefined) {
        total += v * weight(c);
        valid = true;
      }
    }
    return valid && counted > 0 ? total / counted : undefined;
  }

  /** RB.1.1 Measure Rollup Process (objectiveMeasureWeight; 4th edition). */
  private measureRollup(id: string): void {
    const t = this.t;
    const measure = this.weightedAverage(
      id,
      (c) => t.a(c).rollupObjectiveSatisfied,
      (c) => t.a(c).objectiveMeasureWeight,
      (c) => {
        const p = t.primaryStatus(c);
        return p.measureStatus ? p.normalizedMeasure : undefined;
      },
    );
    if (measure === undefined) t.setPrimary(id, { measureStatus: false });
    else t.setPrimary(id, { measureStatus: true, normalizedMeasure: measure });
  }

  /** RB.1.1b Completion Measure Rollup Process (progressWeight; 4th edition). */
  private completionMeasureRollup(id: string): void {
    const t = this.t;
    const amount = this.weightedAverage(
      id,
      (c) => t.a(c).rollupProgressCompletion,
      (c) => t.a(c).progressWeight,
      (c) => {
        const p = t.progressAmount(c);
        return p.known ? p.amount : undefined;
      },
    );
    const s = t.s(id);
    s.attemptCompletionAmountStatus = amount !== undefined;
    if (amount !== undefined) s.attemptCompletionAmount = amount;
  }

  /** RB.1.2 Objective Rollup Process: by measure (RB.1.2a) when the primary objective is satisfied by measure, else by rules (RB.1.2b). */
  private objectiveRollup(id: string): void {
    const primary = this.t.primaryObjective(id);
    if (primary.satisfiedByMeasure) {
      // RB.1.2a Objective Rollup Using Measure Process
      const p = this.t.primaryStatus(id);
      if (!p.measureStatus) {
        if (!this.t.isLeaf(id)) this.t.setPrimary(id, { progressStatus: false });
      } else if (!this.t.s(id).isActive || this.t.a(id).measureSatisfactionIfActive) {
        this.t.setPrimary(id, { progressStatus: true, satisfiedStatus: p.normalizedMeasure >= primary.minNormalizedMeasure });
      } else if (!this.t.isLeaf(id)) this.t.setPrimary(id, { progressStatus: false });
      return;
    }
    if (this.t.isLeaf(id)) return;
    // RB.1.2b Objective Rollup Using Rules Process (default rules when the activity defines none for an action)
    if (this.rollupRuleCheck(id, 'notSatisfied')) this.t.setPrimary(id, { progressStatus: true, satisfiedStatus: false });
    if (this.rollupRuleCheck(id, 'satisfied')) this.t.setPrimary(id, { progressStatus: true, satisfiedStatus: true });
  }

  /** RB.1.3 Activity Progress Rollup Process: by measure (RB.1.3a, 4th edition completedByMeasure) or by rules. */
  private progressRollup(id: string): void {
    const a = this.t.a(id);
    if (a.completedByMeasure) {
      const amt = this.t.progressAmount(id);
      if (amt.known) this.t.setCompletion(id, true, amt.amount >= a.minProgressMeasure);
      else if (!this.t.isLeaf(id)) this.t.s(id).attemptProgressStatus = false;
      return;
    }
    if (this.t.isLeaf(id)) return;
    if (this.rollupRuleCheck(id, 'incomplete')) this.t.setCompletion(id, true, false);
    if (this.rollupRuleCheck(id, 'completed')) this.t.setCompletion(id, true, true);
  }

  /** The activity's rules for `action`, or the default ones: worked out once per rule set (the definition's, never changed). */
  private rulesFor(id: string, action: RollupAction): readonly RollupRule[] {
    const rules = this.t.a(id).rollupRules;
    let byAction = RULES_BY_ACTION.get(rules);
    if (!byAction) RULES_BY_ACTION.set(rules, (byAction = {}));
    return (byAction[action] ??= rulesOf(rules, action));
  }

  /** RB.1.4 Rollup Rule Check Subprocess. */
  private rollupRuleCheck(id: string, action: RollupAction): boolean {
    for (const rule of this.rulesFor(id, action)) {
      // The bag of the book, counted: its size, its True and its False values (the rest are Unknown).
      let bag = 0;
      let trues = 0;
      let falses = 0;
      for (const c of this.t.children(id)) {
        if (!this.t.a(c).tracked) continue;
        const value: Tri | null = this.asSeenBy(id, c, () =>
          // RB.1.4.2, then RB.1.4.1 Evaluate Rollup Conditions Subprocess
          this.checkChildForRollup(c, action) ? this.t.combine(rule.conditions.map((cond) => this.rollupCondition(c, cond)), rule.combination) : null,
        );
        if (value === null) continue;
        bag++;
        if (value === true) trues++;
        else if (value === false) falses++;
        // Decided already: "all" (or "none") has a child that is not True (not False), "any" one that is True.
        if (rule.childActivitySet === 'all' ? value !== true : rule.childActivitySet === 'none' ? value !== false : rule.childActivitySet === 'any' && value === true) break;
      }
      // "all" and "none" hold for an empty bag (no False and no Unknown in it), as the book words them.
      let fire = false;
      switch (rule.childActivitySet) {
        case 'all':
          fire = trues === bag;
          break;
        case 'any':
          fire = trues > 0;
          break;
        case 'none':
          fire = falses === bag;
          break;
        case 'atLeastCount':
          fire = trues >= rule.minimumCount;
          break;
        case 'atLeastPercent':
          fire = bag > 0 && trues / bag >= rule.minimumPercent - 1e-9;
          break;
      }
      if (fire) return true;
    }
    return false;
  }

  private rollupCondition(id: string, c: { condition: string; not: boolean }): Tri {
    return this.t.condition(id, { condition: c.condition, not: c.not, measureThreshold: 0 });
  }

  /** RB.1.4.2 Check Child for Rollup Subprocess (requiredFor* of adlseq:rollupConsiderations). */
  private checkChildForRollup(id: string, action: RollupAction): boolean {
    const a = this.t.a(id);
    const s = this.t.s(id);
    const satisfaction = action === 'satisfied' || action === 'notSatisfied';
    if (satisfaction ? !a.rollupObjectiveSatisfied : !a.rollupProgressCompletion) return false;
    const req =
      action === 'satisfied' ? a.requiredForSatisfied : action === 'notSatisfied' ? a.requiredForNotSatisfied : action === 'completed' ? a.requiredForCompleted : a.requiredForIncomplete;
    if (req === 'ifNotSuspended') return s.activityProgressStatus && !(s.attemptCount > 0 && s.isSuspended);
    if (req === 'ifAttempted') return s.activityProgressStatus && s.attemptCount > 0;
    if (req === 'ifNotSkipped') return !this.t.preRule(id, ['skip']);
    return true;
  }
}
