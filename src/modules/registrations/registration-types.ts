import { runtimeInteractionOf, runtimeObjectiveOf } from './runtime-records';
import type { CourseActivity } from '../courses/packages/package-types';

export const COMPLETION = ['UNKNOWN', 'COMPLETED', 'INCOMPLETE'] as const;
export const SUCCESS = ['UNKNOWN', 'PASSED', 'FAILED'] as const;
export type Completion = (typeof COMPLETION)[number];
export type Success = (typeof SUCCESS)[number];

/** ObjectiveSchema */
export interface Objective {
  id?: string;
  primary?: boolean;
  score?: { scaled?: number };
  scoreMax?: number;
  scoreMin?: number;
  scoreRaw?: number;
  previousScoreScaled?: number;
  firstScoreScaled?: number;
  progressMeasure?: number;
  firstSuccessTimeStamp?: string;
  objectiveCompletion?: Completion;
  objectiveSuccess?: Success;
  previousObjectiveSuccess?: Success;
}

/** RuntimeSchema (strings as on the wire); the player fills it. */
export interface Runtime {
  completionStatus?: string;
  credit?: string;
  entry?: string;
  exit?: string;
  learnerPreference?: { audioLevel?: number; language?: string; deliverySpeed?: number; audioCaptioning?: number };
  location?: string;
  mode?: string;
  progressMeasure?: string;
  scoreScaled?: string;
  scoreRaw?: string;
  scoreMin?: string;
  scoreMax?: string;
  totalTime?: string;
  timeTracked?: string;
  runtimeSuccessStatus?: Success;
  suspendData?: string;
  learnerComments?: Array<{ value?: string; location?: string; dateTime?: string }>;
  lmsComments?: Array<{ value?: string; location?: string; dateTime?: string }>;
  runtimeInteractions?: Array<Record<string, string | string[]>>;
  runtimeObjectives?: Array<Record<string, string>>;
}

/** ActivityResultSchema: the stored tree has every part; include flags decide what a response shows. */
export interface ActivityResult {
  id: string;
  title: string;
  attempts: number;
  activityCompletion: Completion;
  activitySuccess: Success;
  score?: { scaled?: number };
  timeTracked: string;
  completionAmount?: { scaled?: number };
  suspended: boolean;
  children: ActivityResult[];
  objectives: Objective[];
  staticProperties?: {
    completionThreshold?: string;
    launchData?: string;
    maxTimeAllowed?: string;
    scaledPassingScore?: number;
    scaledPassingScoreUsed?: boolean;
    timeLimitAction?: string;
  };
  runtime?: Runtime;
  /** cmi5 courses: the AU, block or course is satisfied (its satisfied statement was issued once), or the AU was waived. Not shown by the API. */
  cmi5?: { satisfied?: boolean; waived?: boolean };
}

/** What GetRegistrationProgress and friends include beyond the summary. */
export interface IncludeFlags {
  includeChildResults?: boolean;
  includeInteractionsAndObjectives?: boolean;
  includeRuntime?: boolean;
}

/** The tree of a fresh attempt: every activity of the course version, nothing attempted. */
export function initialActivityTree(root: CourseActivity): ActivityResult {
  const build = (a: CourseActivity): ActivityResult => {
    const passing = a.scaledPassingScore !== undefined && a.scaledPassingScore !== '' ? Number(a.scaledPassingScore) : undefined;
    const launchable = (a.children ?? []).length === 0 && a.activityType !== 'AGGREGATION';
    return {
      id: a.externalIdentifier,
      title: a.title,
      attempts: 0,
      activityCompletion: 'UNKNOWN',
      activitySuccess: 'UNKNOWN',
      timeTracked: '0000:00:00',
      suspended: false,
      children: (a.children ?? []).map(build),
      objectives: [],
      ...(passing !== undefined && Number.isFinite(passing) ? { staticProperties: { scaledPassingScore: passing, scaledPassingScoreUsed: true } } : {}),
      ...(launchable
        ? {
            runtime: {
              completionStatus: 'unknown',
              credit: 'credit',
              entry: 'ab-initio',
              exit: 'unknown',
              location: '',
              mode: 'normal',
              totalTime: '0000:00:00',
              timeTracked: '0000:00:00',
              runtimeSuccessStatus: 'UNKNOWN',
              suspendData: '',
              learnerComments: [],
              lmsComments: [],
              runtimeInteractions: [],
              runtimeObjectives: [],
            },
          }
        : {}),
    };
  };
  return build(root);
}

/** The tree as a response shows it under the include flags (a copy; the stored tree is not touched). */
export function shapeActivityTree(node: ActivityResult, flags: IncludeFlags): ActivityResult {
  const out: ActivityResult = { ...node };
  delete out.cmi5;
  if (flags.includeChildResults) out.children = (node.children ?? []).map((c) => shapeActivityTree(c, flags));
  else delete (out as Partial<ActivityResult>).children;
  if (!flags.includeInteractionsAndObjectives) delete (out as Partial<ActivityResult>).objectives;
  if (!flags.includeRuntime || !node.runtime) delete out.runtime;
  else if (!flags.includeInteractionsAndObjectives) {
    const { runtimeInteractions: _i, runtimeObjectives: _o, ...rest } = node.runtime;
    out.runtime = rest;
  } else {
    // The content's records under the schema's names (RuntimeInteractionSchema, RuntimeObjectiveSchema).
    out.runtime = {
      ...node.runtime,
      runtimeInteractions: (node.runtime.runtimeInteractions ?? []).map(runtimeInteractionOf),
      runtimeObjectives: (node.runtime.runtimeObjectives ?? []).map(runtimeObjectiveOf),
    };
  }
  return out;
}

/** An activity tree as a client sends it: any part may be left out (or null). */
export type GivenActivityResult = { [K in Exclude<keyof ActivityResult, 'children'>]?: ActivityResult[K] | null } & { children?: GivenActivityResult[] | null };

/** Overlays the activity results of an initialRegistrationState onto a fresh tree, matching activities by id. */
export function overlayActivityTree(base: ActivityResult, given: GivenActivityResult | undefined): ActivityResult {
  if (!given) return base;
  const byId = new Map<string, GivenActivityResult>();
  const collect = (n: GivenActivityResult) => {
    if (typeof n.id === 'string') byId.set(n.id, n);
    for (const c of n.children ?? []) collect(c);
  };
  collect(given);
  const apply = (n: ActivityResult): ActivityResult => {
    const g = byId.get(n.id);
    const merged: ActivityResult = { ...n, children: n.children.map(apply) };
    if (!g) return merged;
    for (const key of ['attempts', 'activityCompletion', 'activitySuccess', 'score', 'timeTracked', 'completionAmount', 'suspended', 'objectives', 'staticProperties'] as const) {
      if (g[key] !== undefined && g[key] !== null) (merged as unknown as Record<string, unknown>)[key] = g[key];
    }
    if (g.runtime) {
      // A field left out (or null) keeps the fresh runtime's value: the player reads them as strings.
      const runtime: Runtime = { ...(n.runtime ?? {}) };
      for (const [k, v] of Object.entries(g.runtime)) if (v !== undefined && v !== null) (runtime as Record<string, unknown>)[k] = v;
      merged.runtime = runtime;
    }
    return merged;
  };
  return apply(base);
}

/** PostBackSchema as stored: the password sealed with the key ring, never in clear. */
export interface StoredPostBack {
  url: string;
  authType: 'UNDEFINED' | 'FORM' | 'HTTPBASIC';
  userName?: string;
  sealedPassword?: string;
  resultsFormat: 'UNDEFINED' | 'COURSE' | 'ACTIVITY' | 'FULL';
  legacy?: boolean;
}
