import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Min } from 'class-validator';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/app-config';
import { GroupCommitter } from '../../../platform/database/group-commit';
import { defineQueue, JobQueue } from '../../../platform/queue/job-queue';
import type { CourseVersion } from '../../courses/course-version';
import type { ActivityState, FlatCmi, ScormVersion } from '../scorm-runtime';
import type { RegistrationRecord } from '../../registrations/registration-records';
import { RegistrationProgress } from '../../registrations/registration-progress';
import { XapiCredentialsService } from '../../xapi/xapi-credentials.service';
import type { Json } from '../../xapi/lrs/statement-keys';
import { OwnStatements, XapiStatementsService } from '../../xapi/xapi-statements.service';
import { commitStatements, LaunchContext, launchStatements, NOTHING_REPORTED, ReportedState, stableUuid, StatementSubject } from './scorm-profile';

/**
 * A launch of a SCORM activity whose statements could not be stored at once (kind `launch`), to be told as xAPI
 * statements by a job. Kind `commit`: queued by an earlier version (commits now store their statements themselves).
 */
export class LaunchStatementsPayload {
  @IsIn(['launch', 'commit']) kind!: 'launch' | 'commit';
  @IsString() @IsNotEmpty() appId!: string;
  @IsString() @IsNotEmpty() registrationId!: string;
  @IsInt() @Min(0) instance!: number;
  @IsString() @IsNotEmpty() activityId!: string;
  @IsIn(['1.2', '2004']) standard!: ScormVersion;
  /** ms since the epoch: the statements' timestamp. */
  @IsInt() @Min(0) at!: number;
  /** The session id (the statements' ids derive from it). */
  @IsString() @IsNotEmpty() key!: string;
  @IsOptional() @IsBoolean() resumed?: boolean;
  /** What the statements name, as the player knew it at launch (absent: read from the rows). */
  @IsOptional() @IsObject() subject?: StatementSubject;
}

export const LAUNCH_STATEMENTS_QUEUE = defineQueue<LaunchStatementsPayload>({
  name: 'xapi-launch-statements',
  payloadClass: LaunchStatementsPayload,
  maxAttempts: 5,
  backoffMs: 2_000,
  timeoutMs: 30_000,
});

/**
 * The batches of commits an earlier version queued (a commit's statements were made by a job then). Such jobs are
 * taken off the queue and state nothing: the activities' reported state moved to the instances (migration
 * 1766000000000), so their commits' statements cannot be told any more without telling some twice.
 */
const LEGACY_COMMIT_BATCH_QUEUE = defineQueue<{ items?: unknown[] }>({ name: 'xapi-launch-statements-batch', check: () => [], maxAttempts: 1 });

interface ContextRows {
  reg: RegistrationRecord | null;
  version: CourseVersion | null;
}

/** What a commit reports as statements: the statements to store with it and the instance's new reported state. */
export interface CommitStatements {
  statements: OwnStatements;
  /** The instance's registration_instance.xapi_reported with this activity's new state. */
  reported: string;
}

/**
 * Statements from SCORM launches, as SCORM Cloud records them in the application's LRS (ADL xAPI SCORM Profile, see
 * scorm-profile.ts).
 * - A launch's statements (launched, then initialized or resumed) are stored when the session opens; when the LRS
 *   cannot take them then, a job stores them (their ids come from the session: never twice).
 * - A commit's statements (completed, passed/failed, scored, responded, suspended/terminated) are made by the player
 *   from what the activity reported before (registration_instance.xapi_reported, read with the commit's context)
 *   and stored in the commit's own transaction with the new reported state: stored exactly when the commit is, in
 *   commit order, with no job, no extra read and no lock of their own.
 */
@Injectable()
export class LaunchStatements implements OnModuleInit {
  private readonly logger = new Logger(LaunchStatements.name);
  /**
   * Launches' statements stored together: the launches that open while one store is under way share the next one
   * (one transaction, one statement per kind of row for all), as runtime commits do. Each launch still waits for its
   * own statements to be committed; a batch that fails is stored launch by launch, and a launch whose statements
   * cannot be stored gets a job, as before.
   */
  private readonly group: GroupCommitter<LaunchStatementsPayload>;

  constructor(
    private readonly jobs: JobQueue,
    private readonly statements: XapiStatementsService,
    private readonly credentials: XapiCredentialsService,
    private readonly registrations: RegistrationProgress,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.group = new GroupCommitter<LaunchStatementsPayload>(
      {
        keyOf: (p) => p.key,
        writeBatch: async (items) => {
          const byApp = new Map<string, LaunchStatementsPayload[]>();
          for (const p of items) byApp.set(p.appId, [...(byApp.get(p.appId) ?? []), p]);
          for (const [appId, launches] of byApp) {
            const list: unknown[] = [];
            for (const p of launches) for (const statement of this.launchList(p, this.subjectContext(p, p.subject!))) list.push(statement as unknown);
            await this.statements.storeStatements(appId, list, this.authority(appId));
          }
          return items.map(() => true);
        },
        writeOne: async (p) => (await this.record(p, false), true),
      },
      { maxBatch: 32, writers: 1 },
    );
  }

  onModuleInit(): void {
    this.jobs.register(LAUNCH_STATEMENTS_QUEUE, (payload) => this.record(payload, true));
    this.jobs.register(LEGACY_COMMIT_BATCH_QUEUE, (payload) => Promise.resolve({ skipped: `${payload.items?.length ?? 0} commits queued by an earlier version` }));
  }

  /**
   * A tracked launch opened a session on an activity (resumed: its last exit was suspend): its statements are stored
   * now, before the session's first commit can state anything; if the LRS fails, a job stores them. Never throws.
   */
  async launched(p: { appId: string; registrationId: string; instance: number; activityId: string; standard: ScormVersion; sessionId: string; resumed: boolean; at: Date; subject?: StatementSubject }): Promise<void> {
    const payload: LaunchStatementsPayload = {
      kind: 'launch',
      appId: p.appId,
      registrationId: p.registrationId,
      instance: p.instance,
      activityId: p.activityId,
      standard: p.standard,
      at: p.at.getTime(),
      key: p.sessionId,
      resumed: p.resumed,
      ...(p.subject ? { subject: p.subject } : {}),
    };
    try {
      // With the session's subject (every launch of this version), in a group with other launches' statements. Not on
      // SQLite: its writes never overlap (nothing to group), and the launch's own transaction is open around this call
      // (a group started by another launch would wait for it, and it for the group).
      if (payload.subject && this.config.database.kind === 'mysql') await this.group.write(payload);
      else await this.record(payload, false);
    } catch (err) {
      this.logger.warn({ msg: 'launch statements not stored; queued', appId: p.appId, registrationId: p.registrationId, err: err instanceof Error ? err.message : String(err) });
      const jobId = stableUuid('launch-statements', p.appId, p.registrationId, p.instance, p.activityId, 'launch', p.sessionId);
      await this.jobs.enqueue(LAUNCH_STATEMENTS_QUEUE, payload, { appId: p.appId, jobId }).catch((e: unknown) => {
        this.logger.error({ msg: 'launch statements not queued', appId: p.appId, registrationId: p.registrationId, err: e instanceof Error ? e.message : String(e) });
      });
    }
  }

  /**
   * The statements of an applied commit of an activity and the instance's new reported state, or null when it states
   * nothing. `reported`: the instance's xapi_reported as read with the commit (null: nothing reported yet); `subject`:
   * what the session knew at launch (sessions of an earlier version: none, read from the rows). The statements' ids
   * are random: the commit's transaction stores them once (a commit applies once), and ids derived from the commit
   * could repeat after a progress reset restarts the sequence.
   */
  async forCommit(p: {
    appId: string;
    registrationId: string;
    instance: number;
    activityId: string;
    standard: ScormVersion;
    cmi: FlatCmi;
    final: boolean;
    passing?: number;
    at: Date;
    subject?: StatementSubject;
    reported: string | null;
    /** The commit's activity state, as the player worked it out from the same cmi and passing score. */
    state?: Pick<ActivityState, 'completion' | 'success' | 'scoreScaled' | 'suspended'>;
  }): Promise<CommitStatements | null> {
    const context = await this.contextOf(p);
    if (!context) return null;
    const byActivity = parseReported(p.reported);
    const previous = byActivity[p.activityId] ?? NOTHING_REPORTED;
    const { statements, state } = commitStatements(context, p.cmi, previous, p.at, () => randomUUID(), p.final, p.passing, p.state);
    if (statements.length === 0 && sameState(state, previous)) return null;
    byActivity[p.activityId] = state;
    return { statements: this.statements.prepareOwn(p.appId, statements as Array<Record<string, Json>>, this.authority(p.appId)), reported: JSON.stringify(byActivity) };
  }

  /**
   * A launch's statements (the launch's own call, or a job's: `later`, when the registration may have gone since); a
   * commit queued by an earlier version states nothing.
   */
  private async record(p: LaunchStatementsPayload, later: boolean): Promise<unknown> {
    if (p.kind === 'commit') return { skipped: 'a commit queued by an earlier version' };
    const context = await this.contextOf(p, later);
    if (!context) return { skipped: 'registration or course gone' };
    const list = this.launchList(p, context);
    await this.statements.storeStatements(p.appId, list, this.authority(p.appId));
    return { stored: list.length };
  }

  private launchList(p: LaunchStatementsPayload, context: LaunchContext): Json[] {
    return launchStatements(context, new Date(p.at), `${activityKey(p)}\nlaunch\n${p.key}`, p.resumed === true);
  }

  /**
   * What the statements name: what the session knew at launch (`subject`), else (sessions of an earlier version) read
   * from the rows; null when the registration, its instance or its course version is gone. `check`: with a subject,
   * the registration must still be there.
   */
  private async contextOf(p: ActivityWhere & Pick<LaunchStatementsPayload, 'standard' | 'subject'>, check = false): Promise<LaunchContext | null> {
    if (p.subject && !check) return this.subjectContext(p, p.subject);
    return this.launchContext(await this.contextRows(p), p);
  }

  private subjectContext(p: ActivityWhere & Pick<LaunchStatementsPayload, 'standard'>, subject: StatementSubject): LaunchContext {
    return { ...subject, publicUrl: this.config.publicUrl, activityId: p.activityId, instance: p.instance, standard: p.standard };
  }

  private authority(appId: string): Json {
    return { objectType: 'Agent', name: 'LCDS player', account: { homePage: this.credentials.endpoint(appId), name: appId } };
  }

  /** What a launch's statements name: the registration and the course version its instance runs (asked of the registrations module). */
  private async contextRows(p: ActivityWhere): Promise<ContextRows> {
    const reg = await this.registrations.registration(p.appId, p.registrationId);
    const version = reg ? await this.registrations.versionOf({ appId: p.appId, registrationId: p.registrationId, instance: p.instance }) : null;
    return { reg, version };
  }

  /** Null when the registration, its instance or its course version is gone. */
  private launchContext({ reg, version }: ContextRows, p: ActivityWhere & Pick<LaunchStatementsPayload, 'standard' | 'subject'>): LaunchContext | null {
    if (p.subject) return reg ? this.subjectContext(p, p.subject) : null;
    if (!reg || !version) return null;
    const launchable = version.package?.launchables.find((a) => a.id === p.activityId);
    const name = [reg.learnerFirstName, reg.learnerLastName].filter((x) => x).join(' ');
    return {
      publicUrl: this.config.publicUrl,
      courseId: reg.courseId,
      courseTitle: version.title,
      activityId: p.activityId,
      activityTitle: launchable?.title ?? p.activityId,
      learner: { id: reg.learnerId, ...(name ? { name } : {}) },
      registration: reg.xapiRegistrationId,
      instance: p.instance,
      standard: p.standard,
    };
  }
}


type ActivityWhere = Pick<LaunchStatementsPayload, 'appId' | 'registrationId' | 'instance' | 'activityId'>;

function activityKey(p: ActivityWhere): string {
  return `${p.appId}\n${p.registrationId}\n${p.instance}\n${p.activityId}`;
}

/** An instance's xapi_reported (ReportedState by activity id); unreadable or absent: nothing reported. */
function parseReported(json: string | null): Record<string, ReportedState> {
  if (!json) return {};
  try {
    const parsed = JSON.parse(json) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, ReportedState>) : {};
  } catch {
    return {};
  }
}

const sameState = (a: ReportedState, b: ReportedState): boolean => a.completion === b.completion && a.success === b.success && a.score === b.score && a.interactions === b.interactions;
