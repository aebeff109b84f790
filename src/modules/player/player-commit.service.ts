import { RateLimits } from '../../platform/http/rate-limits';
import { setBounded } from '../../platform/bounded-map';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { GroupReader } from '../../platform/database/group-read';
import { padToPowerOfTwo, runHotStatement, sqlOf } from '../../platform/database/hot-statement';
import { jsonColumn } from '../../platform/database/column-transformers';
import { type HistoryCapture, historyLine } from '../registrations/launch-history-log';
import type { ActivityResult, Objective } from '../registrations/registration-types';
import { RegistrationPostbacks } from '../registrations/registration-postbacks';
import { LaunchStatements } from './launch-statements/launch-statements';
import { LiveSession, liveSession, PlayerSessions, progressOf, rollupOf, sessionIdOf } from './player-sessions';
import { learnerPreferenceOf } from './learner-preference';
import { type CommitInstance, type CommitInstanceColumns, commitInstanceJoin, commitInstanceOf, CommitStore } from '../registrations/commit-store';
import { PlayerError } from './player-errors';
import { PlayerSessionEntity, PlayerSessionSettings } from './player-session.entity';
import { scorm12FinishedCmi } from './scorm12-finish';
import { applyEngine, cachedDefinition, definitionOf, engineOf, globalObjectivesOf, navOf, runtimeResultsOf, SequencingNav, serializeEngine } from './player-sequencing';
import { SequencingEngine } from '../sequencing/sequencing-engine';
import { applyPretest, applyTrackingRules, changesState, DEFAULT_PERSIST_ATTEMPTS, DEFAULT_TRACKING_RULES, ruledCmi, sequencingDefinitionFor, shareLearnerPreference, type TrackedState } from './tracking-rules';
import { activityStateOf, findActivity, FlatCmi, formatTracked, rollUp, type RollupRules, rollUpTime, trackedSeconds } from './scorm-runtime';
import type { CourseVersion } from '../courses/course-version';
import { progressSummary } from '../registrations/registration-progress-events';

export interface CommitBody {
  seq: number;
  activityId: string;
  cmi: FlatCmi;
  final?: boolean;
  /** The SCO called LMSInitialize/Initialize (the player page says; other callers: assumed). */
  initialized?: boolean;
  /** SCORM 2004 adl.data: the stores the SCO may write, by target id. */
  sharedData?: Record<string, unknown>;
  /**
   * The page's session ends with this commit, without a navigation request (PlayerRollupRuntimeAtScoUnload NO): it
   * rolls the registration up. Without `cmi`: only that, from what the commits stored.
   */
  end?: boolean;
}

/** What the launch statements report of an activity (status, score, interactions): a commit that leaves it unchanged states nothing. */
const reportedOf = (node: ActivityResult): string =>
  JSON.stringify([node.activityCompletion, node.activitySuccess, node.score?.scaled ?? null, node.runtime?.runtimeInteractions?.length ?? 0]);

/** The history log's lines of an applied commit (rte) and, for the activity's last commit, its exit (control). */
function commitLines(history: HistoryCapture, body: CommitBody, activityId: string, node: ActivityResult, tree: ActivityResult, changed: boolean): string {
  const at = new Date();
  const score = node.score?.scaled !== undefined ? `, score ${node.score.scaled}` : '';
  let text = '';
  // Audit: the commits that changed a status or score (or ended the SCO); the page's log has every Commit() call.
  // Detailed: every commit. A commit that only saves the SCO's place then costs nothing more than without a log.
  if (history.rte === 'detailed' || (history.rte && (changed || body.final === true))) {
    const details = history.rte === 'detailed' ? `; registration ${tree.activityCompletion}/${tree.activitySuccess}, ${Object.keys(body.cmi).length} elements` : '';
    text += historyLine('commit', `${body.seq} applied: activity ${JSON.stringify(activityId)} ${node.activityCompletion}/${node.activitySuccess}${score}${body.final === true ? ', final' : ''}${details}`, at);
  }
  if (history.control && body.final === true) {
    const exit = body.cmi['cmi.exit'] ?? body.cmi['cmi.core.exit'] ?? '';
    text += historyLine('exit', `activity ${JSON.stringify(activityId)}${exit ? ` (exit ${JSON.stringify(exit)})` : ''}${body.initialized === false ? ', never initialized' : ''}: ${node.activityCompletion}/${node.activitySuccess}${score}, tracked ${node.timeTracked ?? ''}`, at);
  }
  return text;
}

/** What a commit stores of the registration's tree: the tree (as JSON) and its summary. */
const treeColumns = (tree: ActivityResult) => ({
  activityDetails: jsonColumn.to(tree) as string,
  completion: tree.activityCompletion,
  success: tree.activitySuccess,
  completionAmount: tree.activityCompletion === 'COMPLETED' ? 1 : (tree.completionAmount?.scaled ?? 0),
  scoreScaled: tree.score?.scaled ?? null,
  totalSeconds: trackedSeconds(tree.timeTracked),
});

/** The registration's status once the tree is rolled up (worked out on a copy: the stored tree waits for its rollup). */
function courseOnceRolledUp(tree: ActivityResult, rules: RollupRules, activityId: string): { registrationCompletion: string; registrationSuccess: string } {
  const copy = structuredClone(tree);
  rollUp(copy, rules, activityId);
  return { registrationCompletion: copy.activityCompletion, registrationSuccess: copy.activitySuccess };
}

/** The live sessions of commits (n of them) joined with the instances they write (tree and commit_seq); both stacks. */
const commitContextSql = (n: number, instance = commitInstanceJoin('s')) => `SELECT s.id, s.app_id, s.registration_id, s.instance, s.launch_history_id, s.expires_at, s.used_at, s.settings,
    ${instance.columns}
  FROM player_session s
  ${instance.join}
  WHERE s.id ${n === 1 ? '= ?' : `IN (${new Array<string>(n).fill('?').join(', ')})`}`;

/** Sessions whose parsed settings a node keeps (the oldest go first). */
const SETTINGS_CACHE_SIZE = 10_000;

/** Most commits' contexts read by one query (under load; alone when idle), and such reads under way at once. */
const CONTEXT_BATCH = { maxBatch: 32, readers: 2 };

interface CommitContextRow extends CommitInstanceColumns {
  id: string;
  app_id: string;
  registration_id: string;
  instance: number | string;
  launch_history_id: string | null;
  expires_at: unknown;
  used_at: unknown;
  settings: string | null;
}

/** The commits of the runtime data the SCO reports: applied to the activity tree, stored through the registrations module's CommitStore. */
@Injectable()
export class PlayerCommitService {
  /** Commit contexts by session id, read together under load. */
  private readonly contexts: GroupReader<CommitContextRow>;
  /** The parsed settings of recent sessions, with the text they were parsed from (see parsedSettings). */
  private readonly settingsByText = new Map<string, { raw: string | null; settings: PlayerSessionSettings | null }>();

  constructor(
    @InjectRepository(PlayerSessionEntity) private readonly sessionRows: Repository<PlayerSessionEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sessions: PlayerSessions,
    private readonly postbacks: RegistrationPostbacks,
    private readonly launchStatements: LaunchStatements,
    private readonly commitStore: CommitStore,
    private readonly limits: RateLimits,
  ) {
    this.contexts = new GroupReader<CommitContextRow>(async (ids) => {
      // Raw SQL on the hot path: the query builder and entity hydration cost more CPU than the query itself.
      const keys = padToPowerOfTwo(ids);
      const rows = await runHotStatement<CommitContextRow[]>(this.dataSource, sqlOf(`commit contexts ${keys.length}`, () => commitContextSql(keys.length)), keys);
      return new Map(rows.map((r) => [r.id, r]));
    }, CONTEXT_BATCH);
  }

  /**
   * Applies one commit of the SCO's data model in one short transaction: the activity's runtime and status, the
   * rolled-up summary, commit_seq, and the launch's history row. Commits are ordered: one whose sequence number is
   * not above the stored commit_seq (a retry, or an older one arriving late) is acknowledged and ignored.
   */
  async commit(token: string, body: CommitBody): Promise<{ applied: boolean; activityCompletion?: string; activitySuccess?: string; nav?: SequencingNav }> {
    let { session, inst } = await this.commitContext(token);
    // LCDS_RATE_LIMIT_PLAYER: a 429 the page retries after Retry-After (the newest commit carries the whole data model).
    if (this.limits.enabled) await this.limits.consume('player', session.appId);
    const s = session.settings;
    if (!Number.isSafeInteger(body.seq) || body.seq < 1) throw new PlayerError(400, 'Bad commit', 'seq must be a positive integer');
    if (body.activityId !== s.activityId) throw new PlayerError(400, 'Bad commit', 'activityId is not the activity of this session');
    if (body.end !== undefined && typeof body.end !== 'boolean') throw new PlayerError(400, 'Bad commit', 'end must be a boolean');
    // Nothing was delivered (PlayerAlwaysFlowToFirstSco NO): no SCO runs, nothing is recorded.
    if (s.undelivered) return { applied: false };
    if (body.end === true && body.cmi === undefined) return s.tracking ? this.endOfSession(token, body.seq, body.activityId) : { applied: false };
    if (typeof body.cmi !== 'object' || body.cmi === null || Array.isArray(body.cmi)) throw new PlayerError(400, 'Bad commit', 'cmi must be an object');
    if (body.sharedData !== undefined && (typeof body.sharedData !== 'object' || body.sharedData === null || Array.isArray(body.sharedData))) {
      throw new PlayerError(400, 'Bad commit', 'sharedData must be an object of adl.data stores by target id');
    }
    if (!s.tracking) return { applied: false };
    const seq = (s.seqBase ?? 0) + body.seq;
    const where = { appId: session.appId, registrationId: session.registrationId, instance: session.instance };
    // MaxPersistRuntimeDataAttempts: tries at storing before a lost race is answered 409 (the page retries it).
    const attempts = s.client?.persistAttempts ?? DEFAULT_PERSIST_ATTEMPTS;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) ({ session, inst } = await this.commitContext(token));
      if (!inst || !inst.activityDetails) throw new PlayerError(410, 'This session has ended', 'The registration no longer exists.');
      if (seq <= inst.commitSeq) return { applied: false };
      const tree = inst.activityDetails;
      const progressBefore = progressSummary(tree);
      const node = findActivity(tree, s.activityId);
      if (!node) throw new PlayerError(410, 'This session has ended', 'The activity is not part of the registration any more.');
      const reported = reportedOf(node);
      // SCORM 1.2: a SCO that ran and finishes without a status is completed (scorm12-finish.ts).
      const cmi = body.final === true && body.initialized !== false && s.standard === '1.2' ? scorm12FinishedCmi(body.cmi) : body.cmi;
      const rules = s.tracked ?? DEFAULT_TRACKING_RULES;
      // PlayerRollupRuntimeAtScoUnload NO: the activity's own status only; its ancestors at the next navigation
      // request (switch of activity) or the session's end.
      const deferred = s.deferRollup === true && body.end !== true;
      const ruled = changesState(s.standard, rules, node.activityCompletion);
      const state: TrackedState = ruled
        ? applyTrackingRules(s.standard, cmi, activityStateOf(s.standard, cmi, node.runtime, s.passing), rules, { completion: node.activityCompletion, success: node.activitySuccess }, s.passing)
        : activityStateOf(s.standard, cmi, node.runtime, s.passing);
      const sessionSeconds = state.sessionSeconds ?? 0;
      const total = (s.baseSeconds ?? 0) + sessionSeconds;
      // cmi.total_time is the attempt's (a new attempt starts from 0); the activity's time counts every attempt.
      node.runtime = { ...state.runtime, totalTime: formatTracked((s.attemptBaseSeconds ?? s.baseSeconds ?? 0) + sessionSeconds), timeTracked: formatTracked(total) };
      const preference = learnerPreferenceOf(s.standard, cmi, state.runtime.learnerPreference);
      if (preference) {
        const changed = rules.globalPreferences && JSON.stringify(preference) !== JSON.stringify(state.runtime.learnerPreference);
        node.runtime.learnerPreference = preference;
        // PlayerMakeStudentPrefsGlobalToCourse: every SCO starts with them.
        if (changed) shareLearnerPreference(tree, preference);
      }
      // No credit (PlayerLaunchCompletedRegsAsNoCredit): the SCO's run-time data is kept, its results are not.
      if (!s.noCredit) {
        node.activityCompletion = state.completion;
        node.activitySuccess = state.success;
        if (state.scoreScaled !== undefined) node.score = { scaled: state.scoreScaled };
        else if (state.scoreDropped) delete node.score;
        node.completionAmount = { scaled: state.completion === 'COMPLETED' ? 1 : Number(state.runtime.progressMeasure ?? 0) || 0 };
      }
      node.timeTracked = formatTracked(total);
      node.suspended = state.suspended;
      if (node.attempts === 0) node.attempts = 1;
      // SCORM 2004: the sequencing engine tracks the activity (its objectives, global objectives) and rolls it up.
      let engine: SequencingEngine | undefined;
      let seqState: string | undefined;
      let globalObjectives: Objective[] | undefined;
      if (s.sequenced && inst.sequencingState) {
        const def = sequencingDefinitionFor((s.seqKey ? cachedDefinition(s.seqKey) : undefined) ?? definitionOf(await this.sequencedVersion(session)), rules);
        engine = engineOf(def, inst.sequencingState);
        const globalsBefore = JSON.stringify(engine.globalObjectives());
        // The attempt's duration (attemptAbsoluteDurationLimit): this session's time (earlier sessions of a resumed attempt are not counted).
        engine.reportRuntime(s.activityId, runtimeResultsOf(ruled ? ruledCmi(body.cmi, state) : body.cmi, sessionSeconds), !deferred);
        if (body.sharedData) engine.writeSharedData(s.activityId, body.sharedData);
        applyEngine(tree, engine);
        seqState = serializeEngine(engine);
        if (JSON.stringify(engine.globalObjectives()) !== globalsBefore) globalObjectives = globalObjectivesOf(engine);
      } else {
        if (rules.firstScoIsPretest && s.standard === '1.2') applyPretest(tree, s.activityId);
        // Deferred: the course's time only (PlayerTimeLimit and the launch history count it).
        if (deferred) rollUpTime(tree);
        else rollUp(tree, rollupOf(session), s.activityId);
      }
      const completion = tree.activityCompletion;
      // The xAPI statements of this commit (ADL SCORM profile), stored in its transaction: only when the commit changed
      // something a statement reports (most commits only move suspend data and location).
      const statements =
        !s.statementsOff && (body.final === true || reportedOf(node) !== reported)
          ? await this.launchStatements.forCommit({ ...where, activityId: s.activityId, standard: s.standard, cmi, final: body.final === true, passing: s.passing, at: new Date(), subject: s.statements, reported: inst.xapiReported, state })
          : null;
      // Everything the answer needs is worked out before the commit waits for its transaction, and the tree goes to the
      // store as its JSON, so that only strings wait with it, not the commit's objects (measured: GC time unchanged under
      // the benchmark's load). The valid requests change only with the tracking state: most commits (location, suspend
      // data) leave it as it was.
      const answer = {
        applied: true,
        activityCompletion: node.activityCompletion,
        activitySuccess: node.activitySuccess,
        // The course's state after this commit: the page's exit actions depend on whether the course is satisfied
        // (deferred rollup: as the rollup will leave it, SCORM 1.2's exit actions being decided now).
        ...(deferred && !engine && s.exit?.actions ? courseOnceRolledUp(tree, rollupOf(session), s.activityId) : { registrationCompletion: completion, registrationSuccess: tree.activitySuccess }),
        ...(engine && seqState !== inst.sequencingState ? { nav: navOf(engine, s.ui?.lookahead) } : {}),
        // PlayerUseMeasureProgressBar: the page's progress bar shows the registration's completion amount.
        ...(s.ui?.measureProgressBar ? { progress: progressOf(tree) } : {}),
      };
      const applied = await this.commitStore.store(where, inst.commitSeq, {
        ...treeColumns(tree),
        suspendedActivityId: state.suspended ? s.activityId : null,
        commitSeq: seq,
        launchHistoryId: session.launchHistoryId,
        launchSeconds: s.launchBaseSeconds !== undefined ? Math.max(0, trackedSeconds(tree.timeTracked) - s.launchBaseSeconds) : sessionSeconds,
        final: body.final === true,
        ...(seqState !== undefined ? { sequencingState: seqState } : {}),
        ...(globalObjectives !== undefined ? { globalObjectives } : {}),
        ...(statements ? { statements: statements.statements, xapiReported: statements.reported } : {}),
        ...(s.history && session.launchHistoryId ? { historyLog: commitLines(s.history, body, s.activityId, node, tree, reportedOf(node) !== reported) } : {}),
        progressBefore,
      });
      if (!applied) continue;
      // After the transaction: the postback job reads the committed state. Sessions launched before the launch
      // resolved the postback target (postbacks undefined) let schedule() find out.
      if (s.postbacks !== false && (!s.postbacksAtExit || body.final === true)) await this.postbacks.schedule(session.appId, session.registrationId, session.instance, s.postbacks === true);
      return answer;
    }
    throw new PlayerError(409, 'Busy', 'The registration is being updated by another session; retry');
  }

  /**
   * PlayerRollupRuntimeAtScoUnload NO: the page's last word when its session ends without a navigation request (the
   * learner left, the one SCO finished): the registration is rolled up from what the commits stored, as a
   * navigation request would have. A session that a navigation request ended (exit all, suspend all) was rolled up
   * by it (suspend all with PlayerInvokeRollupAtSuspendAll NO: not), and stays as it left it.
   */
  private async endOfSession(token: string, pageSeq: number, activityId: string): Promise<{ applied: boolean }> {
    let attempts = 1;
    for (let attempt = 0; attempt < attempts; attempt++) {
      const { session, inst } = await this.commitContext(token);
      const s = session.settings;
      attempts = s.client?.persistAttempts ?? DEFAULT_PERSIST_ATTEMPTS;
      if (!inst || !inst.activityDetails) throw new PlayerError(410, 'This session has ended', 'The registration no longer exists.');
      const seq = (s.seqBase ?? 0) + pageSeq;
      if (seq <= inst.commitSeq) return { applied: false };
      const tree = inst.activityDetails;
      const progressBefore = progressSummary(tree);
      let seqState: string | undefined;
      if (s.sequenced && inst.sequencingState) {
        const engine = engineOf(sequencingDefinitionFor((s.seqKey ? cachedDefinition(s.seqKey) : undefined) ?? definitionOf(await this.sequencedVersion(session)), s.tracked ?? DEFAULT_TRACKING_RULES), inst.sequencingState);
        if (engine.currentActivity === activityId && engine.status(activityId).active) engine.rollUp(activityId);
        applyEngine(tree, engine);
        seqState = serializeEngine(engine);
      } else rollUp(tree, rollupOf(session), activityId);
      const applied = await this.commitStore.store({ appId: session.appId, registrationId: session.registrationId, instance: session.instance }, inst.commitSeq, {
        ...treeColumns(tree),
        suspendedActivityId: findActivity(tree, activityId)?.suspended ? activityId : null,
        commitSeq: seq,
        launchHistoryId: session.launchHistoryId,
        launchSeconds: Math.max(0, trackedSeconds(tree.timeTracked) - (s.launchBaseSeconds ?? 0)),
        final: false,
        ...(seqState !== undefined ? { sequencingState: seqState } : {}),
        progressBefore,
      });
      if (!applied) continue;
      if (s.postbacks !== false) await this.postbacks.schedule(session.appId, session.registrationId, session.instance, s.postbacks === true);
      return { applied: true };
    }
    throw new PlayerError(409, 'Busy', 'The registration is being updated by another session; retry');
  }

  /**
   * The live session of a commit and the instance it writes (activity tree and commit_seq), in one query; the
   * instance is null when it is gone.
   */
  private async commitContext(token: string): Promise<{ session: LiveSession; inst: CommitInstance | null }> {
    const row = await this.contexts.read(sessionIdOf(this.sessions.tokens, token));
    const session = liveSession(row ? this.sessionOfRow(row) : null);
    const inst = row ? commitInstanceOf(row) : null;
    return { session, inst };
  }

  /** A player_session row read by raw SQL, as TypeORM would hydrate it (dates: the driver's own conversion). */
  private sessionOfRow(row: CommitContextRow): PlayerSessionEntity {
    const driver = this.dataSource.driver;
    const columns = this.sessionRows.metadata;
    const date = (property: 'expiresAt' | 'usedAt', value: unknown) => driver.prepareHydratedValue(value, columns.findColumnWithPropertyName(property)!) as Date | null;
    return Object.assign(new PlayerSessionEntity(), {
      id: row.id,
      appId: row.app_id,
      registrationId: row.registration_id,
      instance: Number(row.instance),
      launchHistoryId: row.launch_history_id,
      expiresAt: date('expiresAt', row.expires_at)!,
      usedAt: date('usedAt', row.used_at),
      settings: this.parsedSettings(row.id, row.settings),
    });
  }

  /**
   * A session's settings, parsed once while their text stays the same (a session commits every few seconds with the
   * same settings; an activity switch changes them). The object is shared: commits only read it.
   */
  private parsedSettings(sessionId: string, raw: string | null): PlayerSessionSettings | null {
    const known = this.settingsByText.get(sessionId);
    if (known && known.raw === raw) return known.settings;
    const settings = jsonColumn.from(raw) as PlayerSessionSettings | null;
    setBounded(this.settingsByText, sessionId, { raw, settings }, SETTINGS_CACHE_SIZE);
    return settings;
  }

  /** The course version a sequenced session runs (its definition is cached by content prefix; this reads the row). */
  private async sequencedVersion(session: LiveSession): Promise<CourseVersion> {
    return (await this.sessions.sessionContext(session)).version;
  }
}
