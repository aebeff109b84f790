import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { IsArray, IsNotEmpty, IsString } from 'class-validator';
import { defineQueue, JobQueue } from '../../platform/queue/job-queue';
import type { ActivityResult } from '../registrations/registration-types';
import { SCORM_PROFILE } from './launch-statements/scorm-profile';
import { CMI5_CATEGORY } from './cmi5-launch';
import { agentKey, type Json, objectActivityId } from '../xapi/lrs/statement-keys';
import { XapiStatementsService } from '../xapi/xapi-statements.service';

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

export class XapiProgressPayload {
  @IsString() @IsNotEmpty() appId!: string;
  /** The statements' context.registration (a registration's xapiRegistrationId). */
  @IsString() @IsNotEmpty() registration!: string;
  @IsArray() statements!: XapiResultStatement[];
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

/** The completed/passed/failed statements of a batch, grouped by registration (other statements change no progress). */
export function resultStatementsOf(statements: ReadonlyArray<Record<string, Json>>): Map<string, XapiResultStatement[]> {
  const out = new Map<string, XapiResultStatement[]>();
  const now = Date.now();
  for (const s of statements) {
    const verb = VERBS[typeof s.verb?.id === 'string' ? s.verb.id : ''];
    const registration = s.context?.registration;
    if (!verb || typeof registration !== 'string' || isRecordedElsewhere(s)) continue;
    const actor = agentKey(s.actor);
    const activityId = objectActivityId(s);
    if (actor === null || activityId === null) continue;
    const timestamp = typeof s.timestamp === 'string' ? Date.parse(s.timestamp) : NaN;
    const scaled = s.result?.score?.scaled;
    const key = registration.toLowerCase();
    const list = out.get(key) ?? [];
    list.push({ verb, actor, activityId, at: Number.isFinite(timestamp) ? timestamp : now, ...(typeof scaled === 'number' && Number.isFinite(scaled) ? { scaled } : {}) });
    out.set(key, list);
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

/** What applies the result statements of one registration (PlayerXapi.applyXapiResults). */
export type XapiResultsApplier = (appId: string, registration: string, statements: XapiResultStatement[]) => Promise<unknown>;

/**
 * Progress of xAPI courses from the statements their content sends: the statement store tells this of stored
 * statements with a context.registration; result statements (completed, passed, failed) queue a job per registration
 * that updates the registration's progress, off the LRS's request path.
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
    this.jobs.register(XAPI_PROGRESS_QUEUE, (p) => (this.applier ? this.applier(p.appId, p.registration, p.statements) : Promise.resolve({ skipped: 'no applier' })));
    this.statements.onRegistrationStatements((appId, list) => {
      for (const [registration, statements] of resultStatementsOf(list)) {
        this.jobs.enqueue(XAPI_PROGRESS_QUEUE, { appId, registration, statements }, { appId }).catch((err: unknown) => {
          this.logger.error({ msg: 'xAPI progress not queued', appId, registration, err: err instanceof Error ? err.message : String(err) });
        });
      }
    });
  }
}
