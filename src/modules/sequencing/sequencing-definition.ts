/**
 * The sequencing definition model of SCORM 2004 (IMS Simple Sequencing as profiled by the SN book, 2nd–4th
 * edition), built from what the course parser keeps: the item tree (`CourseActivity`) and the canonical JSON of each
 * item's `imsss:sequencing` (with the `imsss:sequencingCollection` entry its IDRef names), `adlseq:` and `adlcp:`
 * extensions. Every element and attribute has the default the SN book's "Sequencing Definition Model" gives it.
 */
import type { CourseActivity } from '../courses/packages/package-types';
import { emptyRecord } from '../../platform/records';

export type RuleConditionType =
  | 'satisfied'
  | 'objectiveStatusKnown'
  | 'objectiveMeasureKnown'
  | 'objectiveMeasureGreaterThan'
  | 'objectiveMeasureLessThan'
  | 'completed'
  | 'activityProgressKnown'
  | 'attempted'
  | 'attemptLimitExceeded'
  | 'timeLimitExceeded'
  | 'outsideAvailableTimeRange'
  | 'always'
  | 'never';

export interface RuleCondition {
  /** A RuleConditionType; unknown vocabulary evaluates to unknown. */
  condition: string;
  not: boolean;
  referencedObjective?: string;
  measureThreshold: number;
}

export type RuleAction =
  | 'skip'
  | 'disabled'
  | 'hiddenFromChoice'
  | 'stopForwardTraversal'
  | 'exit'
  | 'exitParent'
  | 'exitAll'
  | 'retry'
  | 'retryAll'
  | 'continue'
  | 'previous';

export interface SequencingRule {
  combination: 'all' | 'any';
  conditions: RuleCondition[];
  /** A RuleAction; unknown vocabulary never fires. */
  action: string;
}

export type RollupAction = 'satisfied' | 'notSatisfied' | 'completed' | 'incomplete';

export interface RollupRule {
  childActivitySet: 'all' | 'any' | 'none' | 'atLeastCount' | 'atLeastPercent';
  minimumCount: number;
  minimumPercent: number;
  combination: 'all' | 'any';
  conditions: Array<{ condition: string; not: boolean }>;
  action: RollupAction;
}

/** imsss:mapInfo with the 4th edition adlseq:mapInfo attributes merged in (same targetObjectiveID). */
export interface ObjectiveMap {
  targetObjectiveID: string;
  readSatisfiedStatus: boolean;
  readNormalizedMeasure: boolean;
  writeSatisfiedStatus: boolean;
  writeNormalizedMeasure: boolean;
  readCompletionStatus: boolean;
  writeCompletionStatus: boolean;
  readProgressMeasure: boolean;
  writeProgressMeasure: boolean;
  readRawScore: boolean;
  writeRawScore: boolean;
  readMinScore: boolean;
  writeMinScore: boolean;
  readMaxScore: boolean;
  writeMaxScore: boolean;
}

export interface ObjectiveDefinition {
  id: string;
  primary: boolean;
  satisfiedByMeasure: boolean;
  minNormalizedMeasure: number;
  maps: ObjectiveMap[];
}

export type RequiredFor = 'always' | 'ifAttempted' | 'ifNotSkipped' | 'ifNotSuspended';

export interface SharedDataMap {
  targetID: string;
  readSharedData: boolean;
  writeSharedData: boolean;
}

export interface ActivityDefinition {
  id: string;
  title: string;
  parent?: string;
  children: string[];
  /** Leaf with a resource to launch. */
  launchable: boolean;
  isVisible: boolean;
  /** adlcp:data/adlcp:map (4th edition shared data buckets): what the SCO sees as adl.data.n. */
  sharedData: SharedDataMap[];
  controlMode: {
    choice: boolean;
    choiceExit: boolean;
    flow: boolean;
    forwardOnly: boolean;
    useCurrentAttemptObjectiveInfo: boolean;
    useCurrentAttemptProgressInfo: boolean;
  };
  preConditionRules: SequencingRule[];
  exitConditionRules: SequencingRule[];
  postConditionRules: SequencingRule[];
  attemptLimit?: number;
  /** Seconds. */
  attemptAbsoluteDurationLimit?: number;
  rollupRules: RollupRule[];
  rollupObjectiveSatisfied: boolean;
  rollupProgressCompletion: boolean;
  objectiveMeasureWeight: number;
  requiredForSatisfied: RequiredFor;
  requiredForNotSatisfied: RequiredFor;
  requiredForCompleted: RequiredFor;
  requiredForIncomplete: RequiredFor;
  measureSatisfactionIfActive: boolean;
  objectives: ObjectiveDefinition[];
  randomizationTiming: 'never' | 'once' | 'onEachNewAttempt';
  selectCount?: number;
  reorderChildren: boolean;
  selectionTiming: 'never' | 'once' | 'onEachNewAttempt';
  tracked: boolean;
  completionSetByContent: boolean;
  objectiveSetByContent: boolean;
  preventActivation: boolean;
  constrainChoice: boolean;
  completedByMeasure: boolean;
  minProgressMeasure: number;
  progressWeight: number;
}

export interface SequencingDefinition {
  root: string;
  /** Activities in preorder (tree order). */
  order: string[];
  activities: Record<string, ActivityDefinition>;
  /** adlseq:objectivesGlobalToSystem (default true); false: the shared objectives belong to one attempt on the course. */
  objectivesGlobalToSystem?: boolean;
}

/** The canonical JSON of an XML element as the course parser keeps it (package-xml.ts `XmlJson`). */
interface Node {
  name?: string;
  attributes?: Record<string, string>;
  children?: Node[];
  text?: string;
}

const local = (n: Node): string => (n.name ?? '').replace(/^.*:/, '');
const kids = (n: Node | undefined, name: string): Node[] => (n?.children ?? []).filter((c) => local(c) === name);
const kid = (n: Node | undefined, name: string): Node | undefined => kids(n, name)[0];
const attr = (n: Node | undefined, name: string): string | undefined => {
  if (!n?.attributes) return undefined;
  const v = n.attributes[name] ?? Object.entries(n.attributes).find(([k]) => k.replace(/^.*:/, '') === name)?.[1];
  return v === undefined ? undefined : v.trim();
};
const bool = (v: string | undefined, dflt: boolean): boolean => (v === undefined || v === '' ? dflt : v === 'true' || v === '1');
const num = (v: string | undefined, dflt: number): number => {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  return Number.isFinite(n) ? n : dflt;
};

/** Objective ids are xs:anyURI: whitespace collapses, %-escapes stand for their characters. */
function objectiveId(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  let d = v;
  try {
    d = decodeURIComponent(v);
  } catch {
    // not a valid escape sequence: compare as written
  }
  return d.replace(/\s+/g, ' ').trim();
}

/** xs:duration (`PT1H30M`, `P1DT2S`) in seconds; undefined when it does not parse. */
export function durationSeconds(v: string | undefined): number | undefined {
  if (!v) return undefined;
  const m = /^P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(v.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => (x ? Number(x) : 0));
  return ((((y * 365 + mo * 30 + d) * 24 + h) * 60 + mi) * 60) + s;
}

/**
 * IMS SS: an item's sequencing may name a shared definition in imsss:sequencingCollection (IDRef); the local
 * elements override the shared ones of the same kind.
 */
function mergedSequencing(own: Node | undefined, collection: Record<string, unknown> | undefined, idRef: string | undefined): Node | undefined {
  const ref = idRef ?? attr(own, 'IDRef');
  const shared = ref && collection ? (collection[ref] as Node | undefined) : undefined;
  if (!shared) return own;
  if (!own) return shared;
  const ownNames = new Set((own.children ?? []).map((c) => c.name));
  return { ...own, children: [...(shared.children ?? []).filter((c) => !ownNames.has(c.name)), ...(own.children ?? [])] };
}

function parseRules(seq: Node | undefined, kind: string): SequencingRule[] {
  return kids(kid(seq, 'sequencingRules'), kind).map((r) => {
    const conds = kid(r, 'ruleConditions');
    return {
      combination: attr(conds, 'conditionCombination') === 'any' ? 'any' : 'all',
      conditions: kids(conds, 'ruleCondition').map((c) => ({
        condition: attr(c, 'condition') ?? 'always',
        not: attr(c, 'operator') === 'not',
        referencedObjective: objectiveId(attr(c, 'referencedObjective')) || undefined,
        measureThreshold: num(attr(c, 'measureThreshold'), 0),
      })),
      action: attr(kid(r, 'ruleAction'), 'action') ?? '',
    };
  });
}

function parseRollupRules(rr: Node | undefined): RollupRule[] {
  return kids(rr, 'rollupRule').map((r) => {
    const conds = kid(r, 'rollupConditions');
    const set = attr(r, 'childActivitySet');
    return {
      childActivitySet: (['all', 'any', 'none', 'atLeastCount', 'atLeastPercent'].includes(set ?? '') ? set : 'all') as RollupRule['childActivitySet'],
      minimumCount: num(attr(r, 'minimumCount'), 0),
      minimumPercent: num(attr(r, 'minimumPercent'), 0),
      combination: attr(conds, 'conditionCombination') === 'all' ? 'all' : 'any',
      conditions: kids(conds, 'rollupCondition').map((c) => ({ condition: attr(c, 'condition') ?? '', not: attr(c, 'operator') === 'not' })),
      action: (attr(kid(r, 'rollupAction'), 'action') ?? 'satisfied') as RollupAction,
    };
  });
}

function parseMap(m: Node): ObjectiveMap {
  return {
    targetObjectiveID: objectiveId(attr(m, 'targetObjectiveID')) ?? '',
    readSatisfiedStatus: bool(attr(m, 'readSatisfiedStatus'), true),
    readNormalizedMeasure: bool(attr(m, 'readNormalizedMeasure'), true),
    writeSatisfiedStatus: bool(attr(m, 'writeSatisfiedStatus'), false),
    writeNormalizedMeasure: bool(attr(m, 'writeNormalizedMeasure'), false),
    readCompletionStatus: false,
    writeCompletionStatus: false,
    readProgressMeasure: false,
    writeProgressMeasure: false,
    readRawScore: false,
    writeRawScore: false,
    readMinScore: false,
    writeMinScore: false,
    readMaxScore: false,
    writeMaxScore: false,
  };
}

/** 4th edition adlseq:mapInfo: the extended read/write flags (reads default true, writes false). */
function applyExtendedMap(target: ObjectiveMap, m: Node): void {
  for (const f of ['CompletionStatus', 'ProgressMeasure', 'RawScore', 'MinScore', 'MaxScore'] as const) {
    target[`read${f}`] = bool(attr(m, `read${f}`), true);
    target[`write${f}`] = bool(attr(m, `write${f}`), false);
  }
}

function parseObjectives(seq: Node | undefined): ObjectiveDefinition[] {
  const objs = (seq?.children ?? []).find((c) => c.name === 'imsss:objectives' || (local(c) === 'objectives' && !(c.name ?? '').startsWith('adlseq:')));
  const extended = (seq?.children ?? []).find((c) => c.name === 'adlseq:objectives');
  const out: ObjectiveDefinition[] = [];
  const one = (o: Node, primary: boolean): ObjectiveDefinition => ({
    id: objectiveId(attr(o, 'objectiveID')) ?? '',
    primary,
    satisfiedByMeasure: bool(attr(o, 'satisfiedByMeasure'), false),
    minNormalizedMeasure: num(kid(o, 'minNormalizedMeasure')?.text, 1),
    maps: kids(o, 'mapInfo').map(parseMap),
  });
  const p = kid(objs, 'primaryObjective');
  out.push(p ? one(p, true) : { id: '', primary: true, satisfiedByMeasure: false, minNormalizedMeasure: 1, maps: [] });
  for (const o of kids(objs, 'objective')) out.push(one(o, false));
  // adlseq:objectives (4th edition): extended map info, matched by objectiveID and targetObjectiveID.
  for (const ao of kids(extended, 'objective')) {
    const def = out.find((d) => d.id === objectiveId(attr(ao, 'objectiveID')));
    if (!def) continue;
    for (const m of kids(ao, 'mapInfo')) {
      const target = objectiveId(attr(m, 'targetObjectiveID')) ?? '';
      let map = def.maps.find((x) => x.targetObjectiveID === target);
      if (!map) {
        map = parseMap({ attributes: { targetObjectiveID: target, readSatisfiedStatus: 'false', readNormalizedMeasure: 'false' } });
        def.maps.push(map);
      }
      applyExtendedMap(map, m);
    }
  }
  return out;
}

const requiredFor = (v: string | undefined): RequiredFor =>
  v === 'ifAttempted' || v === 'ifNotSkipped' || v === 'ifNotSuspended' ? v : 'always';

function timing(v: string | undefined): 'never' | 'once' | 'onEachNewAttempt' {
  return v === 'once' || v === 'onEachNewAttempt' ? v : 'never';
}

export function activityDefinitionFrom(
  item: CourseActivity,
  parent: string | undefined,
  seqJson: unknown,
  data: Record<string, unknown> | undefined,
  collection: Record<string, unknown> | undefined,
): ActivityDefinition {
  const seq = mergedSequencing(seqJson as Node | undefined, collection, typeof data?.sequencingIdRef === 'string' ? data.sequencingIdRef : undefined);
  const cm = kid(seq, 'controlMode');
  const lc = kid(seq, 'limitConditions');
  const rr = kid(seq, 'rollupRules');
  const rand = kid(seq, 'randomizationControls');
  const dc = kid(seq, 'deliveryControls');
  const ccc = kid(seq, 'constrainedChoiceConsiderations');
  const rc = kid(seq, 'rollupConsiderations');
  const ct = (data?.completionThreshold ?? {}) as Record<string, string | undefined>;
  const attemptLimit = attr(lc, 'attemptLimit');
  const selectCount = attr(rand, 'selectCount');
  return {
    id: item.itemIdentifier,
    title: item.title,
    parent,
    children: item.children.map((c) => c.itemIdentifier),
    launchable: item.children.length === 0 && !!item.href,
    isVisible: data?.isVisible !== false,
    sharedData: sharedDataOf(data?.sharedData),
    controlMode: {
      choice: bool(attr(cm, 'choice'), true),
      choiceExit: bool(attr(cm, 'choiceExit'), true),
      flow: bool(attr(cm, 'flow'), false),
      forwardOnly: bool(attr(cm, 'forwardOnly'), false),
      useCurrentAttemptObjectiveInfo: bool(attr(cm, 'useCurrentAttemptObjectiveInfo'), true),
      useCurrentAttemptProgressInfo: bool(attr(cm, 'useCurrentAttemptProgressInfo'), true),
    },
    preConditionRules: parseRules(seq, 'preConditionRule'),
    exitConditionRules: parseRules(seq, 'exitConditionRule'),
    postConditionRules: parseRules(seq, 'postConditionRule'),
    ...(attemptLimit !== undefined && Number(attemptLimit) > 0 ? { attemptLimit: Number(attemptLimit) } : {}),
    ...(durationSeconds(attr(lc, 'attemptAbsoluteDurationLimit')) !== undefined
      ? { attemptAbsoluteDurationLimit: durationSeconds(attr(lc, 'attemptAbsoluteDurationLimit')) }
      : {}),
    rollupRules: parseRollupRules(rr),
    rollupObjectiveSatisfied: bool(attr(rr, 'rollupObjectiveSatisfied'), true),
    rollupProgressCompletion: bool(attr(rr, 'rollupProgressCompletion'), true),
    objectiveMeasureWeight: num(attr(rr, 'objectiveMeasureWeight'), 1),
    requiredForSatisfied: requiredFor(attr(rc, 'requiredForSatisfied')),
    requiredForNotSatisfied: requiredFor(attr(rc, 'requiredForNotSatisfied')),
    requiredForCompleted: requiredFor(attr(rc, 'requiredForCompleted')),
    requiredForIncomplete: requiredFor(attr(rc, 'requiredForIncomplete')),
    measureSatisfactionIfActive: bool(attr(rc, 'measureSatisfactionIfActive'), true),
    objectives: parseObjectives(seq),
    randomizationTiming: timing(attr(rand, 'randomizationTiming')),
    ...(selectCount !== undefined && Number.isInteger(Number(selectCount)) ? { selectCount: Number(selectCount) } : {}),
    reorderChildren: bool(attr(rand, 'reorderChildren'), false),
    selectionTiming: timing(attr(rand, 'selectionTiming')),
    tracked: bool(attr(dc, 'tracked'), true),
    completionSetByContent: bool(attr(dc, 'completionSetByContent'), false),
    objectiveSetByContent: bool(attr(dc, 'objectiveSetByContent'), false),
    preventActivation: bool(attr(ccc, 'preventActivation'), false),
    constrainChoice: bool(attr(ccc, 'constrainChoice'), false),
    completedByMeasure: bool(ct.completedByMeasure, false),
    minProgressMeasure: num(ct.minProgressMeasure, 1),
    progressWeight: num(ct.progressWeight, 1),
  };
}

/** What a stored SCORM 2004 course version holds: the item tree and the parser's packageData. */
function sharedDataOf(v: unknown): SharedDataMap[] {
  if (!Array.isArray(v)) return [];
  return v
    .filter((m): m is Record<string, unknown> => !!m && typeof m === 'object' && typeof (m as { targetID?: unknown }).targetID === 'string' && (m as { targetID: string }).targetID !== '')
    .map((m) => ({ targetID: m.targetID as string, readSharedData: m.readSharedData !== false, writeSharedData: m.writeSharedData === true }));
}

export interface ManifestSequencingData {
  rootActivity: CourseActivity;
  packageData: Record<string, unknown>;
}

/** The sequencing definition of a whole course (the organization is the root activity). */
export function buildSequencingDefinition({ rootActivity, packageData }: ManifestSequencingData): SequencingDefinition {
  const org = (packageData.organization ?? {}) as Record<string, unknown>;
  const items = (packageData.activities ?? {}) as Record<string, Record<string, unknown>>;
  const collection = packageData.sequencingCollection as Record<string, unknown> | undefined;
  const activities = emptyRecord<ActivityDefinition>();
  const order: string[] = [];
  const walk = (a: CourseActivity, parent: string | undefined, isRoot: boolean): void => {
    const data = isRoot ? { completionThreshold: org.completionThreshold } : items[a.itemIdentifier];
    const seq = isRoot ? org.sequencing : data?.sequencing;
    activities[a.itemIdentifier] = activityDefinitionFrom(a, parent, seq, data, collection);
    order.push(a.itemIdentifier);
    for (const c of a.children) walk(c, a.itemIdentifier, false);
  };
  walk(rootActivity, undefined, true);
  return { root: rootActivity.itemIdentifier, order, activities, ...(org.objectivesGlobalToSystem === false ? { objectivesGlobalToSystem: false } : {}) };
}
