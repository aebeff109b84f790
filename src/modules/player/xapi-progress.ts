import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { IsArray, IsNotEmpty, IsOptional, IsString } from 'class-validator';
import { defineQueue, JobQueue } from '../../platform/queue/job-queue';
import type { ActivityResult } from '../registrations/registration-types';
import { SCORM_PROFILE } from './launch-statements/scorm-profile';
import { CMI5_CATEGORY } from './cmi5-launch';
import { MAX_COLLECTION_INDEX } from './scorm-runtime';
import { agentKey, type Json, objectActivityId } from '../xapi/lrs/statement-keys';
import { XapiStatementsService } from '../xapi/xapi-statements.service';
import { schemaInteractionType } from '../registrations/runtime-records';

const VERBS: Record<string, XapiVerb> = {
  'http://adlnet.gov/expapi/verbs/completed': 'completed',
  'http://adlnet.gov/expapi/verbs/passed': 'passed',
  'http://adlnet.gov/expapi/verbs/failed': 'failed',
};
type XapiVerb = 'completed' | 'passed' | 'failed';

/** What the progress of an xAPI registration needs of one statement. */
export interface XapiResultStatement {
  verb: XapiVerb;
  /** agentKey of the actor. */
  actor: string;
  activityId: string;
  /** ms since the epoch (the statement's timestamp, or when it was stored). */
  at: number;
  scaled?: number;
}

/** An interaction a statement about a cmi.interaction activity reports (TinCanInteractionsEnabled). */
export interface XapiInteractionStatement {
  /** agentKey of the actor. */
  actor: string;
  /** ms since the epoch (the statement's timestamp, or when it was stored). */
  at: number;
  /** RuntimeInteractionSchema: id, type, description, timestamp, timestampUtc, correctResponses, learnerResponse, result, latency. */
  interaction: Record<string, string | string[]>;
}

export class XapiProgressPayload {
  @IsString() @IsNotEmpty() appId!: string;
  /** The statements' context.registration (a registration's xapiRegistrationId). */
  @IsString() @IsNotEmpty() registration!: string;
  @IsArray() statements!: XapiResultStatement[];
  /** Absent in jobs queued before interactions were read. */
  @IsOptional() @IsArray() interactions?: XapiInteractionStatement[];
}

/** What a batch of statements brings to the progress of one registration. */
export interface XapiProgressStatements {
  statements: XapiResultStatement[];
  interactions: XapiInteractionStatement[];
}

export const XAPI_PROGRESS_QUEUE = defineQueue<XapiProgressPayload>({
  name: 'xapi-registration-progress',
  payloadClass: XapiProgressPayload,
  maxAttempts: 5,
  backoffMs: 2_000,
  timeoutMs: 30_000,
});

/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- statements are free-form JSON, validated by statement-rules.ts before they are stored */
/**
 * Statements whose progress is recorded elsewhere: the xAPI SCORM profile's (the player's own statements of SCORM
 * launches, whose progress it recorded already) and cmi5's (Cmi5Runtime records them as the LRS accepts them).
 */
const isRecordedElsewhere = (s: Record<string, Json>): boolean => {
  const category: unknown = s.context?.contextActivities?.category;
  return Array.isArray(category) && category.some((c: Json) => c?.id === SCORM_PROFILE || c?.id === CMI5_CATEGORY);
};

export const CMI_INTERACTION = 'http://adlnet.gov/expapi/activities/cmi.interaction';

/** A language map's text: en-US, else en, else its first entry. */
const textOf = (map: Json): string | undefined => {
  if (!map || typeof map !== 'object') return undefined;
  const v: unknown = map['en-US'] ?? map.en ?? Object.values(map as Record<string, unknown>)[0];
  return typeof v === 'string' ? v : undefined;
};

/** The interaction a statement about a cmi.interaction activity reports, in RuntimeInteractionSchema's names; null for other statements. */
export function interactionOf(s: Record<string, Json>, at: number): Record<string, string | string[]> | null {
  const id = objectActivityId(s);
  const def = s.object?.definition;
  if (id === null || def?.type !== CMI_INTERACTION) return null;
  const out: Record<string, string | string[]> = { id };
  const interactionType: unknown = def.interactionType;
  const type = typeof interactionType === 'string' ? schemaInteractionType(interactionType) : undefined;
  if (type) out.type = type;
  const description = textOf(def.description) ?? textOf(def.name);
  if (description !== undefined) out.description = description;
  if (typeof s.timestamp === 'string') out.timestamp = s.timestamp;
  out.timestampUtc = new Date(at).toISOString();
  if (Array.isArray(def.correctResponsesPattern)) out.correctResponses = (def.correctResponsesPattern as unknown[]).filter((p): p is string => typeof p === 'string');
  const result = s.result;
  if (typeof result?.response === 'string') out.learnerResponse = result.response;
  if (typeof result?.success === 'boolean') out.result = result.success ? 'correct' : 'incorrect';
  if (typeof result?.duration === 'string') out.latency = result.duration;
  return out;
}

/**
 * What a batch of statements brings to registrations' progress, by registration: the completed/passed/failed
 * statements, and the interactions of statements about cmi.interaction activities (other statements change nothing).
 */
export function progressStatementsOf(statements: ReadonlyArray<Record<string, Json>>): Map<string, XapiProgressStatements> {
  const out = new Map<string, XapiProgressStatements>();
  const now = Date.now();
  for (const s of statements) {
    const registration = s.context?.registration;
    if (typeof registration !== 'string' || isRecordedElsewhere(s)) continue;
    const verb = VERBS[typeof s.verb?.id === 'string' ? s.verb.id : ''];
    const timestamp = typeof s.timestamp === 'string' ? Date.parse(s.timestamp) : NaN;
    const at = Number.isFinite(timestamp) ? timestamp : now;
    const interaction = interactionOf(s, at);
    if (!verb && !interaction) continue;
    const actor = agentKey(s.actor);
    const activityId = objectActivityId(s);
    if (actor === null || activityId === null) continue;
    const key = registration.toLowerCase();
    const entry = out.get(key) ?? { statements: [], interactions: [] };
    if (verb) {
      const scaled = s.result?.score?.scaled;
      entry.statements.push({ verb, actor, activityId, at, ...(typeof scaled === 'number' && Number.isFinite(scaled) ? { scaled } : {}) });
    }
    if (interaction) entry.interactions.push({ actor, at, interaction });
    out.set(key, entry);
  }
  return out;
}
/* eslint-enable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment */

/**
 * Applies result statements to the root activity of an xAPI registration as SCORM Cloud does: a `completed` or
 * `passed` statement about the course's activity by the learner completes it, `passed`/`failed` set its success
 * (the latest one wins), result.score.scaled its score. Statements about other activities or by other actors are
 * ignored. Returns the time of the first statement that completed it (null: none did), or false when nothing changed.
 */
export function applyXapiResults(root: ActivityResult, statements: readonly XapiResultStatement[], course: { activityId: string; actor: string }): { completedAt: Date | null } | false {
  const relevant = statements.filter((s) => s.activityId === course.activityId && s.actor === course.actor).sort((a, b) => a.at - b.at);
  if (relevant.length === 0) return false;
  let completedAt: Date | null = null;
  for (const s of relevant) {
    if ((s.verb === 'completed' || s.verb === 'passed') && root.activityCompletion !== 'COMPLETED') {
      root.activityCompletion = 'COMPLETED';
      completedAt = new Date(s.at);
    }
    if (s.verb === 'passed') root.activitySuccess = 'PASSED';
    if (s.verb === 'failed') root.activitySuccess = 'FAILED';
    if (s.scaled !== undefined) root.score = { scaled: s.scaled };
  }
  if (root.activityCompletion === 'COMPLETED') root.completionAmount = { scaled: 1 };
  if (root.attempts === 0) root.attempts = 1;
  return { completedAt };
}

/**
 * TinCanInteractionsEnabled: the interactions the learner's statements report become the runtime interactions of
 * the course's activity (runtime.runtimeInteractions), one per interaction id: a later statement about the same
 * interaction replaces what an earlier one reported, an older one arriving late changes nothing. Returns whether
 * anything changed.
 */
export function applyXapiInteractions(root: ActivityResult, interactions: readonly XapiInteractionStatement[], actor: string): boolean {
  const mine = interactions.filter((i) => i.actor === actor).sort((a, b) => a.at - b.at);
  if (mine.length === 0) return false;
  const list = [...(root.runtime?.runtimeInteractions ?? [])];
  let changed = false;
  for (const { interaction } of mine) {
    const at = list.findIndex((r) => r.id === interaction.id);
    const known = at >= 0 ? list[at].timestampUtc : undefined;
    if (typeof known === 'string' && typeof interaction.timestampUtc === 'string' && known > interaction.timestampUtc) continue;
    if (at >= 0) list[at] = interaction;
    else if (list.length < MAX_COLLECTION_INDEX) list.push(interaction);
    else continue;
    changed = true;
  }
  if (changed) root.runtime = { ...(root.runtime ?? {}), runtimeInteractions: list };
  return changed;
}

/** What applies the statements of one registration (PlayerXapi.applyXapiResults). */
export type XapiResultsApplier = (appId: string, registration: string, statements: XapiResultStatement[], interactions: XapiInteractionStatement[]) => Promise<unknown>;

/**
 * Progress of xAPI courses from the statements their content sends: the statement store tells this of stored
 * statements with a context.registration; result statements (completed, passed, failed) and statements about
 * cmi.interaction activities queue a job per registration that updates the registration's progress, off the LRS's
 * request path.
 */
@Injectable()
export class XapiProgress implements OnModuleInit {
  private readonly logger = new Logger(XapiProgress.name);
  private applier: XapiResultsApplier | null = null;

  constructor(
    private readonly jobs: JobQueue,
    private readonly statements: XapiStatementsService,
  ) {}

  /** The player registers what applies the statements (PlayerXapi: the progress is written through the registrations module). */
  register(applier: XapiResultsApplier): void {
    this.applier = applier;
  }

  onModuleInit(): void {
    this.jobs.register(XAPI_PROGRESS_QUEUE, (p) => (this.applier ? this.applier(p.appId, p.registration, p.statements, p.interactions ?? []) : Promise.resolve({ skipped: 'no applier' })));
    this.statements.onRegistrationStatements((appId, list) => {
      for (const [registration, { statements, interactions }] of progressStatementsOf(list)) {
        this.jobs.enqueue(XAPI_PROGRESS_QUEUE, { appId, registration, statements, ...(interactions.length ? { interactions } : {}) }, { appId }).catch((err: unknown) => {
          this.logger.error({ msg: 'xAPI progress not queued', appId, registration, err: err instanceof Error ? err.message : String(err) });
        });
      }
    });
  }
}
