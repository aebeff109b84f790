import { leanColumns, leanRead, type LeanStatement, leanUpdate } from '../../platform/database/lean-read';
import { runLeanStatement, sqlOf } from '../../platform/database/hot-statement';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, Repository } from 'typeorm';
import { inOneSqliteTransaction } from '../../platform/database/sqlite-transactions';
import { KeyRing } from '../../platform/crypto/keyring';
import { CoursesService } from '../courses/courses.service';
import type { LaunchableActivity } from '../courses/packages/package-types';
import { RegistrationProgress } from '../registrations/registration-progress';
import { type HistoryCapture, historyCaptureOf, historyLine, HISTORY_SETTING_IDS } from '../registrations/launch-history-log';
import type { ActivityResult } from '../registrations/registration-types';
import { POSTBACK_SETTING_IDS, RegistrationPostbacks } from '../registrations/registration-postbacks';
import { settingCourseRef } from '../registrations/registrations.service';
import { SettingsService, SettingTarget } from '../settings/settings.service';
import { LaunchStatements } from './launch-statements/launch-statements';
import type { StatementSubject } from './launch-statements/scorm-profile';
import { type NewlySatisfied, rollUpCmi5 } from './cmi5-launch';
import { ausOf } from './cmi5-runtime';
import { PlayerCmi5Start } from './cmi5-session-start';
import { mediaOf, passingOf, PlayerSessions, PREVIEW_LEARNER, standardVersion, summaryOf } from './player-sessions';
import { ATTEMPT_SETTING_IDS, attemptSecondsOf, launchesAsNoCredit, resetsRuntimeData, resetTimingOf, startNewAttempt } from './attempt-data';
import { PlayerError } from './player-errors';
import { LAUNCH_SETTING_IDS, launchSettingsOf } from './launch-settings';
import { PlayerSessionEntity, PlayerSessionSettings } from './player-session.entity';
import { PLAYER_UI_SETTING_IDS, playerUiOf } from './player-ui';
import { decodeToken, LaunchClaims } from './player-tokens';
import { applyEngine, definitionOf, engineOf, globalObjectivesOf, isSequenced, navOf, serializeEngine } from './player-sequencing';
import { type NavigationRequest, SequencingEngine } from '../sequencing/sequencing-engine';
import { CLIENT_SETTING_IDS, clientSettingsOf, EXPLICIT_CLIENT_SETTING_IDS, sequencingDefinitionFor, TRACKING_SETTING_IDS, trackingRulesOf } from './tracking-rules';
import { findActivity, ROLLUP_SETTING_IDS, rollUp, rollupRulesOf, trackedSeconds } from './scorm-runtime';
import type { CourseVersion } from '../courses/course-version';
import type { RegistrationRecord } from '../registrations/registration-records';

/** What the launch statements of a session name: its course, activity and learner as they are at launch. */
const statementSubjectOf = (reg: RegistrationRecord, version: CourseVersion, launchable: LaunchableActivity): StatementSubject => {
  const name = [reg.learnerFirstName, reg.learnerLastName].filter((x) => x).join(' ');
  return { courseId: reg.courseId, courseTitle: version.title, activityTitle: launchable.title ?? launchable.id, learner: { id: reg.learnerId, ...(name ? { name } : {}) }, registration: reg.xapiRegistrationId };
};

/** cmi5: refuse the AU's lapses that cmi5 does not let an LMS refuse (LCDS's own setting, for AU developers). */
const CMI5_STRICT_SETTING = 'LcdsCmi5StrictMode';

/** The history log's first line: what the launch runs (detailed: also the course, the learner and the attempt). */
function launchLine(history: HistoryCapture, version: CourseVersion, reg: RegistrationRecord, launchable: LaunchableActivity, node: ActivityResult | null, sequenced: boolean, at: Date): string {
  const resumed = node?.runtime?.exit === 'suspend';
  const parts = [`activity ${JSON.stringify(launchable.id)}`, version.learningStandard, resumed ? 'resuming a suspended attempt' : 'new attempt'];
  if (sequenced) parts.push('delivered by the sequencer');
  if (history.control === 'detailed') parts.push(`course ${JSON.stringify(version.courseId)} version ${version.version}`, `learner ${JSON.stringify(reg.learnerId)}`, `attempts ${node?.attempts ?? 0}`);
  return historyLine('launch', parts.join(', '), at);
}

/** Opens a player session from a launch link: a registration's launch (tracked) or a course preview. */
@Injectable()
export class PlayerLaunchService {
  constructor(
    @InjectRepository(PlayerSessionEntity) private readonly sessionRows: Repository<PlayerSessionEntity>,
    private readonly sessions: PlayerSessions,
    private readonly progress: RegistrationProgress,
    private readonly courses: CoursesService,
    private readonly keys: KeyRing,
    private readonly postbacks: RegistrationPostbacks,
    private readonly settings: SettingsService,
    private readonly launchStatements: LaunchStatements,
    private readonly cmi5Start: PlayerCmi5Start,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /**
   * Claims a launch link (once) and opens a player session; returns the session token and the launchAuth the link
   * was issued with (null: none, nothing to bind). On SQLite the claim, the reads and the launch's writes run in one
   * transaction: one durable commit (an fsync) for the player link, not two. A refusal after the claim (a time limit,
   * a course gone) commits too: the link stays used, as when the claim was a statement of its own.
   */
  async launch(token: string): Promise<{ token: string; launchAuth: PlayerSessionEntity['launchAuth'] }> {
    const claims = decodeToken<LaunchClaims>(this.keys, token, 'launch');
    if (claims === 'malformed') throw new PlayerError(400, 'This link is not valid', 'The launch link is damaged or incomplete. Ask for a new link to start the course.');
    if (claims === 'expired') throw new PlayerError(410, 'This link has expired', 'The launch link has expired. Go back to where you found it and launch the course again.');
    const out = await inOneSqliteTransaction(this.dataSource, async () => {
      try {
        return await this.claim(claims);
      } catch (err) {
        if (err instanceof PlayerError) return { refused: err };
        throw err;
      }
    });
    if ('refused' in out) throw out.refused;
    return out;
  }

  /**
   * The claim (the link's row marked used, once: on MariaDB/MySQL too, the UPDATE … WHERE used_at IS NULL decides
   * between two claims at once) and the session it opens. Awaits nothing but the database (it may run in one SQLite
   * transaction).
   */
  private async claim(claims: LaunchClaims): Promise<{ token: string; launchAuth: PlayerSessionEntity['launchAuth'] }> {
    const now = new Date();
    const claimed = await leanUpdate(this.sessionRows, ['usedAt'], ['id'], ['usedAt']).run({ usedAt: now }, { id: claims.id });
    if (!claimed) {
      const known = await this.sessionRows.findOneBy({ id: claims.id });
      if (!known) throw new PlayerError(410, 'This link is no longer valid', 'The registration of this launch link no longer exists.');
      throw new PlayerError(410, 'This link has already been used', 'Each launch link opens the course once. Go back to where you found it and launch the course again.');
    }
    // A plain link's row holds nothing its claims lack: not read again.
    const row = claims.plain ? null : await leanRead(this.sessionRows, ['id']).one({ id: claims.id });
    const launchAuth = row?.launchAuth ?? null;
    const token = await this.open(claims, row?.settings ?? null, now);
    return { token, launchAuth };
  }

  private async open(claims: LaunchClaims, issued: PlayerSessionSettings | null, now: Date): Promise<string> {
    if (issued?.preview) return this.launchPreview(claims, issued, issued.preview);
    const state = await this.progress.launchState(claims.app, claims.reg, claims.inst);
    const reg = state?.reg;
    const inst = state?.inst;
    if (!state || !reg || !inst || !inst.activityDetails) throw new PlayerError(410, 'This course is no longer available', 'The registration of this launch link no longer exists.');
    const version = await this.courses.findVersion(claims.app, reg.courseId, inst.courseVersion);
    if (!version) throw new PlayerError(410, 'This course is no longer available', 'The course of this registration has been deleted.');
    const scormVersion = this.sessions.runtimeOf(version);
    // The effective settings the session's commits need, read once here (one query), not on every commit.
    const settingTarget: SettingTarget = { level: 'registrationInstance', registrationId: reg.id, instance: inst.instance, course: settingCourseRef(version) };
    const values = await this.settings.effective(claims.app, settingTarget, [...ROLLUP_SETTING_IDS, ...POSTBACK_SETTING_IDS, ...ATTEMPT_SETTING_IDS, ...HISTORY_SETTING_IDS, CMI5_STRICT_SETTING, ...TRACKING_SETTING_IDS, ...CLIENT_SETTING_IDS, ...LAUNCH_SETTING_IDS]);
    // The settings that change the page only when set somewhere (the UI's and PlayerValidateInteractionResponses), one query.
    const explicit = await this.settings.explicit(claims.app, settingTarget, [...PLAYER_UI_SETTING_IDS, ...EXPLICIT_CLIENT_SETTING_IDS]);
    const ui = playerUiOf(explicit);
    const tracked = trackingRulesOf(values);
    // SCORM 2004: the sequencing engine decides what the session starts with (resume all after suspend all, else start).
    const sequenced = isSequenced(version);
    const launchSettings = launchSettingsOf(values, standardVersion(version.learningStandard) ?? undefined);
    let engine: SequencingEngine | undefined;
    let resumed: string | undefined;
    let launchable: LaunchableActivity;
    // PlayerAlwaysFlowToFirstSco NO: the rules delivered nothing; the learner chooses from the table of contents.
    let undelivered = false;
    if (sequenced) {
      const where = { appId: claims.app, registrationId: claims.reg, instance: claims.inst };
      engine = engineOf(sequencingDefinitionFor(definitionOf(version), tracked), state.sequencingState, await this.progress.priorGlobals(where));
      resumed = engine.suspendedActivity;
      const delivered = this.startDelivery(engine, claims.startSco, launchSettings.flowToFirstSco);
      undelivered = delivered === null && !launchSettings.flowToFirstSco && navOf(engine).choice.length > 0;
      launchable = undelivered ? this.sessions.requireActivity(version) : this.sessions.requireActivity(version, delivered ?? undefined, true);
      if (undelivered || engine.suspendedActivity !== undefined || resumed !== launchable.id) resumed = undefined;
    } else launchable = this.sessions.requireActivity(version, claims.startSco ?? inst.suspendedActivityId ?? undefined);

    const rollup = rollupRulesOf(scormVersion, values);
    const resetRuntime = resetsRuntimeData(version.learningStandard, mediaOf(version) !== null) ? resetTimingOf(values) : undefined;
    const noCredit = launchesAsNoCredit(version.learningStandard, values, inst);
    const history = claims.tracking ? historyCaptureOf(values) : undefined;
    const timeLimit = claims.tracking ? launchSettings.exit.timeLimit : undefined;
    if (timeLimit && (await this.progress.timeSpent({ appId: claims.app, registrationId: reg.id, instance: inst.instance })) >= timeLimit) {
      throw new PlayerError(403, 'The time for this course has run out', `This course may be taken for ${Math.round(timeLimit / 60)} minutes in all, and that time has been spent.`);
    }
    const statements = claims.tracking && launchSettings.statements && version.learningStandard !== 'XAPI';
    const node = findActivity(inst.activityDetails, launchable.id);
    const baseSeconds = trackedSeconds(node?.timeTracked);
    let launchHistoryId: string | null = null;
    const cmi5 = version.learningStandard === 'CMI5';
    let satisfiedFirst: NewlySatisfied[] = [];
    // The launch's writes (launch history, instance, session, other sessions, launch statements): on SQLite in the
    // claim's transaction (launch above).
    const activityDetails = inst.activityDetails;
    /** The launch's writes (given the statements to run with them), when it is tracked. */
    let startLaunch: ((also: LeanStatement[]) => Promise<void>) | undefined;
    if (claims.tracking) {
      launchHistoryId = randomUUID();
      const resuming = node?.runtime?.exit === 'suspend';
      let wiped = false;
      if (engine) {
        // A delivery that began a new attempt (the engine's count moved on from the tree's) starts on fresh data.
        const before = node?.attempts ?? 0;
        if (node && engine.status(launchable.id).attempts > before) startNewAttempt(node, resetRuntime, before, true, true);
        applyEngine(activityDetails, engine);
      } else {
        if (node && !resuming) {
          wiped = startNewAttempt(node, resetRuntime, node.attempts, noCredit);
          node.attempts += 1;
        }
        // cmi5: the launch itself may satisfy AUs (moveOn NotApplicable), and with them blocks and the course.
        if (cmi5) satisfiedFirst = rollUpCmi5(activityDetails, ausOf(version.package?.launchables ?? []));
        else if (node) rollUp(activityDetails, rollup);
      }
      const tree = activityDetails;
      // The summary as the launch leaves it (the engine's delivery, a new attempt's wiped score): the registration's
      // and the launch history's.
      const summary = engine || wiped || cmi5 ? summaryOf(tree, inst.completedAt, now) : null;
      const firstLine = !history?.control ? null : undelivered ? historyLine('launch', 'nothing delivered at start (PlayerAlwaysFlowToFirstSco NO): the learner chooses from the table of contents', now) : launchLine(history, version, reg, launchable, node, engine !== undefined, now);
      const id = launchHistoryId;
      const change = {
        activityDetails: activityDetails,
        firstAccessAt: inst.firstAccessAt ?? now,
        lastAccessAt: now,
        updatedAt: now,
        ...(summary ?? {}),
        ...(engine ? { sequencingState: serializeEngine(engine), globalObjectives: globalObjectivesOf(engine) } : {}),
      };
      startLaunch = (also) =>
        this.progress.startLaunch(
          { appId: claims.app, registrationId: claims.reg, instance: claims.inst },
          { id, launchTime: now, completion: summary?.completion ?? inst.completion, success: summary?.success ?? inst.success, scoreScaled: summary ? summary.scoreScaled : inst.scoreScaled, historyLog: firstLine },
          change,
          also,
        );
    }
    const passing = passingOf(launchable);
    const settings: PlayerSessionSettings = {
      redirectOnExitUrl: claims.redirect || launchSettings.redirectOnExitUrl,
      tracking: claims.tracking,
      ...(claims.culture ? { culture: claims.culture } : {}),
      ...(claims.css ? { cssUrl: claims.css } : {}),
      ...(issued?.additionalValues ? { additionalValues: issued.additionalValues } : {}),
      activityId: launchable.id,
      seqBase: inst.commitSeq,
      baseSeconds,
      attemptBaseSeconds: attemptSecondsOf(node),
      launchBaseSeconds: trackedSeconds(activityDetails.timeTracked),
      standard: scormVersion,
      ...(passing !== undefined ? { passing } : {}),
      rollup,
      ...(resetRuntime ? { resetRuntime } : {}),
      ...(noCredit ? { noCredit: true as const } : {}),
      tracked,
      client: clientSettingsOf(scormVersion, values, explicit),
      ui,
      postbacks: this.postbacks.hasTarget(reg, values),
      ...(engine ? { sequenced: true, seqKey: version.contentPrefix } : {}),
      ...(resumed ? { resumed } : {}),
      ...(engine && !claims.tracking ? { seqState: serializeEngine(engine) } : {}),
      ...(statements && !cmi5 ? { statements: statementSubjectOf(reg, version, launchable) } : {}),
      ...(launchSettings.statements ? {} : { statementsOff: true as const }),
      exit: launchSettings.exit,
      ...(launchSettings.postbacksDuringSession ? {} : { postbacksAtExit: true as const }),
      ...(mediaOf(version) ? { media: launchSettings.media } : {}),
      ...(history ? { history } : {}),
      ...(launchSettings.rollupAtScoUnload || !version.learningStandard.startsWith('SCORM') ? {} : { deferRollup: true as const }),
      ...(launchSettings.rollupAtSuspendAll ? {} : { noSuspendAllRollup: true as const }),
      ...(undelivered ? { undelivered: true as const } : {}),
    };
    let sessionToken: string;
    if (cmi5) {
      // cmi5's session start (its LMS.LaunchData, its launched statement) comes after the launch's writes, and the
      // session's settings carry what it made.
      await startLaunch?.([]);
      const learner = { id: reg.learnerId, name: [reg.learnerLastName, reg.learnerFirstName].filter((x) => x).join(', ') };
      settings.cmi5 = await this.cmi5Start.startCmi5(claims.id, settings, version, launchable, { appId: claims.app, registrationId: reg.id, instance: inst.instance }, reg.xapiRegistrationId, learner, satisfiedFirst, now, node, values.get(CMI5_STRICT_SETTING) === 'true');
      sessionToken = await this.sessions.openSession(claims.id, settings, launchHistoryId, now);
    } else if (startLaunch) {
      // The session opened in the launch's transaction (MySQL: pipelined with its writes, no round trip of its own).
      const opened = this.sessions.sessionOpening(claims.id, settings, launchHistoryId, now);
      await startLaunch([opened.statement]);
      sessionToken = opened.token;
    } else sessionToken = await this.sessions.openSession(claims.id, settings, launchHistoryId, now);
    if (claims.tracking && launchSettings.concurrent) await this.supersedeOthers(claims.app, claims.reg, claims.id, launchSettings.concurrent, now);
    if (statements && !cmi5 && !undelivered) {
      await this.launchStatements.launched({
        appId: claims.app,
        registrationId: claims.reg,
        instance: claims.inst,
        activityId: launchable.id,
        standard: scormVersion,
        sessionId: claims.id,
        resumed: node?.runtime?.exit === 'suspend',
        at: now,
        subject: settings.statements,
      });
    }
    return sessionToken;
  }

  /** A preview link opens a session on the course version alone: no registration, no launch history, tracking off. */
  private async launchPreview(claims: LaunchClaims, issued: PlayerSessionSettings, target: { courseId: string; version: number }): Promise<string> {
    const version = await this.courses.findVersion(claims.app, target.courseId, target.version);
    if (!version) throw new PlayerError(410, 'This course is no longer available', 'The course of this preview link has been deleted.');
    const standard = this.sessions.runtimeOf(version);
    // The course (version) settings of how the player behaves apply as in a registration's launch; those of what
    // is recorded have nothing to act on (no time limit: a preview's time is not counted).
    const settingTarget = this.sessions.previewTarget(target, version);
    const values = await this.settings.effective(claims.app, settingTarget, [...TRACKING_SETTING_IDS, ...CLIENT_SETTING_IDS, ...LAUNCH_SETTING_IDS]);
    const explicit = await this.settings.explicit(claims.app, settingTarget, [...PLAYER_UI_SETTING_IDS, ...EXPLICIT_CLIENT_SETTING_IDS]);
    const launchSettings = launchSettingsOf(values, standardVersion(version.learningStandard) ?? undefined);
    const tracked = trackingRulesOf(values);
    const engine = isSequenced(version) ? engineOf(sequencingDefinitionFor(definitionOf(version), tracked), null) : undefined;
    const delivered = engine ? this.startDelivery(engine, issued.startSco, launchSettings.flowToFirstSco) : null;
    const undelivered = !!engine && delivered === null && !launchSettings.flowToFirstSco && navOf(engine).choice.length > 0;
    const launchable = engine && !undelivered ? this.sessions.requireActivity(version, delivered ?? undefined, true) : this.sessions.requireActivity(version, engine ? undefined : issued.startSco);
    const passing = passingOf(launchable);
    const { timeLimit: _unused, ...exit } = launchSettings.exit;
    const settings: PlayerSessionSettings = {
      ...issued,
      redirectOnExitUrl: issued.redirectOnExitUrl || launchSettings.redirectOnExitUrl,
      ui: playerUiOf(explicit),
      tracking: false,
      activityId: launchable.id,
      standard,
      ...(passing !== undefined ? { passing } : {}),
      tracked,
      client: clientSettingsOf(standard, values, explicit),
      exit,
      ...(engine ? { sequenced: true, seqKey: version.contentPrefix, seqState: serializeEngine(engine) } : {}),
      ...(launchSettings.rollupAtSuspendAll ? {} : { noSuspendAllRollup: true as const }),
      ...(undelivered ? { undelivered: true as const } : {}),
    };
    const now = new Date();
    if (version.learningStandard === 'CMI5') {
      settings.cmi5 = await this.cmi5Start.startCmi5(claims.id, settings, version, launchable, { appId: claims.app, registrationId: '', instance: 0 }, claims.id, PREVIEW_LEARNER, [], now, null, false);
    }
    return this.sessions.openSession(claims.id, settings, null, now);
  }

  /**
   * Concurrent launch detection: the registration's other live sessions (the `rows` most recent) are told that this
   * launch took over; their next request answers 409 (the page says so and stops saving), or 410 with `force` (the
   * page leaves). Launch time only: commits read the mark with their session, at no extra cost.
   */
  private async supersedeOthers(appId: string, registrationId: string, sessionId: string, opts: { rows: number; force: boolean }, now: Date): Promise<void> {
    // By SQL text made once a limit (every tracked launch runs it): no query builder.
    const limit = Math.max(1, Math.min(1000, Math.floor(opts.rows) || 1));
    const s = leanColumns(this.sessionRows, 's');
    const sql = sqlOf(`superseded sessions ${this.dataSource.options.type} ${limit}`, () => {
      return `SELECT ${s.column('id')} AS id, ${s.column('settings')} AS settings FROM ${s.table} s WHERE ${s.column('appId')} = ? AND ${s.column('registrationId')} = ? AND ${s.column('id')} <> ? AND ${s.column('usedAt')} IS NOT NULL AND ${s.column('expiresAt')} > ? ORDER BY ${s.column('usedAt')} DESC LIMIT ${limit}`;
    });
    const rows = await runLeanStatement(this.dataSource, sql, [appId, registrationId, sessionId, s.param('expiresAt', now)], true);
    const others = rows.map((r) => ({ id: r.id as string, settings: s.hydrate('settings', r.settings) }));
    for (const other of others) {
      if (!other.settings?.activityId || other.settings.superseded) continue;
      await this.sessionRows.update({ id: other.id }, { settings: { ...other.settings, superseded: { force: opts.force } } });
    }
  }

  /**
   * The activity a launch delivers: the current one when the last session was left without a navigation request
   * (the tab closed), resume all after suspend all, else start (or the link's startSco as a choice); when the rules
   * deliver nothing (flow off at the root), the first activity a choice may select, as if the learner picked it
   * (PlayerAlwaysFlowToFirstSco YES; NO: nothing, and the learner chooses).
   */
  private startDelivery(engine: SequencingEngine, startSco?: string, flowToFirstSco = true): string | null {
    const cur = engine.currentActivity;
    if (cur !== undefined && engine.status(cur).active && !engine.definition.activities[cur]?.children.length) return cur;
    const tries: NavigationRequest[] = [];
    if (engine.suspendedActivity !== undefined) tries.push({ type: 'resumeAll' });
    else if (cur === undefined) tries.push(...(startSco ? [{ type: 'choice', target: startSco } as const] : []), { type: 'start' });
    else tries.push({ type: 'choice', target: cur }, { type: 'continue' });
    for (const r of tries) {
      const res = engine.navigate(r);
      if (res.deliver) return res.deliver;
    }
    if (!flowToFirstSco) return null;
    const first = navOf(engine).choice[0];
    return first !== undefined ? (engine.navigate({ type: 'choice', target: first }).deliver ?? null) : null;
  }
}
