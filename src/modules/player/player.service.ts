import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, In, IsNull, Repository } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { KeyRing } from '../../platform/crypto/keyring';
import { GroupReader } from '../../platform/database/group-read';
import { padToPowerOfTwo, runHotStatement, sqlOf } from '../../platform/database/hot-statement';
import { CourseVersionEntity } from '../courses/entities/course-version.entity';
import type { MediaKind } from '../courses/packages/media-parser';
import type { LaunchableActivity } from '../courses/packages/package-types';
import { LaunchHistoryEntity } from '../registrations/entities/launch-history.entity';
import { RegistrationEntity } from '../registrations/entities/registration.entity';
import { RegistrationInstanceEntity } from '../registrations/entities/registration-instance.entity';
import { jsonColumn } from '../registrations/entities/json-column';
import { type HistoryCapture, historyCaptureOf, type HistoryLevel, historyLine, HISTORY_SETTING_IDS, LaunchHistoryLog } from '../registrations/launch-history-log';
import type { LaunchLinkRequest } from '../registrations/launch-links';
import type { ActivityResult, Objective } from '../registrations/registration-types';
import { POSTBACK_SETTING_IDS, RegistrationPostbacks } from '../registrations/registration-postbacks';
import { progressSummary } from '../registrations/registration-progress-events';
import { RegistrationsService, settingCourseRef } from '../registrations/registrations.service';
import { SettingsService, SettingTarget } from '../settings/settings.service';
import { LaunchStatements } from '../xapi/launch-statements/launch-statements';
import type { StatementSubject } from '../xapi/launch-statements/scorm-profile';
import { LrsLaunchTokens } from '../xapi/lrs/lrs-launch-tokens';
import { xapiLaunchQuery, xapiLearnerActor } from './xapi-launch';
import { type LaunchMode, type NewlySatisfied, rollUpCmi5 } from './cmi5-launch';
import { ausOf, Cmi5Runtime, type InstanceKey } from './cmi5-runtime';
import { applyXapiResults, XapiResultStatement } from './xapi-progress';
import { agentKey } from '../xapi/lrs/statement-keys';
import { languageElement, learnerPreferenceCmi, learnerPreferenceOf } from './learner-preference';
import { CommitStore } from './commit-store';
import { ATTEMPT_SETTING_IDS, attemptSecondsOf, launchesAsNoCredit, resetsRuntimeData, resetTimingOf, startNewAttempt } from './attempt-data';
import { PlayerError } from './player-errors';
import { type ExitBehaviour, LAUNCH_SETTING_IDS, launchSettingsOf } from './launch-settings';
import { DEFAULT_MEDIA_THRESHOLDS, type MediaThresholds } from './player-media';
import { contentUrlOf } from './player-page';
import { buildNav, PlayerNav } from './player-nav';
import { PlayerSessionEntity, PlayerSessionSettings } from './player-session.entity';
import { DEFAULT_PLAYER_UI, PLAYER_UI_SETTING_IDS, playerUiOf, type PlayerUiSettings } from './player-ui';
import { scorm12FinishedCmi } from './scorm12-finish';
import { decodeToken, encodeToken, LaunchClaims, SessionClaims, VerifiedSessionTokens } from './player-tokens';
import { aiccLaunchQuery, aiccSessionId, HACP_PATH, sessionIdOfAiccSid } from './aicc-hacp';
import { applyEngine, cachedDefinition, definitionOf, engineOf, globalObjectivesOf, hideLmsUiOf, invisibleOf, isSequenced, navOf, objectiveCmi, requestOf, runtimeResultsOf, SequencingNav, serializeEngine } from './player-sequencing';
import { type NavigationRequest, SequencingEngine } from '../sequencing/sequencing-engine';
import { applyPretest, applyTrackingRules, changesState, CLIENT_SETTING_IDS, clientSettingsOf, DEFAULT_CLIENT_SETTINGS, DEFAULT_TRACKING_RULES, type PlayerClientSettings, ruledCmi, sequencingDefinitionFor, shareLearnerPreference, TRACKING_SETTING_IDS, trackingRulesOf, type TrackedState } from './tracking-rules';
import { activityStateOf, DEFAULT_ROLLUP_RULES, findActivity, FlatCmi, formatTracked, initialCmi, ROLLUP_SETTING_IDS, rollUp, RollupRules, rollupRulesOf, ScormVersion, trackedSeconds } from './scorm-runtime';

/** How long a player session lives after its launch (the content and commit URLs stop working after). */
export const SESSION_TTL_SECONDS = 8 * 3600;

/** What the player needs to run one activity (the page's first one, and each one it switches to). */
export interface ActivityLaunch {
  activityId: string;
  title: string;
  contentHref: string;
  cmi: FlatCmi;
  /** Media courses: the player's own viewer runs the file and drives the SCORM API. */
  media?: MediaKind;
  /** AICC courses: the AU talks HACP to the server (aicc_sid/aicc_url on its URL), not the page's SCORM API. */
  aicc?: true;
  /** xAPI and cmi5 courses: the content talks to the LRS (TinCan or cmi5 launch parameters on its URL), not the page's SCORM API. */
  xapi?: true;
  /** cmi5 AUs with launchMethod OwnWindow: the AU replaces the player page (its returnURL leads back). */
  ownWindow?: true;
  /** SCORM 2004 adl.data: the SCO's shared data maps (adl.data.n in order) and the stores it may read. */
  sharedData?: ReturnType<SequencingEngine['sharedDataOf']>;
}

/** What the player page needs: the activity it starts with, and the course's table of contents. */
export interface PlayerPageModel extends ActivityLaunch {
  /** The course's title (the page title). */
  courseTitle: string;
  version: ScormVersion;
  tracking: boolean;
  redirectOnExitUrl: string;
  cssUrl?: string;
  culture?: string;
  /** PlayerLaunchType: FRAMESET runs the content in the player page; NEW_WINDOW… in a window of its own. */
  launchType: string;
  /** How the page's SCORM API commits and what it enforces (the launch's settings; previews: the defaults). */
  client: PlayerClientSettings;
  nav: PlayerNav;
  /** What the page does when a SCO exits (sessions launched before exit settings: the page's own defaults). */
  exit?: ExitBehaviour;
  /** The player UI settings of the launch (nav bar, table of contents, progress bar, windows, lookahead). */
  ui: PlayerUiSettings;
  /** The registration's progress (0..1, its rolled-up completion amount): the measure progress bar starts from it. */
  progress?: number;
  /** SCORM 2004 courses: the valid navigation requests now, and the activities the table of contents hides. */
  seq?: { nav: SequencingNav; hidden: string[]; ids: string[]; hideUi: Record<string, string[]> };
  /** Launches that capture the runtime in their history log: the page records the SCO's API calls at this level. */
  history?: { level: HistoryLevel; timings: boolean };
}

/** The answer to a navigation request of a sequenced course: what to run next, or that the session ended. */
export interface NavigationOutcome {
  launch?: ActivityLaunch;
  ended?: boolean;
  /** The request was not valid now (the page shows it; `launch` then runs the current activity again, if any). */
  error?: string;
  nav: SequencingNav;
}

export interface CommitBody {
  seq: number;
  activityId: string;
  cmi: FlatCmi;
  final?: boolean;
  /** The SCO called LMSInitialize/Initialize (the player page says; other callers: assumed). */
  initialized?: boolean;
  /** SCORM 2004 adl.data: the stores the SCO may write, by target id. */
  sharedData?: Record<string, unknown>;
}

interface SessionContext {
  reg: RegistrationEntity | null;
  inst: RegistrationInstanceEntity | null;
  version: CourseVersionEntity;
  launchables: LaunchableActivity[];
}

/** What statements changed in a registration's tree (applyStatementProgress). */
export interface StatementChange {
  /** When the first statement that completed the registration was made (null: none did). */
  completedAt: Date | null;
  /** Seconds the statements add to the launch's time (a cmi5 session's duration). */
  seconds?: number;
  /** The launch ended (cmi5 terminated): its exit time is now. */
  ended?: boolean;
}

/** Who a course preview runs as (no registration, no learner). */
const PREVIEW_LEARNER = { id: 'preview', name: 'Preview' };

/** The media file of a media course (a single PDF, video or audio file), from what its import kept. */
const mediaOf = (version: CourseVersionEntity): { kind: MediaKind; file: string } | null => {
  const media = version.package?.packageData?.media as { kind?: MediaKind; file?: string } | undefined;
  return media?.kind && media.file ? { kind: media.kind, file: media.file } : null;
};

/** What the launch statements report of an activity (status, score, interactions): a commit that leaves it unchanged states nothing. */
const reportedOf = (node: ActivityResult): string =>
  JSON.stringify([node.activityCompletion, node.activitySuccess, node.score?.scaled ?? null, node.runtime?.runtimeInteractions?.length ?? 0]);

/** The rolled-up completion amount of a registration's tree (0..1; completed is 1). */
const progressOf = (tree: ActivityResult): number => (tree.activityCompletion === 'COMPLETED' ? 1 : (tree.completionAmount?.scaled ?? 0));

/** The registration summary of a tree the sequencing engine (or cmi5's rollup) rolled up (its root). */
const summaryOf = (tree: ActivityResult, completedAt: Date | null, now: Date) => ({
  completion: tree.activityCompletion,
  success: tree.activitySuccess,
  completionAmount: tree.activityCompletion === 'COMPLETED' ? 1 : (tree.completionAmount?.scaled ?? 0),
  scoreScaled: tree.score?.scaled ?? null,
  completedAt: completedAt ?? (tree.activityCompletion === 'COMPLETED' ? now : null),
});

type LiveSession = PlayerSessionEntity & { settings: PlayerSessionSettings & { standard: ScormVersion } };

const standardVersion = (standard: string): ScormVersion | null => (standard === 'SCORM12' || standard === 'AICC' ? '1.2' : standard.startsWith('SCORM2004') ? '2004' : null);

/** What the launch statements of a session name: its course, activity and learner as they are at launch. */
const statementSubjectOf = (reg: RegistrationEntity, version: CourseVersionEntity, launchable: LaunchableActivity): StatementSubject => {
  const name = [reg.learnerFirstName, reg.learnerLastName].filter((x) => x).join(' ');
  return { courseId: reg.courseId, courseTitle: version.title, activityTitle: launchable.title ?? launchable.id, learner: { id: reg.learnerId, ...(name ? { name } : {}) }, registration: reg.xapiRegistrationId };
};

/** Most lines of one batch of the player page's runtime log. */
const RUNTIME_LOG_BATCH = 500;

/** cmi5: refuse the AU's lapses that cmi5 does not let an LMS refuse (LCDS's own setting, for AU developers). */
const CMI5_STRICT_SETTING = 'LcdsCmi5StrictMode';

/** The history log's first line: what the launch runs (detailed: also the course, the learner and the attempt). */
function launchLine(history: HistoryCapture, version: CourseVersionEntity, reg: RegistrationEntity, launchable: LaunchableActivity, node: ActivityResult | null, sequenced: boolean, at: Date): string {
  const resumed = node?.runtime?.exit === 'suspend';
  const parts = [`activity ${JSON.stringify(launchable.id)}`, version.learningStandard, resumed ? 'resuming a suspended attempt' : 'new attempt'];
  if (sequenced) parts.push('delivered by the sequencer');
  if (history.control === 'detailed') parts.push(`course ${JSON.stringify(version.courseId)} version ${version.version}`, `learner ${JSON.stringify(reg.learnerId)}`, `attempts ${node?.attempts ?? 0}`);
  return historyLine('launch', parts.join(', '), at);
}

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

/** A navigation request as SCORM writes it (adl.nav.request). */
const requestLabel = (req: NavigationRequest): string => ('target' in req && req.target !== undefined ? `{target=${req.target}}${req.type}` : req.type);

/** The valid navigation requests, for the detailed log. */
const validRequestsOf = (nav: SequencingNav): string => {
  const simple = (['continue', 'previous', 'exitAll', 'suspendAll'] as const).filter((k) => nav[k]);
  return [...simple, ...(nav.choice.length ? [`choice ${nav.choice.join(' ')}`] : [])].join(', ') || 'none';
};

/** The scaled passing score of a launchable (SCORM 1.2 mastery score / 100, SCORM 2004 minNormalizedMeasure). */
const passingOf = (launchable: LaunchableActivity): number | undefined => {
  const n = launchable.data.scaledPassingScore !== undefined ? Number(launchable.data.scaledPassingScore) : undefined;
  return n !== undefined && Number.isFinite(n) ? n : undefined;
};

/** The live sessions of commits (n of them) joined with the instances they write (tree and commit_seq); both stacks. */
const commitContextSql = (n: number) => `SELECT s.id, s.app_id, s.registration_id, s.instance, s.launch_history_id, s.expires_at, s.used_at, s.settings,
    i.activity_details AS i_tree, i.commit_seq AS i_seq, i.sequencing_state AS i_seqstate, i.xapi_reported AS i_reported
  FROM player_session s
  LEFT JOIN registration_instance i ON i.app_id = s.app_id AND i.registration_id = s.registration_id AND i.instance = s.instance
  WHERE s.id ${n === 1 ? '= ?' : `IN (${new Array<string>(n).fill('?').join(', ')})`}`;

/** Sessions whose parsed settings a node keeps (the oldest go first). */
const SETTINGS_CACHE_SIZE = 10_000;

/** Most commits' contexts read by one query (under load; alone when idle), and such reads under way at once. */
const CONTEXT_BATCH = { maxBatch: 32, readers: 2 };

interface CommitContextRow {
  id: string;
  app_id: string;
  registration_id: string;
  instance: number | string;
  launch_history_id: string | null;
  expires_at: unknown;
  used_at: unknown;
  settings: string | null;
  i_tree: string | null;
  i_seq: number | string | null;
  i_seqstate: string | null;
  i_reported: string | null;
}

/** The session id of a session token; 400 when the token is not ours, 410 when it expired. */
function sessionIdOf(tokens: VerifiedSessionTokens, token: string): string {
  const claims = tokens.decode(token);
  if (claims === 'malformed') throw new PlayerError(400, 'This page is not valid', 'The address of the player is damaged. Launch the course again.');
  if (claims === 'expired') throw new PlayerError(410, 'This session has ended', 'The player session has expired. Launch the course again.');
  return claims.id;
}

/** The session row if it is live (launched, not expired); 410 otherwise. */
function liveSession(row: PlayerSessionEntity | null): LiveSession {
  if (!row || !row.usedAt || !row.settings?.activityId || row.expiresAt.getTime() <= Date.now()) {
    throw new PlayerError(410, 'This session has ended', 'The player session is over. Launch the course again.');
  }
  const superseded = row.settings.superseded;
  if (superseded) {
    // Concurrent launch detection: a later launch of the registration took over; this window no longer records.
    throw superseded.force
      ? new PlayerError(410, 'This session has ended', 'The course was launched again in another window, which ended this one.', 'forcedExit')
      : new PlayerError(409, 'The course is open in another window', 'The course was launched again in another window. Progress made in this window is no longer saved; continue in the other window.', 'concurrentLaunch');
  }
  return row as LiveSession;
}

/** The rollup rules resolved at launch (sessions from before rollup settings: the defaults of their standard). */
const rollupOf = (session: LiveSession): RollupRules => session.settings.rollup ?? { ...DEFAULT_ROLLUP_RULES, kind: session.settings.standard === '2004' ? 'simple' : 'units' };

/** Launch links, player sessions, and the commits of the runtime data the SCO reports. */
@Injectable()
export class PlayerService {
  private readonly sessionTokens: VerifiedSessionTokens;
  /** Commit contexts by session id, read together under load. */
  private readonly contexts: GroupReader<CommitContextRow>;
  /** The parsed settings of recent sessions, with the text they were parsed from (see parsedSettings). */
  private readonly settingsByText = new Map<string, { raw: string | null; settings: PlayerSessionSettings | null }>();

  constructor(
    @InjectRepository(PlayerSessionEntity) private readonly sessions: Repository<PlayerSessionEntity>,
    @InjectRepository(RegistrationEntity) private readonly registrations: Repository<RegistrationEntity>,
    @InjectRepository(RegistrationInstanceEntity) private readonly instances: Repository<RegistrationInstanceEntity>,
    @InjectRepository(CourseVersionEntity) private readonly versions: Repository<CourseVersionEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly keys: KeyRing,
    private readonly postbacks: RegistrationPostbacks,
    private readonly registrationsService: RegistrationsService,
    private readonly settings: SettingsService,
    private readonly launchStatements: LaunchStatements,
    private readonly lrsTokens: LrsLaunchTokens,
    private readonly cmi5: Cmi5Runtime,
    private readonly commitStore: CommitStore,
    private readonly historyLog: LaunchHistoryLog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.sessionTokens = new VerifiedSessionTokens(keys);
    this.contexts = new GroupReader<CommitContextRow>(async (ids) => {
      // Raw SQL on the hot path: the query builder and entity hydration cost more CPU than the query itself.
      const keys = padToPowerOfTwo(ids);
      const rows = await runHotStatement<CommitContextRow[]>(this.dataSource, sqlOf(`commit contexts ${keys.length}`, () => commitContextSql(keys.length)), keys);
      return new Map(rows.map((r) => [r.id, r]));
    }, CONTEXT_BATCH);
  }

  // ---- launch links -----------------------------------------------------------------------------------------

  /** The launch sessions of deleted registrations. */
  async forgetSessions(appId: string, registrationIds: string[]): Promise<void> {
    for (let i = 0; i < registrationIds.length; i += 500) await this.sessions.delete({ appId, registrationId: In(registrationIds.slice(i, i + 500)) });
  }

  async issueLink(req: LaunchLinkRequest): Promise<string> {
    const id = randomUUID();
    const now = new Date();
    const exp = Math.floor(now.getTime() / 1000) + req.expirySeconds;
    const target = req.target;
    const registrationId = target.kind === 'registration' ? target.registrationId : '';
    const instance = target.kind === 'registration' ? target.instance : 0;
    const settings: PlayerSessionSettings = {
      redirectOnExitUrl: req.redirectOnExitUrl,
      tracking: req.tracking && target.kind === 'registration',
      ...(req.startSco ? { startSco: req.startSco } : {}),
      ...(req.culture ? { culture: req.culture } : {}),
      ...(req.cssUrl ? { cssUrl: req.cssUrl } : {}),
      ...(req.additionalValues?.length ? { additionalValues: req.additionalValues } : {}),
      ...(target.kind === 'preview' ? { preview: { courseId: target.courseId, version: target.version } } : {}),
    };
    await this.sessions.insert({ id, appId: req.appId, registrationId, instance, launchHistoryId: null, createdAt: now, expiresAt: new Date(exp * 1000), usedAt: null, settings });
    const claims: LaunchClaims = {
      t: 'launch',
      id,
      app: req.appId,
      reg: registrationId,
      inst: instance,
      exp,
      redirect: req.redirectOnExitUrl,
      tracking: settings.tracking,
      ...(req.startSco ? { startSco: req.startSco } : {}),
      ...(req.culture ? { culture: req.culture } : {}),
      ...(req.cssUrl ? { css: req.cssUrl } : {}),
    };
    return `${this.config.publicUrl}/player/launch/${encodeToken(this.keys, claims)}`;
  }

  /** Claims a launch link (once) and opens a player session; returns the session token. */
  async launch(token: string): Promise<string> {
    const claims = decodeToken<LaunchClaims>(this.keys, token, 'launch');
    if (claims === 'malformed') throw new PlayerError(400, 'This link is not valid', 'The launch link is damaged or incomplete. Ask for a new link to start the course.');
    if (claims === 'expired') throw new PlayerError(410, 'This link has expired', 'The launch link has expired. Go back to where you found it and launch the course again.');
    const now = new Date();
    const claimed = await this.sessions.update({ id: claims.id, usedAt: IsNull() }, { usedAt: now });
    if (!claimed.affected) {
      const known = await this.sessions.findOneBy({ id: claims.id });
      if (!known) throw new PlayerError(410, 'This link is no longer valid', 'The registration of this launch link no longer exists.');
      throw new PlayerError(410, 'This link has already been used', 'Each launch link opens the course once. Go back to where you found it and launch the course again.');
    }
    const issued = (await this.sessions.findOneBy({ id: claims.id }))?.settings ?? null;
    if (issued?.preview) return this.launchPreview(claims, issued, issued.preview);
    const reg = await this.registrations.findOneBy({ appId: claims.app, id: claims.reg });
    const inst = reg ? await this.instances.findOneBy({ appId: claims.app, registrationId: claims.reg, instance: claims.inst }) : null;
    if (!reg || !inst || !inst.activityDetails) throw new PlayerError(410, 'This course is no longer available', 'The registration of this launch link no longer exists.');
    const version = await this.versions.findOneBy({ appId: claims.app, courseId: reg.courseId, version: inst.courseVersion });
    if (!version) throw new PlayerError(410, 'This course is no longer available', 'The course of this registration has been deleted.');
    const scormVersion = this.runtimeOf(version);
    // The effective settings the session's commits need, read once here (one query), not on every commit.
    const settingTarget: SettingTarget = { level: 'registrationInstance', registrationId: reg.id, instance: inst.instance, course: settingCourseRef(version) };
    const values = await this.settings.effective(claims.app, settingTarget, [...ROLLUP_SETTING_IDS, ...POSTBACK_SETTING_IDS, ...ATTEMPT_SETTING_IDS, ...HISTORY_SETTING_IDS, CMI5_STRICT_SETTING, ...TRACKING_SETTING_IDS, ...CLIENT_SETTING_IDS, ...LAUNCH_SETTING_IDS]);
    const ui = playerUiOf(await this.settings.explicit(claims.app, settingTarget, PLAYER_UI_SETTING_IDS));
    const tracked = trackingRulesOf(values);
    // SCORM 2004: the sequencing engine decides what the session starts with (resume all after suspend all, else start).
    const sequenced = isSequenced(version);
    let engine: SequencingEngine | undefined;
    let resumed: string | undefined;
    let launchable: LaunchableActivity;
    if (sequenced) {
      const where = { appId: claims.app, registrationId: claims.reg, instance: claims.inst };
      engine = engineOf(sequencingDefinitionFor(definitionOf(version), tracked), await this.sequencingStateOf(where), await this.priorGlobals(where));
      resumed = engine.suspendedActivity;
      launchable = this.requireActivity(version, this.startDelivery(engine, claims.startSco) ?? undefined, true);
      if (engine.suspendedActivity !== undefined || resumed !== launchable.id) resumed = undefined;
    } else launchable = this.requireActivity(version, claims.startSco ?? inst.suspendedActivityId ?? undefined);

    const rollup = rollupRulesOf(scormVersion, values);
    const resetRuntime = resetsRuntimeData(version.learningStandard, mediaOf(version) !== null) ? resetTimingOf(values) : undefined;
    const noCredit = launchesAsNoCredit(version.learningStandard, values, inst);
    const history = claims.tracking ? historyCaptureOf(values) : undefined;
    const launchSettings = launchSettingsOf(values, scormVersion === '1.2');
    const statements = claims.tracking && launchSettings.statements && version.learningStandard !== 'XAPI';
    const node = findActivity(inst.activityDetails, launchable.id);
    const baseSeconds = trackedSeconds(node?.timeTracked);
    let launchHistoryId: string | null = null;
    const cmi5 = version.learningStandard === 'CMI5';
    let satisfiedFirst: NewlySatisfied[] = [];
    if (claims.tracking) {
      launchHistoryId = randomUUID();
      const resuming = node?.runtime?.exit === 'suspend';
      let wiped = false;
      if (engine) {
        // A delivery that began a new attempt (the engine's count moved on from the tree's) starts on fresh data.
        const before = node?.attempts ?? 0;
        if (node && engine.status(launchable.id).attempts > before) startNewAttempt(node, resetRuntime, before, true, true);
        applyEngine(inst.activityDetails, engine);
      } else {
        if (node && !resuming) {
          wiped = startNewAttempt(node, resetRuntime, node.attempts, noCredit);
          node.attempts += 1;
        }
        // cmi5: the launch itself may satisfy AUs (moveOn NotApplicable), and with them blocks and the course.
        if (cmi5) satisfiedFirst = rollUpCmi5(inst.activityDetails, ausOf(version.package?.launchables ?? []));
        else if (node) rollUp(inst.activityDetails, rollup);
      }
      const tree = inst.activityDetails;
      // The summary as the launch leaves it (the engine's delivery, a new attempt's wiped score): the registration's
      // and the launch history's.
      const summary = engine || wiped || cmi5 ? summaryOf(tree, inst.completedAt, now) : null;
      const firstLine = history?.control ? launchLine(history, version, reg, launchable, node, engine !== undefined, now) : null;
      await this.dataSource.transaction(async (m) => {
        await m.insert(LaunchHistoryEntity, {
          appId: claims.app,
          id: launchHistoryId!,
          registrationId: claims.reg,
          instance: claims.inst,
          launchTime: now,
          exitTime: null,
          lastRuntimeUpdate: null,
          completion: summary?.completion ?? inst.completion,
          success: summary?.success ?? inst.success,
          scoreScaled: summary ? summary.scoreScaled : inst.scoreScaled,
          totalSeconds: 0,
          historyLog: firstLine,
          historyLogChars: firstLine?.length ?? 0,
        });
        await m.update(
          RegistrationInstanceEntity,
          { appId: claims.app, registrationId: claims.reg, instance: claims.inst },
          {
            activityDetails: inst.activityDetails,
            firstAccessAt: inst.firstAccessAt ?? now,
            lastAccessAt: now,
            updatedAt: now,
            ...(summary ?? {}),
            ...(engine ? { sequencingState: serializeEngine(engine), globalObjectives: globalObjectivesOf(engine) } : {}),
          },
        );
        // The registration is updated with its progress (the list's datetimeFilter/orderBy `updated` read it).
        await m.update(RegistrationEntity, { appId: claims.app, id: claims.reg }, { updatedAt: now });
      });
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
      launchBaseSeconds: trackedSeconds(inst.activityDetails.timeTracked),
      standard: scormVersion,
      ...(passing !== undefined ? { passing } : {}),
      rollup,
      ...(resetRuntime ? { resetRuntime } : {}),
      ...(noCredit ? { noCredit: true as const } : {}),
      tracked,
      client: clientSettingsOf(scormVersion, values),
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
    };
    if (cmi5) {
      const learner = { id: reg.learnerId, name: [reg.learnerLastName, reg.learnerFirstName].filter((x) => x).join(', ') };
      settings.cmi5 = await this.startCmi5(claims.id, settings, version, launchable, { appId: claims.app, registrationId: reg.id, instance: inst.instance }, reg.xapiRegistrationId, learner, satisfiedFirst, now, node, values.get(CMI5_STRICT_SETTING) === 'true');
    }
    const sessionToken = await this.openSession(claims.id, settings, launchHistoryId, now);
    if (claims.tracking && launchSettings.concurrent) await this.supersedeOthers(claims.app, claims.reg, claims.id, launchSettings.concurrent, now);
    if (statements && !cmi5) {
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
    const version = await this.versions.findOneBy({ appId: claims.app, courseId: target.courseId, version: target.version });
    if (!version) throw new PlayerError(410, 'This course is no longer available', 'The course of this preview link has been deleted.');
    const standard = this.runtimeOf(version);
    const engine = isSequenced(version) ? engineOf(definitionOf(version), null) : undefined;
    const launchable = engine ? this.requireActivity(version, this.startDelivery(engine, issued.startSco) ?? undefined, true) : this.requireActivity(version, issued.startSco);
    const passing = passingOf(launchable);
    const settings: PlayerSessionSettings = {
      ...issued,
      ui: playerUiOf(await this.settings.explicit(claims.app, this.previewTarget(target, version), PLAYER_UI_SETTING_IDS)),
      tracking: false,
      activityId: launchable.id,
      standard,
      ...(passing !== undefined ? { passing } : {}),
      ...(engine ? { sequenced: true, seqKey: version.contentPrefix, seqState: serializeEngine(engine) } : {}),
    };
    const now = new Date();
    if (version.learningStandard === 'CMI5') {
      settings.cmi5 = await this.startCmi5(claims.id, settings, version, launchable, { appId: claims.app, registrationId: '', instance: 0 }, claims.id, PREVIEW_LEARNER, [], now, null, false);
    }
    return this.openSession(claims.id, settings, null, now);
  }

  /**
   * Starts the cmi5 session of an AU launch (Cmi5Runtime.start); the session's expiry is the one openSession gives it
   * (launch and preview) or already has (a switch of activity). A preview runs in a registration of its own (its id).
   * Launch mode (cmi5 10.2.2): Browse when nothing is tracked (a preview, a link with tracking false); Review when the
   * learner has satisfied the AU already (its moveOn met by their results, or waived); Normal otherwise.
   */
  private startCmi5(
    sessionId: string,
    settings: PlayerSessionSettings,
    version: CourseVersionEntity,
    launchable: LaunchableActivity,
    where: InstanceKey,
    registration: string,
    learner: { id: string; name: string },
    satisfiedFirst: NewlySatisfied[],
    now: Date,
    node: ActivityResult | null,
    strict: boolean,
    expiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000),
  ) {
    const launchMode: LaunchMode = !settings.tracking ? 'Browse' : node?.cmi5?.satisfied && launchable.data.moveOn !== 'NotApplicable' ? 'Review' : 'Normal';
    return this.cmi5.start({
      appId: where.appId,
      playerSessionId: sessionId,
      expiresAt,
      where,
      registration,
      learner,
      courseId: version.courseId,
      launchable,
      launchMode,
      satisfiedFirst,
      strict,
      ...(settings.culture ? { culture: settings.culture } : {}),
      launchUrl: (state) => {
        const url = contentUrlOf(this.launchHref(launchable, settings, [this.cmi5.launchQuery(where.appId, sessionId, expiresAt, state)]));
        const page = `${this.config.publicUrl}/player/s/${encodeToken(this.keys, { t: 'session', id: sessionId, exp: Math.floor(expiresAt.getTime() / 1000) } satisfies SessionClaims)}/`;
        return new URL(url, page).toString();
      },
      now,
    });
  }

  /**
   * Concurrent launch detection: the registration's other live sessions (the `rows` most recent) are told that this
   * launch took over; their next request answers 409 (the page says so and stops saving), or 410 with `force` (the
   * page leaves). Launch time only: commits read the mark with their session, at no extra cost.
   */
  private async supersedeOthers(appId: string, registrationId: string, sessionId: string, opts: { rows: number; force: boolean }, now: Date): Promise<void> {
    const others = await this.sessions
      .createQueryBuilder('s')
      .where('s.appId = :appId AND s.registrationId = :registrationId AND s.id <> :sessionId AND s.usedAt IS NOT NULL AND s.expiresAt > :now', { appId, registrationId, sessionId, now })
      .orderBy('s.usedAt', 'DESC')
      .take(opts.rows)
      .getMany();
    for (const other of others) {
      if (!other.settings?.activityId || other.settings.superseded) continue;
      await this.sessions.update({ id: other.id }, { settings: { ...other.settings, superseded: { force: opts.force } } });
    }
  }

  private async openSession(id: string, settings: PlayerSessionSettings, launchHistoryId: string | null, now: Date): Promise<string> {
    const expiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000);
    await this.sessions.update({ id }, { launchHistoryId, expiresAt, settings });
    return encodeToken(this.keys, { t: 'session', id, exp: Math.floor(expiresAt.getTime() / 1000) } satisfies SessionClaims);
  }

  /**
   * The SCORM runtime the player runs a course version with (media courses run a 2004 API their viewer drives; xAPI
   * courses keep their progress in the same tree, but the page exposes no API to them).
   */
  private runtimeOf(version: CourseVersionEntity): ScormVersion {
    const scormVersion = standardVersion(version.learningStandard) ?? (mediaOf(version) || version.learningStandard === 'XAPI' || version.learningStandard === 'CMI5' ? '2004' : null);
    if (!scormVersion) throw new PlayerError(501, 'This course cannot be played yet', `The player does not run ${version.learningStandard} courses yet.`);
    return scormVersion;
  }

  private requireActivity(version: CourseVersionEntity, preferred?: string, sequenced = false): LaunchableActivity {
    if (sequenced && !preferred) throw new PlayerError(409, 'This course has nothing to launch', 'The sequencing rules of the course leave no activity to start.');
    const launchable = this.pickActivity(version, preferred);
    if (!launchable) throw new PlayerError(409, 'This course has nothing to launch', 'The course has no launchable activity.');
    return launchable;
  }

  // ---- sequencing (SCORM 2004) ------------------------------------------------------------------------------

  /** The stored sequencing state of a registration instance (not loaded with the entity: it can be large). */
  private async sequencingStateOf(where: { appId: string; registrationId: string; instance: number }): Promise<string | null> {
    const row = await this.instances.createQueryBuilder('i').select('i.sequencingState', 'state').where(where).getRawOne<{ state: string | null }>();
    return row?.state ?? null;
  }

  /**
   * The global shared objectives a new instance starts with: those of the registration's latest earlier instance
   * (global objectives are scoped to the registration, as SCORM Cloud's default scope).
   */
  private async priorGlobals(where: { appId: string; registrationId: string; instance: number }): Promise<string | null> {
    if (where.instance === 0) return null;
    const row = await this.instances
      .createQueryBuilder('i')
      .select('i.sequencingState', 'state')
      .where('i.appId = :appId AND i.registrationId = :registrationId AND i.instance < :instance AND i.sequencingState IS NOT NULL', where)
      .orderBy('i.instance', 'DESC')
      .limit(1)
      .getRawOne<{ state: string | null }>();
    return row?.state ?? null;
  }

  /**
   * The activity a launch delivers: the current one when the last session was left without a navigation request
   * (the tab closed), resume all after suspend all, else start (or the link's startSco as a choice); when the rules
   * deliver nothing (flow off at the root), the first activity a choice may select, as if the learner picked it.
   */
  private startDelivery(engine: SequencingEngine, startSco?: string): string | null {
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
    const first = navOf(engine).choice[0];
    return first !== undefined ? (engine.navigate({ type: 'choice', target: first }).deliver ?? null) : null;
  }

  /**
   * A navigation request of a sequenced course (the page's buttons and table of contents, a SCO's adl.nav.request
   * at Terminate): the engine runs it on the stored state, after the page committed what the SCO left; the answer is
   * the activity to run next or the end of the session, with the valid requests after it.
   */
  async navigate(token: string, body: { request?: unknown; target?: unknown; check?: unknown } | undefined): Promise<NavigationOutcome> {
    const session = await this.requireSession(token);
    const s = session.settings;
    if (!s.sequenced) throw new PlayerError(400, 'Bad request', 'This course does not use SCORM 2004 sequencing');
    const req = requestOf(body?.request, body?.target);
    if (!req) throw new PlayerError(400, 'Bad request', 'request must be a navigation request: continue, previous, exit, exitAll, suspendAll, abandon, abandonAll, {target=ID}choice or {target=ID}jump');
    if (body?.check !== undefined && typeof body.check !== 'boolean') throw new PlayerError(400, 'Bad request', 'check must be a boolean');
    const where = { appId: session.appId, registrationId: session.registrationId, instance: session.instance };
    const lookahead = s.ui?.lookahead;
    for (let attempt = 0; attempt < 5; attempt++) {
      const ctx = await this.sessionContext(session);
      const def = sequencingDefinitionFor(definitionOf(ctx.version), s.tracked);
      const engine = engineOf(def, s.tracking ? await this.sequencingStateOf(where) : s.seqState);
      const suspended = engine.suspendedActivity;
      const cur0 = engine.currentActivity;
      // PlayerForceDisableRootChoice: the root may not be chosen (a fresh attempt on the whole course).
      const rootRefused = s.ui?.forceDisableRootChoice === true && (req.type === 'choice' || req.type === 'jump') && req.target === def.root;
      // A request the rules refuse changes nothing (the current activity's attempt goes on): it is tried on a copy
      // first (choice and jump: the engine does so itself); only a valid one runs on the stored state.
      const trial = rootRefused
        ? { error: { code: 'NB.2.1-11', message: 'The course may not be started again from its table of contents' } }
        : req.type === 'continue' || req.type === 'previous' || body?.check === true
          ? SequencingEngine.restore(def, engine.serializedText()).navigate(req)
          : undefined;
      // check: the page asks before it unloads the SCO; the answer only says whether the request would be refused.
      if (body?.check === true) return { ...(trial?.error ? { error: trial.error.message } : {}), nav: navOf(engine, lookahead) };
      const result = trial?.error ? trial : engine.navigate(req);
      const cur = engine.currentActivity;
      // A refused request that ended nothing: the page runs the current activity again.
      const deliver = result.deliver ?? (result.error && cur !== undefined && engine.status(cur).active ? cur : undefined);
      const launchable = deliver !== undefined ? ctx.launchables.find((a) => a.id === deliver) : undefined;
      const settings: PlayerSessionSettings = { ...s };
      if (s.tracking && ctx.inst?.activityDetails) {
        const tree = ctx.inst.activityDetails;
        const node = launchable ? findActivity(tree, launchable.id) : null;
        const before = node?.attempts ?? 0;
        applyEngine(tree, engine);
        // A delivery that began a new attempt (a retry, a choice of an activity whose attempt ended) starts on fresh data.
        if (node && node.attempts > before) startNewAttempt(node, s.resetRuntime, before, true, true);
        const now = new Date();
        const res = await this.instances.update(
          { ...where, commitSeq: ctx.inst.commitSeq },
          { activityDetails: tree, ...summaryOf(tree, ctx.inst.completedAt, now), sequencingState: serializeEngine(engine), globalObjectives: globalObjectivesOf(engine), lastAccessAt: now, updatedAt: now },
        );
        if (!res.affected) continue;
        // What sequencing decided at the end of the attempt (rollup, an exit) is the launch's too.
        await this.recordLaunch(session, tree, result.ended === true, now);
        if (launchable) {
          settings.baseSeconds = trackedSeconds(node?.timeTracked);
          settings.attemptBaseSeconds = attemptSecondsOf(node);
        }
      } else settings.seqState = serializeEngine(engine);
      if (launchable) {
        settings.activityId = launchable.id;
        delete settings.resumed;
        // The current activity again after a refused request: its SCO resumes where it was (same attempt).
        if ((req.type === 'resumeAll' && suspended === launchable.id) || (result.error && launchable.id === cur0)) settings.resumed = launchable.id;
        delete settings.passing;
        const passing = passingOf(launchable);
        if (passing !== undefined) settings.passing = passing;
      }
      await this.sessions.update({ id: session.id }, { settings });
      if (s.history?.seq && session.launchHistoryId) {
        const outcome = result.error ? `refused (${result.error.code}): ${result.error.message}${launchable ? `; activity ${JSON.stringify(launchable.id)} runs again` : ''}` : launchable ? `delivered activity ${JSON.stringify(launchable.id)}` : result.ended ? 'the session ended' : 'nothing delivered';
        const valid = s.history.seq === 'detailed' ? `; valid now: ${validRequestsOf(navOf(engine))}` : '';
        await this.historyLog.append(session, historyLine('nav', `${requestLabel(req)} (current ${cur === undefined ? 'none' : JSON.stringify(cur)}): ${outcome}${valid}`));
      }
      if (s.tracking && s.postbacks !== false && (!s.postbacksAtExit || result.ended)) await this.postbacks.schedule(session.appId, session.registrationId, session.instance, s.postbacks === true);
      const next = { ...session, settings } as LiveSession;
      return {
        ...(launchable ? { launch: this.activityLaunch(next, ctx, launchable, engine) } : {}),
        ...(result.ended ? { ended: true } : {}),
        ...(result.error ? { error: result.error.message } : {}),
        nav: navOf(engine, lookahead),
      };
    }
    throw new PlayerError(409, 'Busy', 'The registration is being updated by another session; retry');
  }

  /**
   * The session's launch history row as the registration stands after the player changed it outside a commit (a
   * navigation request's rollup and exit, a switch of activity): its statuses, score and time; `ended`: its exit time.
   */
  private async recordLaunch(session: LiveSession, tree: ActivityResult, ended: boolean, now: Date): Promise<void> {
    if (!session.launchHistoryId) return;
    const launchSeconds = Math.max(0, trackedSeconds(tree.timeTracked) - (session.settings.launchBaseSeconds ?? trackedSeconds(tree.timeTracked)));
    await this.dataSource.getRepository(LaunchHistoryEntity).update(
      { appId: session.appId, id: session.launchHistoryId },
      { completion: tree.activityCompletion, success: tree.activitySuccess, scoreScaled: tree.score?.scaled ?? null, totalSeconds: launchSeconds, lastRuntimeUpdate: now, ...(ended ? { exitTime: now } : {}) },
    );
  }

  private pickActivity(version: CourseVersionEntity, preferred?: string): LaunchableActivity | undefined {
    const all = version.package?.launchables ?? [];
    return (preferred ? all.find((a) => a.id === preferred) : undefined) ?? all.find((a) => a.data.scormType === 'sco') ?? all[0];
  }

  // ---- sessions ---------------------------------------------------------------------------------------------

  /** The live session of a session token; 410 when it ended, 400 when the token is not ours. */
  async requireSession(token: string): Promise<LiveSession> {
    return liveSession(await this.sessions.findOneBy({ id: sessionIdOf(this.sessionTokens, token) }));
  }

  /** The registration, instance and course version a session runs (a preview: the course version alone). */
  private async sessionContext(session: LiveSession): Promise<SessionContext> {
    const preview = session.settings.preview;
    if (preview) {
      const version = await this.versions.findOneBy({ appId: session.appId, courseId: preview.courseId, version: preview.version });
      if (!version?.package) throw new PlayerError(410, 'This course is no longer available', 'The course of this preview has been deleted.');
      return { reg: null, inst: null, version, launchables: version.package.launchables };
    }
    const reg = await this.registrations.findOneBy({ appId: session.appId, id: session.registrationId });
    const inst = reg ? await this.instances.findOneBy({ appId: session.appId, registrationId: session.registrationId, instance: session.instance }) : null;
    if (!reg || !inst) throw new PlayerError(410, 'This course is no longer available', 'The registration no longer exists.');
    const version = await this.versions.findOneBy({ appId: session.appId, courseId: reg.courseId, version: inst.courseVersion });
    if (!version?.package) throw new PlayerError(410, 'This course is no longer available', 'The course of this registration has been deleted.');
    return { reg, inst, version, launchables: version.package.launchables };
  }

  /**
   * The activity as a fresh SCORM API starts it: its stored runtime, the learner, its launch URL. The link's culture
   * is the learner's language preference; its additional values are query parameters of the content's URL.
   */
  private activityLaunch(session: LiveSession, ctx: SessionContext, launchable: LaunchableActivity, engine?: SequencingEngine): ActivityLaunch {
    const s = session.settings;
    const { reg, inst } = ctx;
    const node = inst?.activityDetails ? findActivity(inst.activityDetails, launchable.id) : null;
    const learner = reg ? { id: reg.learnerId, name: [reg.learnerLastName, reg.learnerFirstName].filter((x) => x).join(', ') } : PREVIEW_LEARNER;
    const passing = passingOf(launchable);
    const masteryScore = s.standard === '1.2' && passing !== undefined ? Math.round(passing * 100) : undefined;
    const cmi = initialCmi(s.standard, node?.runtime, learner, {
      totalSeconds: attemptSecondsOf(node),
      ...(typeof launchable.data.dataFromLms === 'string' ? { launchData: launchable.data.dataFromLms } : {}),
      ...(masteryScore !== undefined ? { masteryScore } : {}),
      ...(s.standard === '2004' && passing !== undefined ? { scaledPassingScore: passing } : {}),
      ...(s.noCredit ? { noCredit: true } : {}),
    });
    // The preferences the SCO stored last; the link's culture is the language until the SCO sets one.
    Object.assign(cmi, learnerPreferenceCmi(s.standard, node?.runtime?.learnerPreference));
    if (s.culture && !node?.runtime?.learnerPreference?.language) cmi[languageElement(s.standard)] = s.culture;
    if (engine) {
      objectiveCmi(engine, launchable.id, cmi);
      // Resume all delivers the suspended activity: its SCO resumes (cmi.entry), whatever cmi.exit it left with.
      if (s.resumed === launchable.id) cmi['cmi.entry'] = 'resume';
    }
    const aicc = ctx.version.learningStandard === 'AICC';
    const cmi5 = ctx.version.learningStandard === 'CMI5' && s.cmi5?.auId === launchable.id ? s.cmi5 : null;
    const xapi = ctx.version.learningStandard === 'XAPI' || cmi5 !== null;
    const href = this.launchHref(launchable, s, [
      aicc ? aiccLaunchQuery(aiccSessionId(this.keys, session.id, launchable.id), `${this.config.publicUrl}${HACP_PATH}`) : '',
      ctx.version.learningStandard === 'XAPI' ? this.xapiQuery(session, reg, ctx.version, learner) : '',
      cmi5 ? this.cmi5.launchQuery(session.appId, session.id, new Date(session.expiresAt), cmi5) : '',
    ]);
    const media = mediaOf(ctx.version);
    const shared = engine?.sharedDataOf(launchable.id);
    return {
      ...(shared?.maps.length ? { sharedData: shared } : {}),
      activityId: launchable.id,
      title: launchable.title,
      contentHref: href,
      cmi,
      ...(media ? { media: media.kind } : {}),
      ...(aicc ? { aicc: true as const } : {}),
      ...(xapi ? { xapi: true as const } : {}),
      ...(cmi5 && launchable.data.launchMethod === 'OwnWindow' ? { ownWindow: true as const } : {}),
    };
  }

  /** A launchable's href with its own parameters, the link's additional values and the standard's launch parameters. */
  private launchHref(launchable: LaunchableActivity, s: PlayerSessionSettings, launchQueries: string[]): string {
    const query = [launchable.parameters?.replace(/^[?&]/, ''), ...(s.additionalValues ?? []).map((p) => `${encodeURIComponent(p.item)}=${encodeURIComponent(p.value)}`), ...launchQueries].filter((q) => q);
    return launchable.href + (query.length ? (launchable.href.includes('?') ? '&' : '?') + query.join('&') : '');
  }

  /**
   * The TinCan launch parameters of an xAPI course: the application's LRS, a launch token bound to the registration and
   * learner that lives as long as the session, the learner's Agent, the registration and the course's activity id. A
   * preview runs as the preview learner in a registration of its own (the session id).
   */
  private xapiQuery(session: LiveSession, reg: RegistrationEntity | null, version: CourseVersionEntity, learner: { id: string; name: string }): string {
    const registration = reg ? reg.xapiRegistrationId : session.id;
    const actor = xapiLearnerActor(this.config.publicUrl, learner);
    const expiresInSeconds = Math.max(1, Math.floor((new Date(session.expiresAt).getTime() - Date.now()) / 1000));
    const activityId = version.xapiActivityId ?? version.rootActivity?.externalIdentifier ?? '';
    // A launch that captures history lists the statements sent with its token in its log.
    const log = session.settings.history?.rte && session.launchHistoryId ? { log: session.id } : {};
    // The content keeps its own data in the activity profiles of its course's activity (and the ids under it).
    const { authorization } = this.lrsTokens.mint(session.appId, { registration, actor, expiresInSeconds, activities: activityId ? [activityId] : [], ...log });
    return xapiLaunchQuery({ endpoint: `${this.config.publicUrl}/lrs/${encodeURIComponent(session.appId)}/`, auth: authorization, actor, registration, activityId });
  }

  async pageModel(token: string): Promise<PlayerPageModel> {
    const session = await this.requireSession(token);
    const s = session.settings;
    const ctx = await this.sessionContext(session);
    const { inst, version, launchables } = ctx;
    const launchable = launchables.find((a) => a.id === s.activityId);
    if (!launchable) throw new PlayerError(410, 'This course is no longer available', 'The course of this registration has been deleted.');
    const def = s.sequenced ? sequencingDefinitionFor(definitionOf(version), s.tracked) : undefined;
    const engine = def ? engineOf(def, s.tracking ? await this.sequencingStateOf({ appId: session.appId, registrationId: session.registrationId, instance: session.instance }) : s.seqState) : undefined;
    const first = this.activityLaunch(session, ctx, launchable, engine);
    return {
      ...first,
      title: first.title || version.title,
      courseTitle: version.title,
      version: s.standard,
      tracking: s.tracking,
      redirectOnExitUrl: s.redirectOnExitUrl,
      ...(s.cssUrl ? { cssUrl: s.cssUrl } : {}),
      ...(s.culture ? { culture: s.culture } : {}),
      launchType: await this.launchTypeOf(session, version),
      client: s.client ?? DEFAULT_CLIENT_SETTINGS,
      ...(s.exit ? { exit: s.exit } : {}),
      ui: s.ui ?? DEFAULT_PLAYER_UI,
      ...(inst?.activityDetails ? { progress: progressOf(inst.activityDetails) } : {}),
      nav: buildNav(version.rootActivity, launchables, version.package?.packageData, s.standard === '2004', inst?.activityDetails ?? null),
      ...(engine && def ? { seq: { nav: navOf(engine, s.ui?.lookahead), hidden: invisibleOf(def), ids: def.order, hideUi: hideLmsUiOf(launchables) } } : {}),
      ...(s.history?.rte && session.launchHistoryId ? { history: { level: s.history.rte, timings: s.history.timings === true } } : {}),
    };
  }

  /**
   * The SCO's runtime calls the player page recorded (`lines`: [milliseconds ago, text] each, the page's clock only
   * measuring ages, so the server's clock dates them), appended to the launch's history log. Ignored when the launch
   * does not capture the runtime; 400 for a body that is not such a list.
   */
  async appendRuntimeLog(token: string, body: { lines?: unknown } | undefined): Promise<void> {
    const session = await this.requireSession(token);
    const lines = body?.lines;
    const valid = Array.isArray(lines) && lines.length <= RUNTIME_LOG_BATCH && lines.every((l) => Array.isArray(l) && l.length === 2 && typeof l[0] === 'number' && Number.isFinite(l[0]) && l[0] >= 0 && typeof l[1] === 'string');
    if (!valid) throw new PlayerError(400, 'Bad request', `lines must be a list of at most ${RUNTIME_LOG_BATCH} [milliseconds ago, text] pairs`);
    if (!session.settings.history?.rte || !session.launchHistoryId) return;
    const now = Date.now();
    const text = (lines as Array<[number, string]>).map(([ago, line]) => historyLine('rte', line, new Date(now - Math.min(ago, SESSION_TTL_SECONDS * 1000)))).join('');
    await this.historyLog.append(session, text);
  }

  /**
   * Where the SCOs run: PlayerScoLaunchType when it is set (read at launch), else the effective PlayerLaunchType of
   * the session's registration instance (a preview: of its course version).
   */
  private async launchTypeOf(session: LiveSession, version: CourseVersionEntity): Promise<string> {
    if (session.settings.ui?.scoLaunchType) return session.settings.ui.scoLaunchType;
    const preview = session.settings.preview;
    const target: SettingTarget = preview ? this.previewTarget(preview, version) : await this.registrationsService.settingTarget(session.appId, session.registrationId, session.instance);
    return (await this.settings.effective(session.appId, target, ['PlayerLaunchType'])).get('PlayerLaunchType') ?? 'FRAMESET';
  }

  /** The settings target of a course preview: its course version. */
  private previewTarget(preview: { courseId: string; version: number }, version: CourseVersionEntity): SettingTarget {
    return { level: 'courseVersion', courseId: preview.courseId, version: preview.version, learningStandard: version.learningStandard, singleSco: (version.package?.launchables.length ?? 0) <= 1 };
  }

  /**
   * Switches the session to another launchable activity of the course (Continue, Previous, a table-of-contents
   * choice, a SCO's navigation request). The player commits the activity it leaves first; this counts a new attempt
   * on the one it enters (not when it resumes a suspended attempt) and returns what a fresh API starts it with.
   */
  async switchActivity(token: string, activityId: unknown): Promise<ActivityLaunch> {
    const session = await this.requireSession(token);
    if (typeof activityId !== 'string' || !activityId) throw new PlayerError(400, 'Bad request', 'activityId is required');
    if (session.settings.sequenced) {
      // A sequenced course: the switch is a choice navigation request, which the engine may refuse.
      const outcome = await this.navigate(token, { request: 'choice', target: activityId });
      if (outcome.error || !outcome.launch || outcome.launch.activityId !== activityId) throw new PlayerError(409, 'Not allowed', outcome.error ?? 'The sequencing rules do not allow this activity now.');
      return outcome.launch;
    }
    const where = { appId: session.appId, registrationId: session.registrationId, instance: session.instance };
    for (let attempt = 0; attempt < 5; attempt++) {
      const ctx = await this.sessionContext(session);
      const { inst, launchables } = ctx;
      const launchable = launchables.find((a) => a.id === activityId);
      if (!launchable) throw new PlayerError(404, 'No such activity', 'The course has no launchable activity with this id.');
      const tree = inst?.activityDetails ?? null;
      const node = tree ? findActivity(tree, launchable.id) : null;
      const cmi5 = ctx.version.learningStandard === 'CMI5';
      const now = new Date();
      let satisfiedFirst: NewlySatisfied[] = [];
      if (session.settings.tracking && inst && tree && node) {
        if (node.runtime?.exit !== 'suspend') {
          startNewAttempt(node, session.settings.resetRuntime, node.attempts, session.settings.noCredit === true);
          node.attempts += 1;
        }
        if (cmi5) satisfiedFirst = rollUpCmi5(tree, ausOf(launchables));
        else rollUp(tree, rollupOf(session));
        const res = await this.instances.update({ ...where, commitSeq: inst.commitSeq }, { activityDetails: tree, ...summaryOf(tree, inst.completedAt, now), lastAccessAt: now, updatedAt: now });
        if (!res.affected) continue;
        await this.recordLaunch(session, tree, false, now);
      }
      const passing = passingOf(launchable);
      const settings: PlayerSessionSettings = { ...session.settings, activityId: launchable.id, baseSeconds: trackedSeconds(node?.timeTracked), attemptBaseSeconds: attemptSecondsOf(node) };
      delete settings.passing;
      if (passing !== undefined) settings.passing = passing;
      if (settings.aicc) settings.aicc = { seq: settings.aicc.seq }; // the next AU starts from its stored state
      if (settings.statements) settings.statements = { ...settings.statements, activityTitle: launchable.title ?? launchable.id };
      if (cmi5) {
        const { reg } = ctx;
        const learner = reg ? { id: reg.learnerId, name: [reg.learnerLastName, reg.learnerFirstName].filter((x) => x).join(', ') } : PREVIEW_LEARNER;
        settings.cmi5 = await this.startCmi5(session.id, settings, ctx.version, launchable, where, reg ? reg.xapiRegistrationId : session.id, learner, satisfiedFirst, now, node, session.settings.cmi5?.strict === true, new Date(session.expiresAt));
      }
      await this.sessions.update({ id: session.id }, { settings });
      if (settings.history?.control && session.launchHistoryId) {
        const from = session.settings.activityId;
        await this.historyLog.append(session, historyLine('activity', `${JSON.stringify(from)} -> ${JSON.stringify(launchable.id)}${node?.runtime?.exit === 'suspend' ? ' (resuming a suspended attempt)' : ''}`, now));
      }
      const next = { ...session, settings } as LiveSession;
      return this.activityLaunch(next, ctx, launchable);
    }
    throw new PlayerError(409, 'Busy', 'The registration is being updated by another session; retry');
  }

  /**
   * The learner left the player page of an xAPI or cmi5 launch (its unload beacon; SCORM, AICC and media launches end
   * with their final commit). The first call sets the launch's exit time. xAPI content reports no session time: the
   * time from the launch to now is the launch's, added to the registration's. cmi5: the AU's terminated statement
   * carries the session's duration and ends the launch (Cmi5Runtime); this only marks the exit of a launch whose AU
   * never terminated.
   */
  async leave(token: string): Promise<void> {
    const session = await this.requireSession(token);
    const s = session.settings;
    // SCORM, AICC and media sessions name their launch statements' subject; xAPI and cmi5 sessions do not.
    if (!s.tracking || !session.launchHistoryId || s.statements) return;
    const now = new Date();
    const history = this.dataSource.getRepository(LaunchHistoryEntity);
    // The page may say it twice (pagehide, beforeunload): the first call claims the exit.
    const claimed = await history.update({ appId: session.appId, id: session.launchHistoryId, exitTime: IsNull() }, { exitTime: now });
    if (!claimed.affected || s.cmi5) return;
    const launch = await history.findOne({ where: { appId: session.appId, id: session.launchHistoryId }, select: { id: true, launchTime: true } });
    if (!launch) return;
    const seconds = Math.max(0, Math.round((now.getTime() - launch.launchTime.getTime()) / 1000));
    const where = { appId: session.appId, registrationId: session.registrationId, instance: session.instance };
    await this.applyStatementProgress(
      where,
      (tree, version) => {
        if (version.learningStandard !== 'XAPI') return false;
        tree.timeTracked = formatTracked(trackedSeconds(tree.timeTracked) + seconds);
        return { completedAt: null, seconds, ended: true };
      },
      session.launchHistoryId,
    );
  }

  /** Where the learner goes when the content sends them back (cmi5 returnURL): the link's redirectOnExitUrl, if any. */
  async exitTarget(token: string): Promise<string | null> {
    const row = await this.sessions.findOneBy({ id: sessionIdOf(this.sessionTokens, token) });
    const target = row?.settings?.redirectOnExitUrl;
    return target && /^https?:\/\//i.test(target) ? target : null;
  }

  /** Where a session's content lives in the content store. */
  async contentPrefix(token: string): Promise<string> {
    const session = await this.requireSession(token);
    const { version } = await this.sessionContext(session);
    return version.contentPrefix.endsWith('/') ? version.contentPrefix : `${version.contentPrefix}/`;
  }

  /** The media file of a media course session (the viewer page plays it). */
  async mediaOf(token: string): Promise<{ kind: MediaKind; file: string; title: string; thresholds: MediaThresholds }> {
    const session = await this.requireSession(token);
    const { version } = await this.sessionContext(session);
    const media = mediaOf(version);
    if (!media) throw new PlayerError(404, 'Not a media course', 'This course is not a single media file.');
    return { ...media, title: version.title, thresholds: session.settings.media ?? DEFAULT_MEDIA_THRESHOLDS };
  }

  /**
   * The live session an AICC `aicc_sid` names, with the activity it runs now and what a fresh launch of it starts
   * with (HACP GetParam); null when the sid is not one of ours, the session ended, or the player left that AU.
   */
  async aiccSession(sid: string): Promise<{ session: LiveSession; token: string; launch: ActivityLaunch; launchable: LaunchableActivity } | null> {
    const id = sessionIdOfAiccSid(sid);
    const row = id ? await this.sessions.findOneBy({ id }) : null;
    if (!row || !row.usedAt || !row.settings?.activityId || row.expiresAt.getTime() <= Date.now()) return null;
    if (aiccSessionId(this.keys, row.id, row.settings.activityId) !== sid.trim().toLowerCase()) return null;
    const session = row as LiveSession;
    const ctx = await this.sessionContext(session).catch((err: unknown) => {
      if (err instanceof PlayerError) return null;
      throw err;
    });
    const launchable = ctx?.launchables.find((a) => a.id === session.settings.activityId);
    if (!ctx || !launchable) return null;
    const token = encodeToken(this.keys, { t: 'session', id: row.id, exp: Math.floor(row.expiresAt.getTime() / 1000) } satisfies SessionClaims);
    return { session, token, launch: this.activityLaunch(session, ctx, launchable), launchable };
  }

  // ---- commits ----------------------------------------------------------------------------------------------

  /**
   * Applies one commit of the SCO's data model in one short transaction: the activity's runtime and status, the
   * rolled-up summary, commit_seq, and the launch's history row. Commits are ordered: one whose sequence number is
   * not above the stored commit_seq (a retry, or an older one arriving late) is acknowledged and ignored.
   */
  async commit(token: string, body: CommitBody): Promise<{ applied: boolean; activityCompletion?: string; activitySuccess?: string; nav?: SequencingNav }> {
    let { session, inst } = await this.commitContext(token);
    const s = session.settings;
    if (!Number.isSafeInteger(body.seq) || body.seq < 1) throw new PlayerError(400, 'Bad commit', 'seq must be a positive integer');
    if (body.activityId !== s.activityId) throw new PlayerError(400, 'Bad commit', 'activityId is not the activity of this session');
    if (typeof body.cmi !== 'object' || body.cmi === null || Array.isArray(body.cmi)) throw new PlayerError(400, 'Bad commit', 'cmi must be an object');
    if (body.sharedData !== undefined && (typeof body.sharedData !== 'object' || body.sharedData === null || Array.isArray(body.sharedData))) {
      throw new PlayerError(400, 'Bad commit', 'sharedData must be an object of adl.data stores by target id');
    }
    if (!s.tracking) return { applied: false };
    const seq = (s.seqBase ?? 0) + body.seq;
    const where = { appId: session.appId, registrationId: session.registrationId, instance: session.instance };
    for (let attempt = 0; attempt < 5; attempt++) {
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
        engine.reportRuntime(s.activityId, runtimeResultsOf(ruled ? ruledCmi(body.cmi, state) : body.cmi, sessionSeconds));
        if (body.sharedData) engine.writeSharedData(s.activityId, body.sharedData);
        applyEngine(tree, engine);
        seqState = serializeEngine(engine);
        if (JSON.stringify(engine.globalObjectives()) !== globalsBefore) globalObjectives = globalObjectivesOf(engine);
      } else {
        if (rules.firstScoIsPretest && s.standard === '1.2') applyPretest(tree, s.activityId);
        rollUp(tree, rollupOf(session), s.activityId);
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
        // The course's state after this commit: the page's exit actions depend on whether the course is satisfied.
        registrationCompletion: completion,
        registrationSuccess: tree.activitySuccess,
        ...(engine && seqState !== inst.sequencingState ? { nav: navOf(engine, s.ui?.lookahead) } : {}),
        // PlayerUseMeasureProgressBar: the page's progress bar shows the registration's completion amount.
        ...(s.ui?.measureProgressBar ? { progress: progressOf(tree) } : {}),
      };
      const applied = await this.commitStore.store(where, inst.commitSeq, {
        activityDetails: jsonColumn.to(tree) as string,
        completion,
        success: tree.activitySuccess,
        completionAmount: completion === 'COMPLETED' ? 1 : (tree.completionAmount?.scaled ?? 0),
        scoreScaled: tree.score?.scaled ?? null,
        totalSeconds: trackedSeconds(tree.timeTracked),
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
   * The live session of a commit and the instance it writes (activity tree and commit_seq), in one query; the
   * instance is null when it is gone.
   */
  private async commitContext(token: string): Promise<{ session: LiveSession; inst: Pick<RegistrationInstanceEntity, 'activityDetails' | 'commitSeq' | 'sequencingState' | 'xapiReported'> | null }> {
    const row = await this.contexts.read(sessionIdOf(this.sessionTokens, token));
    const session = liveSession(row ? this.sessionOfRow(row) : null);
    const inst =
      row && row.i_seq !== null
        ? { activityDetails: jsonColumn.from(row.i_tree) as ActivityResult | null, commitSeq: Number(row.i_seq), sequencingState: row.i_seqstate ?? null, xapiReported: row.i_reported ?? null }
        : null;
    return { session, inst };
  }

  /** A player_session row read by raw SQL, as TypeORM would hydrate it (dates: the driver's own conversion). */
  private sessionOfRow(row: CommitContextRow): PlayerSessionEntity {
    const driver = this.dataSource.driver;
    const columns = this.sessions.metadata;
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
    if (this.settingsByText.size >= SETTINGS_CACHE_SIZE) this.settingsByText.delete(this.settingsByText.keys().next().value!);
    this.settingsByText.set(sessionId, { raw, settings });
    return settings;
  }

  /** The course version a sequenced session runs (its definition is cached by content prefix; this reads the row). */
  private async sequencedVersion(session: LiveSession): Promise<CourseVersionEntity> {
    return (await this.sessionContext(session)).version;
  }

  /**
   * The progress of an xAPI registration from the result statements its content sent to the LRS (a job of
   * XapiProgress): the latest instance's root activity, summary and latest launch history, stored like a commit (its
   * commit_seq advances, so it orders with other updates), then a postback. Statements of registrations of other
   * courses, or about other activities or actors, change nothing.
   */
  async applyXapiResults(appId: string, registration: string, statements: XapiResultStatement[]): Promise<unknown> {
    const reg = await this.registrations.findOneBy({ appId, xapiRegistrationId: registration.toLowerCase() });
    if (!reg) return { skipped: 'no registration' };
    const actor = agentKey(xapiLearnerActor(this.config.publicUrl, { id: reg.learnerId, name: '' })) ?? '';
    let skipped: string | null = null;
    const tree = await this.applyStatementProgress({ appId, registrationId: reg.id, instance: reg.latestInstance }, (root, version) => {
      if (version.learningStandard !== 'XAPI') {
        skipped = 'not an xAPI registration';
        return false;
      }
      const applied = applyXapiResults(root, statements, { activityId: version.xapiActivityId ?? root.id, actor });
      if (!applied) skipped = 'no statement about the course by its learner';
      return applied;
    });
    if (!tree) return { skipped: skipped ?? 'not an xAPI registration' };
    return { applied: statements.length, completion: tree.activityCompletion, success: tree.activitySuccess };
  }

  /**
   * Progress from statements (xAPI courses' result statements, cmi5 AUs' statements): `change` updates the
   * instance's tree (false: nothing to change), which is stored like a commit with the summary and a launch history
   * row, the launch's (`launchHistoryId`) or else the latest (commit_seq advances, so it orders with other updates;
   * retried when another update won), then a postback. The change's `seconds` (a cmi5 session's duration) add to the
   * launch's time; `ended` (cmi5 terminated) sets its exit time. Returns the stored tree, or null when nothing changed.
   */
  async applyStatementProgress(where: InstanceKey, change: (tree: ActivityResult, version: CourseVersionEntity) => StatementChange | false, launchHistoryId?: string | null): Promise<ActivityResult | null> {
    const { appId } = where;
    for (let attempt = 0; attempt < 5; attempt++) {
      const inst = await this.instances.findOneBy(where);
      const reg = inst ? await this.registrations.findOne({ where: { appId, id: where.registrationId }, select: { courseId: true } }) : null;
      const version = inst && reg ? await this.versions.findOneBy({ appId, courseId: reg.courseId, version: inst.courseVersion }) : null;
      if (!inst?.activityDetails || !version) return null;
      const tree = inst.activityDetails;
      const progressBefore = progressSummary(tree);
      const applied = change(tree, version);
      if (!applied) return null;
      const values = await this.settings.effective(appId, { level: 'registrationInstance', registrationId: where.registrationId, instance: inst.instance, course: settingCourseRef(version) }, ['UseStatementTimestampInRegistrationUpdates']);
      const useTimestamp = values.get('UseStatementTimestampInRegistrationUpdates') !== 'false';
      const latest = await this.dataSource
        .getRepository(LaunchHistoryEntity)
        .findOne({ where: launchHistoryId ? { appId, id: launchHistoryId } : where, order: { launchTime: 'DESC' }, select: { id: true, totalSeconds: true } });
      const stored = await this.commitStore.store(where, inst.commitSeq, {
        activityDetails: jsonColumn.to(tree) as string,
        completion: tree.activityCompletion,
        success: tree.activitySuccess,
        completionAmount: tree.activityCompletion === 'COMPLETED' ? 1 : (tree.completionAmount?.scaled ?? 0),
        scoreScaled: tree.score?.scaled ?? null,
        totalSeconds: trackedSeconds(tree.timeTracked),
        suspendedActivityId: null,
        commitSeq: inst.commitSeq + 1,
        launchHistoryId: latest?.id ?? null,
        launchSeconds: (latest?.totalSeconds ?? 0) + (applied.seconds ?? 0),
        final: applied.ended === true,
        ...(useTimestamp && applied.completedAt ? { at: applied.completedAt } : {}),
        progressBefore,
      });
      if (!stored) continue;
      await this.postbacks.schedule(appId, where.registrationId, inst.instance);
      return tree;
    }
    throw new Error('Progress from statements: the registration kept changing; retrying');
  }
}
