import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { UnauthorizedError } from '../../platform/auth/unauthorized.error';
import { KeyRing } from '../../platform/crypto/keyring';
import { ConflictError, ForbiddenError } from '../../platform/http/domain-errors';
import type { CourseVersion } from '../courses/course-version';
import { CoursesService } from '../courses/courses.service';
import type { LaunchableActivity } from '../courses/packages/package-types';
import { jsonColumn } from '../../platform/database/column-transformers';
import type { InstanceRecord, RegistrationRecord } from '../registrations/registration-records';
import { type InstanceKey, RegistrationProgress } from '../registrations/registration-progress';
import { historyLine, LaunchHistoryLog } from '../registrations/launch-history-log';
import type { ActivityResult } from '../registrations/registration-types';
import { LEARNER_PREFERENCES } from '../xapi/lrs/cmi5-documents';
import { LaunchSessions } from '../xapi/lrs/launch-sessions';
import { LRS_CHALLENGE } from '../xapi/lrs/lrs-auth.guard';
import { LrsLaunchGrant, LrsLaunchTokens } from '../xapi/lrs/lrs-launch-tokens';
import { ifiOf, type Json } from '../xapi/lrs/statement-keys';
import { XapiCredentialsService } from '../xapi/xapi-credentials.service';
import { XapiDocumentsService } from '../xapi/xapi-documents.service';
import { XapiStatementsService } from '../xapi/xapi-statements.service';
import {
  abandonedStatement,
  type Cmi5Au,
  cmi5ActivityId,
  cmi5AuOf,
  CMI5_CATEGORY,
  cmi5LaunchQuery,
  type Cmi5SessionFacts,
  LAUNCH_DATA_STATE,
  launchData,
  launchedStatement,
  type LaunchMode,
  type NewlySatisfied,
  rollUpCmi5,
  satisfiedStatement,
  VERB,
  waivedStatement,
} from './cmi5-launch';
import { type AuRecord, cmi5StatementProblem, type Cmi5SessionState } from './cmi5-rules';
import { PlayerSessionEntity, type PlayerSessionSettings } from './player-session.entity';
import { decodeToken, encodeToken, type FetchClaims, type SessionClaims } from './player-tokens';
import { findActivity, formatTracked, parseIsoDuration, trackedSeconds } from './scorm-runtime';
import { xapiLearnerActor } from './xapi-launch';

/** Changes the tree of an instance from statements and stores it like a commit (RegistrationProgress.applyStatementProgress); false: nothing changed. */
export type StatementProgressStore = (where: InstanceKey, change: (tree: ActivityResult) => { completedAt: Date | null; seconds?: number; ended?: boolean } | false, launchHistoryId?: string | null) => Promise<boolean>;

/** A statement that changes the AU's record: a result (completed, passed, failed, a waiver) or a session's duration. */
interface CmiResult {
  verb: string;
  at: Date;
  scaled?: number;
  /** terminated: the session's duration. */
  seconds?: number;
}

/** What the fetch URL answers (cmi5 8.2). */
export type FetchAnswer = { 'auth-token': string } | { 'error-code': '1' | '2' | '3'; 'error-text': string };

/** The AUs of a cmi5 course version, by publisher id. */
export const ausOf = (launchables: readonly LaunchableActivity[]): Map<string, Cmi5Au> => new Map(launchables.map((l) => [l.id, cmi5AuOf(l)]));

/** A statement in the history log: its verb (last segment) and id. */
const statementLabel = (s: Record<string, Json>): string => {
  /* eslint-disable-next-line @typescript-eslint/no-unsafe-member-access -- statements are free-form JSON */
  const verb: unknown = s.verb?.id;
  return `${typeof verb === 'string' ? (verb.split('/').pop() ?? verb) : '(no verb)'} ${typeof s.id === 'string' ? s.id : '(no id)'}`;
};

/** Applies a cmi5 defined result statement (completed, passed, failed) or a waiver to the AU's node. */
function applyResult(node: ActivityResult, verb: string, scaled: number | undefined): void {
  if (verb === VERB.completed || verb === VERB.waived) {
    node.activityCompletion = 'COMPLETED';
    node.completionAmount = { scaled: 1 };
  }
  if (verb === VERB.passed || verb === VERB.waived) node.activitySuccess = 'PASSED';
  if (verb === VERB.failed && node.activitySuccess !== 'PASSED') node.activitySuccess = 'FAILED';
  if (verb === VERB.waived) node.cmi5 = { ...node.cmi5, waived: true };
  if (scaled !== undefined) node.score = { scaled };
  if (node.attempts === 0) node.attempts = 1;
}

/**
 * The LMS side of cmi5 sessions: starts a session at each launch of an AU (LMS.LaunchData, learner preferences,
 * launched; abandoned for a session that ended without terminated), answers the fetch URL once, checks the AU's
 * statements against the cmi5 rules (LaunchSessions handler of the LRS), and records progress from them with the
 * LMS's satisfied statements.
 */
@Injectable()
export class Cmi5Runtime implements OnModuleInit {
  private progress: StatementProgressStore | null = null;

  constructor(
    @InjectRepository(PlayerSessionEntity) private readonly sessions: Repository<PlayerSessionEntity>,
    private readonly registrations: RegistrationProgress,
    private readonly courses: CoursesService,
    private readonly statementsService: XapiStatementsService,
    private readonly documents: XapiDocumentsService,
    private readonly credentials: XapiCredentialsService,
    private readonly lrsTokens: LrsLaunchTokens,
    private readonly launchSessions: LaunchSessions,
    private readonly keys: KeyRing,
    private readonly historyLog: LaunchHistoryLog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.launchSessions.register({
      live: (grant) => this.live(grant),
      statements: (grant, list, store) => this.statements(grant, list, store),
      documentRead: (grant, kind, id) => this.documentRead(grant, kind, id),
      logged: (grant, list, outcome, ids) => this.logged(grant, list, outcome, ids),
    });
  }

  /** The player registers how statement progress is stored (it owns the registrations' progress updates). */
  registerProgressStore(store: StatementProgressStore): void {
    this.progress = store;
  }

  /** The LMS's activity id of a course, block or AU of a course (the same for every version and registration). */
  activityId(appId: string, courseId: string, kind: 'course' | 'block' | 'au', publisherId: string): string {
    return cmi5ActivityId(this.config.publicUrl, appId, courseId, kind, publisherId);
  }

  endpoint(appId: string): string {
    return `${this.config.publicUrl}/lrs/${encodeURIComponent(appId)}`;
  }

  /** The session token of a player session (the player page's URLs), as the player issued it. */
  private sessionToken(sessionId: string, expiresAt: Date): string {
    return encodeToken(this.keys, { t: 'session', id: sessionId, exp: Math.floor(expiresAt.getTime() / 1000) } satisfies SessionClaims);
  }

  /** Where the AU sends the learner when it is done (LMS.LaunchData returnURL). */
  returnUrl(sessionId: string, expiresAt: Date): string {
    return `${this.config.publicUrl}/player/s/${this.sessionToken(sessionId, expiresAt)}/return`;
  }

  /** The cmi5 launch parameters of a session's AU (cmi5 8.1): the LRS, the one-time fetch URL, actor, registration, activity id. */
  launchQuery(appId: string, sessionId: string, expiresAt: Date, state: Cmi5SessionState): string {
    const fetchToken = encodeToken(this.keys, { t: 'cmi5-fetch', id: sessionId, c: state.id, exp: Math.floor(expiresAt.getTime() / 1000) } satisfies FetchClaims);
    return cmi5LaunchQuery({ endpoint: this.endpoint(appId), fetch: `${this.config.publicUrl}/player/cmi5/fetch/${fetchToken}`, actor: state.actor, registration: state.registration, activityId: state.activityId });
  }

  /** The learner of a registration as the actor of the LMS's statements (`Last, First`, as launches name them). */
  private learnerActor(reg: RegistrationRecord) {
    return xapiLearnerActor(this.config.publicUrl, { id: reg.learnerId, name: [reg.learnerLastName, reg.learnerFirstName].filter((x) => x).join(', ') });
  }

  private authority(appId: string): Json {
    return { objectType: 'Agent', account: { homePage: this.credentials.endpoint(appId), name: appId } };
  }

  private async issue(appId: string, statements: Array<Record<string, Json>>): Promise<void> {
    if (statements.length > 0) await this.statementsService.storeStatements(appId, statements, this.authority(appId));
  }

  /**
   * Starts the cmi5 session of one launch of an AU: ends the sessions of the registration that are still open
   * (abandoned), issues the satisfied statements the launch itself caused (NotApplicable AUs), writes LMS.LaunchData
   * and the learner's preferences (when the link names a language and the learner has none), then the launched
   * statement. Returns the session's state, kept with the player session.
   */
  async start(p: {
    appId: string;
    playerSessionId: string;
    expiresAt: Date;
    /** The registration's instance ('' registrationId: a preview). */
    where: InstanceKey;
    registration: string;
    learner: { id: string; name: string };
    courseId: string;
    launchable: LaunchableActivity;
    launchMode: LaunchMode;
    satisfiedFirst: NewlySatisfied[];
    /** LcdsCmi5StrictMode. */
    strict: boolean;
    culture?: string;
    /** The AU's launch URL for a state (the player composes it: the AU's url, its parameters, the cmi5 ones). */
    launchUrl: (state: Cmi5SessionState) => string;
    now: Date;
  }): Promise<Cmi5SessionState> {
    await this.abandonOpenSessions(p.appId, p.where, p.playerSessionId, p.now);
    const au = cmi5AuOf(p.launchable);
    const actor = xapiLearnerActor(this.config.publicUrl, p.learner);
    const state: Cmi5SessionState = {
      id: randomUUID(),
      auId: p.launchable.id,
      activityId: this.activityId(p.appId, p.courseId, 'au', p.launchable.id),
      registration: p.registration,
      actor,
      launchMode: p.launchMode,
      ...(au.masteryScore !== undefined ? { masteryScore: au.masteryScore } : {}),
      launchedAt: p.now.getTime(),
      ...(p.strict ? { strict: true } : {}),
    };
    const facts: Cmi5SessionFacts = { sessionId: state.id, registration: state.registration, actor, activityId: state.activityId, au, launchMode: p.launchMode };
    await this.issue(p.appId, this.satisfiedStatements(p.appId, p.courseId, facts, p.satisfiedFirst, p.now));
    const agent = ifiOf(actor)!;
    const launchDoc = launchData(facts, this.returnUrl(p.playerSessionId, p.expiresAt));
    await this.documents.write(p.appId, { kind: 'state', activityId: state.activityId, agent, registration: state.registration.toLowerCase() }, LAUNCH_DATA_STATE, { content: Buffer.from(JSON.stringify(launchDoc)), contentType: 'application/json' }, { merge: false, preconditions: {}, requirePrecondition: 'never' });
    if (p.culture) await this.writePreferences(p.appId, agent, p.culture);
    await this.issue(p.appId, [launchedStatement(facts, p.launchUrl(state), p.now)]);
    return state;
  }

  private async writePreferences(appId: string, agent: string, culture: string): Promise<void> {
    const scope = { kind: 'agent' as const, agent };
    const existing = await this.documents.get(appId, scope, LEARNER_PREFERENCES).catch(() => null);
    if (existing) return;
    const doc = { languagePreference: culture, audioPreference: 'on' };
    await this.documents.write(appId, scope, LEARNER_PREFERENCES, { content: Buffer.from(JSON.stringify(doc)), contentType: 'application/json' }, { merge: false, preconditions: {}, requirePrecondition: 'never' }).catch(() => undefined);
  }

  private satisfiedStatements(appId: string, courseId: string, facts: Pick<Cmi5SessionFacts, 'sessionId' | 'registration' | 'actor'>, list: NewlySatisfied[], at: Date): Array<Record<string, Json>> {
    return list.map((n, i) => satisfiedStatement(facts, { kind: n.kind, publisherId: n.publisherId, activityId: this.activityId(appId, courseId, n.kind, n.publisherId) }, new Date(at.getTime() + i)));
  }

  /** Abandons the open cmi5 sessions of a registration instance (other player sessions, or this one's previous AU). */
  private async abandonOpenSessions(appId: string, where: InstanceKey, keepId: string, now: Date): Promise<void> {
    const rows = where.registrationId
      ? await this.sessions.findBy({ appId, registrationId: where.registrationId, instance: where.instance })
      : await this.sessions.findBy({ id: keepId });
    for (const row of rows) await this.abandon(row, now);
  }

  /** Issues the abandoned statement of a player session's cmi5 session if it is still open (no terminated); true if it did. */
  async abandon(row: PlayerSessionEntity, now = new Date()): Promise<boolean> {
    const state = row.settings?.cmi5;
    if (!row.settings || !state || state.terminated || state.abandoned) return false;
    const claimed = await this.updateState(row.id, state.id, (cur) => (cur.terminated || cur.abandoned ? null : { ...cur, abandoned: true }));
    if (!claimed.changed) return false;
    const version = await this.courseOf(row);
    const au = version ? cmi5AuOf(version.launchables.find((l) => l.id === state.auId) ?? { id: state.auId, title: '', href: '', data: {} }) : cmi5AuOf({ id: state.auId, title: '', href: '', data: {} });
    const facts: Cmi5SessionFacts = { sessionId: state.id, registration: state.registration, actor: state.actor, activityId: state.activityId, au, launchMode: state.launchMode };
    await this.issue(row.appId, [abandonedStatement(facts, new Date(state.launchedAt), now)]);
    return true;
  }

  /** The course id and launchables of a player session's course version. */
  private async courseOf(row: Pick<PlayerSessionEntity, 'appId' | 'registrationId' | 'instance' | 'settings'>): Promise<{ courseId: string; launchables: LaunchableActivity[] } | null> {
    const preview = row.settings?.preview;
    const version = preview
      ? await this.courses.findVersion(row.appId, preview.courseId, preview.version)
      : await this.registrations.versionOf({ appId: row.appId, registrationId: row.registrationId, instance: row.instance });
    return version?.package ? { courseId: version.courseId, launchables: version.package.launchables } : null;
  }

  private async courseIdOf(appId: string, registrationId: string): Promise<string | null> {
    return this.registrations.courseIdOf(appId, registrationId);
  }

  /**
   * Changes the state of a cmi5 session if its player session still runs it: a compare-and-set on the stored settings
   * text, so a concurrent change (the player switching AU, another request of the AU) is never overwritten. `change`
   * returns null for no change. `changed` false: no change, or the player session runs another cmi5 session now.
   */
  private async updateState(playerSessionId: string, cmi5Id: string, change: (state: Cmi5SessionState) => Cmi5SessionState | null): Promise<{ changed: boolean }> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const raw = await this.sessions.createQueryBuilder('s').select('s.settings', 'settings').where('s.id = :id', { id: playerSessionId }).getRawOne<{ settings: string | null }>();
      const settings = raw?.settings ? (jsonColumn.from(raw.settings) as PlayerSessionSettings) : null;
      const state = settings?.cmi5;
      if (!settings || !state || state.id !== cmi5Id) return { changed: false };
      const next = change(state);
      if (!next) return { changed: false };
      const res = await this.sessions.createQueryBuilder().update().set({ settings: { ...settings, cmi5: next } }).where('id = :id AND settings = :old', { id: playerSessionId, old: raw!.settings }).execute();
      if (res.affected) return { changed: true };
    }
    throw new ConflictError('The cmi5 session is being changed by other requests; retry');
  }

  /** The fetch URL (cmi5 8.2): the auth token of the session, once; later calls answer error-code 1. */
  async fetch(token: string): Promise<FetchAnswer> {
    const claims = decodeToken<FetchClaims>(this.keys, token, 'cmi5-fetch');
    if (claims === 'malformed') return { 'error-code': '3', 'error-text': 'The fetch URL is not valid.' };
    if (claims === 'expired') return { 'error-code': '2', 'error-text': 'The session of this fetch URL has expired.' };
    const row = await this.sessions.findOneBy({ id: claims.id });
    const state = row?.settings?.cmi5;
    if (!row?.settings || !state || state.id !== claims.c || state.terminated || state.abandoned) return { 'error-code': '2', 'error-text': 'The session of this fetch URL is over.' };
    const claimed = await this.updateState(row.id, state.id, (cur) => (cur.fetched ? null : { ...cur, fetched: true }));
    if (!claimed.changed) return { 'error-code': '1', 'error-text': 'The authorization token has already been returned.' };
    const expiresInSeconds = Math.max(1, Math.floor((row.expiresAt.getTime() - Date.now()) / 1000));
    const minted = this.lrsTokens.mint(row.appId, {
      registration: state.registration,
      actor: state.actor,
      expiresInSeconds,
      // The AU's activity profiles: under the LMS's AU id, or its publisher's id (the grouping of its statements).
      activities: [state.activityId, state.auId],
      session: { player: row.id, cmi5: state.id },
    });
    return { 'auth-token': minted.authToken };
  }

  /** The session of a cmi5 launch token, while it is open; 401 once it terminated, was abandoned, or the player moved on. */
  private async openSession(grant: LrsLaunchGrant): Promise<{ row: PlayerSessionEntity; state: Cmi5SessionState }> {
    const row = grant.session ? await this.sessions.findOneBy({ id: grant.session.player }) : null;
    const state = row?.settings?.cmi5;
    if (!row || !state || state.id !== grant.session?.cmi5 || state.terminated || state.abandoned || row.expiresAt.getTime() <= Date.now()) {
      throw new UnauthorizedError('The cmi5 session of this launch token is over.', LRS_CHALLENGE);
    }
    return { row, state };
  }

  async live(grant: LrsLaunchGrant): Promise<void> {
    await this.openSession(grant);
  }

  /** The AU read its learner's preferences (cmi5 11.0.0.0-3: it must, before initialized). */
  private async documentRead(grant: LrsLaunchGrant, kind: string, id: string): Promise<void> {
    if (kind !== 'agent' || id !== LEARNER_PREFERENCES) return;
    const { row, state } = await this.openSession(grant);
    await this.log(row, historyLine('lrs', `read agent profile ${LEARNER_PREFERENCES}`));
    if (!state.preferencesRead) await this.updateState(row.id, state.id, (cur) => (cur.preferencesRead ? null : { ...cur, preferencesRead: true }));
  }

  /**
   * The AU's statements: each checked against the session's cmi5 rules (403 naming the rule it breaks), stored, then
   * the session's state and the registration's progress follow them; an AU that becomes satisfied makes the LMS
   * issue the satisfied statements of its blocks and course (in the same request, so they come before the AU's next).
   */
  async statements(grant: LrsLaunchGrant, list: Array<Record<string, Json>>, store: () => Promise<string[]>): Promise<string[]> {
    const { row, state } = await this.openSession(grant);
    const where = { appId: row.appId, registrationId: row.registrationId, instance: row.instance };
    const tree = row.registrationId ? await this.registrations.treeOf(where) : null;
    const node = tree ? findActivity(tree, state.auId) : null;
    const record: AuRecord = node ?? { activityCompletion: 'UNKNOWN', activitySuccess: 'UNKNOWN' };
    const next = structuredClone(state);
    const results: CmiResult[] = [];
    const lines: string[] = [];
    for (const s of list) {
      const lapses: string[] = [];
      const problem = cmi5StatementProblem(next, record, s, lapses);
      if (problem) {
        await this.log(row, lines.join('') + historyLine('lrs', `statement ${statementLabel(s)}: refused: ${problem}`));
        throw new ForbiddenError(`cmi5: the statement is refused: ${problem}`);
      }
      lines.push(historyLine('lrs', `statement ${statementLabel(s)}: accepted`), ...lapses.map((l) => historyLine('cmi5', `lapse of the AU (accepted; LcdsCmi5StrictMode refuses it): ${l}`)));
      /* eslint-disable @typescript-eslint/no-unsafe-member-access -- checked by cmi5StatementProblem */
      const verb = String(s.verb?.id);
      const defined = Array.isArray(s.context?.contextActivities?.category) && (s.context.contextActivities.category as Json[]).some((c: Json) => c?.id === CMI5_CATEGORY);
      const scaled: unknown = s.result?.score?.scaled;
      if (defined && (verb === VERB.completed || verb === VERB.passed || verb === VERB.failed)) results.push({ verb, at: new Date(String(s.timestamp)), ...(typeof scaled === 'number' ? { scaled } : {}) });
      // The session's duration (cmi5 9.5.4.1: terminated carries the whole session's) is the AU's tracked time.
      // terminated ends the launch: its exit time, even without a duration.
      if (defined && verb === VERB.terminated) {
        const seconds = typeof s.result?.duration === 'string' ? parseIsoDuration(String(s.result.duration)) : null;
        results.push({ verb, at: new Date(String(s.timestamp)), seconds: seconds ?? 0 });
      }
      /* eslint-enable @typescript-eslint/no-unsafe-member-access */
    }
    const ids = await store();
    await this.log(row, lines.join(''));
    // The state moves on from what is stored now (another request of the AU may have moved it meanwhile): the same
    // rules applied to it give the transitions (initialized, terminated, verbs sent) of these statements.
    // Statements that move nothing (the AU's own, cmi5-allowed ones) write nothing: no contention with the AU's others.
    await this.updateState(row.id, state.id, (cur) => {
      const moved = structuredClone(cur);
      for (const st of list) cmi5StatementProblem(moved, record, st);
      return JSON.stringify(moved) === JSON.stringify(cur) ? null : moved;
    });
    if (results.length > 0 && row.settings?.tracking && row.registrationId) {
      const course = await this.courseOf(row);
      if (course) await this.record({ appId: row.appId, registrationId: row.registrationId, instance: row.instance }, course, next, results, row.launchHistoryId);
    }
    return ids;
  }

  /** xAPI (TinCan) launches that capture history: the statements their content sent with the launch token, and what became of them. */
  private async logged(grant: LrsLaunchGrant, list: Array<Record<string, Json>>, outcome: string, ids: string[] = []): Promise<void> {
    const row = grant.log ? await this.sessions.findOneBy({ id: grant.log }) : null;
    if (row) await this.log(row, list.map((s, i) => historyLine('lrs', `statement ${statementLabel(ids[i] ? { ...s, id: ids[i] } : s)}: ${outcome}`)).join(''));
  }

  /** Appends lines to the history log of the player session's launch, if it captures the runtime. */
  private async log(row: PlayerSessionEntity, text: string): Promise<void> {
    if (text && row.launchHistoryId && row.settings?.history?.rte) await this.historyLog.append(row, text);
  }

  /**
   * A fresh instance of a cmi5 registration (RegistrationsService initializer): moveOn is evaluated at the time of
   * registration (cmi5 9.3.x, moveOn), so NotApplicable AUs are satisfied now, and with them the blocks and the
   * course they complete, in the tree and the instance's summary alike. Once the instance is stored, the LMS issues
   * the satisfied statements of those blocks and the course (in a session of their own: no AU was launched).
   */
  initialProgress(inst: InstanceRecord, version: CourseVersion, now: Date): (() => Promise<void>) | null {
    const tree = inst.activityDetails;
    if (version.learningStandard !== 'CMI5' || !tree) return null;
    const newly = rollUpCmi5(tree, ausOf(version.package?.launchables ?? []));
    if (tree.activityCompletion === 'COMPLETED') {
      inst.completion = 'COMPLETED';
      inst.completionAmount = 1;
      inst.completedAt = now;
    }
    inst.success = tree.activitySuccess;
    if (newly.length === 0) return null;
    return async () => {
      const reg = await this.registrations.registration(inst.appId, inst.registrationId);
      if (!reg) return;
      const actor = this.learnerActor(reg);
      const facts = { sessionId: randomUUID(), registration: reg.xapiRegistrationId, actor };
      await this.issue(inst.appId, this.satisfiedStatements(inst.appId, reg.courseId, facts, newly, now));
    };
  }

  /** Records result statements (or a waiver) in the registration's tree, and issues the satisfied statements they cause. */
  private async record(
    where: InstanceKey,
    course: { courseId: string; launchables: LaunchableActivity[] },
    state: Pick<Cmi5SessionState, 'id' | 'auId' | 'registration' | 'actor'>,
    results: CmiResult[],
    launchHistoryId?: string | null,
  ): Promise<void> {
    if (!this.progress) return;
    const aus = ausOf(course.launchables);
    let newly: NewlySatisfied[] = [];
    await this.progress(where, (tree) => {
      const node = findActivity(tree, state.auId);
      if (!node) return false;
      let completedAt: Date | null = null;
      let seconds = 0;
      for (const r of results) {
        if (r.seconds !== undefined) {
          node.timeTracked = formatTracked(trackedSeconds(node.timeTracked) + r.seconds);
          seconds += r.seconds;
          continue;
        }
        if (r.verb !== VERB.failed && node.activityCompletion !== 'COMPLETED') completedAt = r.at;
        applyResult(node, r.verb, r.scaled);
      }
      const before = tree.activityCompletion;
      newly = rollUpCmi5(tree, aus);
      // The launch's time is its sessions' durations, and it ends with terminated (cmi5 9.5.4.1: the last statement of a session).
      const ended = results.some((r) => r.verb === VERB.terminated);
      return { completedAt: tree.activityCompletion === 'COMPLETED' && before !== 'COMPLETED' ? (completedAt ?? new Date()) : null, seconds, ended };
    }, launchHistoryId);
    const facts = { sessionId: state.id, registration: state.registration, actor: state.actor };
    await this.issue(where.appId, this.satisfiedStatements(where.appId, course.courseId, facts, newly, new Date()));
  }

  /**
   * Waives an AU of a registration (cmi5 9.3.7): the waived statement (in a session of its own), the AU satisfied, and
   * the satisfied statements of the blocks and course this completes. Not exposed by API V2 (SCORM Cloud has no such
   * operation); 403 when the AU is satisfied already (one waiver per AU and registration).
   */
  async waive(appId: string, registrationId: string, auId: string, reason: string, now = new Date()): Promise<void> {
    const reg = await this.registrations.registration(appId, registrationId);
    const where = { appId, registrationId, instance: reg?.latestInstance ?? 0 };
    const course = reg ? await this.courseOf({ ...where, settings: null }) : null;
    const launchable = course?.launchables.find((l) => l.id === auId);
    if (!reg || !course || !launchable) throw new ForbiddenError('Only an AU of a cmi5 registration can be waived');
    const tree = await this.registrations.treeOf(where);
    const node = tree ? findActivity(tree, auId) : null;
    if (!node || node.cmi5?.waived || (node.cmi5?.satisfied && launchable.data.moveOn !== 'NotApplicable')) throw new ForbiddenError('The AU is satisfied already; it cannot be waived');
    const actor = this.learnerActor(reg);
    const state = { id: randomUUID(), auId, registration: reg.xapiRegistrationId, actor };
    const au = cmi5AuOf(launchable);
    const activityId = this.activityId(where.appId, course.courseId, 'au', auId);
    await this.issue(where.appId, [waivedStatement({ sessionId: state.id, registration: state.registration, actor, activityId, au, launchMode: 'Normal' }, reason, now)]);
    await this.record(where, course, state, [{ verb: VERB.waived, at: now }]);
  }
}
