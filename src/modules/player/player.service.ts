import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { KeyRing } from '../../platform/crypto/keyring';
import type { AiPluginLaunchConfig } from '../aiplugin/ai-plugin-provider';
import { AiPluginService } from '../aiplugin/aiplugin.service';
import type { MediaKind } from '../courses/packages/media-parser';
import type { LaunchableActivity } from '../courses/packages/package-types';
import { RegistrationProgress } from '../registrations/registration-progress';
import { type HistoryLevel, historyLine, LaunchHistoryLog } from '../registrations/launch-history-log';
import { RegistrationsService } from '../registrations/registrations.service';
import { SettingsService, SettingTarget } from '../settings/settings.service';
import { ActivityLaunch, LiveSession, mediaOf, PlayerSessions, progressOf, SESSION_TTL_SECONDS, sessionIdOf } from './player-sessions';
import { PlayerError } from './player-errors';
import { type ExitBehaviour } from './launch-settings';
import { DEFAULT_MEDIA_THRESHOLDS, type MediaThresholds } from './player-media';
import { buildNav, PlayerNav } from './player-nav';
import { PlayerSessionEntity } from './player-session.entity';
import { DEFAULT_PLAYER_UI, type PlayerUiSettings } from './player-ui';
import { encodeToken, SessionClaims } from './player-tokens';
import { isAiccSessionId, sessionIdOfAiccSid } from './aicc-hacp';
import { definitionOf, engineOf, hideLmsUiOf, invisibleOf, navOf, SequencingNav } from './player-sequencing';
import { DEFAULT_CLIENT_SETTINGS, type PlayerClientSettings, sequencingDefinitionFor } from './tracking-rules';
import { formatTracked, ScormVersion, trackedSeconds } from './scorm-runtime';
import type { CourseVersion } from '../courses/course-version';

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
  /** PlayerTimeLimit: the seconds left of the course's time limit when the page loads. */
  timeLeft?: number;
  /** The player UI settings of the launch (nav bar, table of contents, progress bar, windows, lookahead). */
  ui: PlayerUiSettings;
  /** The registration's progress (0..1, its rolled-up completion amount): the measure progress bar starts from it. */
  progress?: number;
  /** SCORM 2004 courses: the valid navigation requests now, and the activities the table of contents hides. */
  seq?: { nav: SequencingNav; hidden: string[]; ids: string[]; hideUi: Record<string, string[]> };
  /** Launches that capture the runtime in their history log: the page records the SCO's API calls at this level. */
  history?: { level: HistoryLevel; timings: boolean };
  /** PlayerAlwaysFlowToFirstSco NO and the rules delivered nothing: the page runs no SCO and asks the learner to choose. */
  undelivered?: boolean;
  /** PlayerRollupRuntimeAtScoUnload NO: the page's session end rolls the registration up (its commits do not). */
  deferRollup?: boolean;
  /** The AI plugin is enabled for the launched course version: what the page carries for the partner (docs/aiplugin.md). */
  aiPlugin?: AiPluginLaunchConfig;
}

/** Most lines of one batch of the player page's runtime log. */
const RUNTIME_LOG_BATCH = 500;

/** The player page's session: its model, its runtime log, where its content lives, the learner leaving it, AICC's session lookup. */
@Injectable()
export class PlayerService {
  constructor(
    @InjectRepository(PlayerSessionEntity) private readonly sessionRows: Repository<PlayerSessionEntity>,
    private readonly sessions: PlayerSessions,
    private readonly progress: RegistrationProgress,
    private readonly keys: KeyRing,
    private readonly registrationsService: RegistrationsService,
    private readonly settings: SettingsService,
    private readonly historyLog: LaunchHistoryLog,
    private readonly aiPlugin: AiPluginService,
  ) {}

  async pageModel(token: string): Promise<PlayerPageModel> {
    const session = await this.sessions.requireSession(token);
    const s = session.settings;
    const ctx = await this.sessions.sessionContext(session);
    const { inst, version, launchables } = ctx;
    const launchable = launchables.find((a) => a.id === s.activityId);
    if (!launchable) throw new PlayerError(410, 'This course is no longer available', 'The course of this registration has been deleted.');
    const def = s.sequenced ? sequencingDefinitionFor(definitionOf(version), s.tracked) : undefined;
    const engine = def ? engineOf(def, s.tracking ? await this.progress.sequencingStateOf({ appId: session.appId, registrationId: session.registrationId, instance: session.instance }) : s.seqState) : undefined;
    const first = this.sessions.activityLaunch(session, ctx, launchable, engine);
    // Registrations' launches only: a preview has no registration or learner to name.
    const aiPlugin = ctx.reg && !s.preview ? await this.aiPlugin.launchConfig(session.appId, { courseId: version.courseId, version: version.version, registrationId: session.registrationId, learnerId: ctx.reg.learnerId }) : null;
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
      // PlayerTimeLimit: what is left of the course's time, now.
      ...(s.exit?.timeLimit && s.tracking && inst ? { timeLeft: Math.max(0, s.exit.timeLimit - (await this.progress.timeSpent({ appId: session.appId, registrationId: session.registrationId, instance: session.instance }, session.launchHistoryId))) } : {}),
      ui: s.ui ?? DEFAULT_PLAYER_UI,
      ...(inst?.activityDetails ? { progress: progressOf(inst.activityDetails) } : {}),
      nav: buildNav(version.rootActivity, launchables, version.package?.packageData, s.standard === '2004', inst?.activityDetails ?? null),
      ...(engine && def ? { seq: { nav: navOf(engine, s.ui?.lookahead), hidden: invisibleOf(def), ids: def.order, hideUi: hideLmsUiOf(launchables) } } : {}),
      ...(s.history?.rte && session.launchHistoryId ? { history: { level: s.history.rte, timings: s.history.timings === true } } : {}),
      ...(s.undelivered ? { undelivered: true } : {}),
      ...(s.deferRollup && s.tracking ? { deferRollup: true } : {}),
      ...(aiPlugin ? { aiPlugin } : {}),
    };
  }

  /**
   * The SCO's runtime calls the player page recorded (`lines`: [milliseconds ago, text] each, the page's clock only
   * measuring ages, so the server's clock dates them), appended to the launch's history log. Ignored when the launch
   * does not capture the runtime; 400 for a body that is not such a list.
   */
  async appendRuntimeLog(token: string, body: { lines?: unknown } | undefined): Promise<void> {
    const session = await this.sessions.requireSession(token);
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
  private async launchTypeOf(session: LiveSession, version: CourseVersion): Promise<string> {
    if (session.settings.ui?.scoLaunchType) return session.settings.ui.scoLaunchType;
    const preview = session.settings.preview;
    const target: SettingTarget = preview ? this.sessions.previewTarget(preview, version) : await this.registrationsService.settingTarget(session.appId, session.registrationId, session.instance);
    return (await this.settings.effective(session.appId, target, ['PlayerLaunchType'])).get('PlayerLaunchType') ?? 'FRAMESET';
  }

  /**
   * The learner left the player page of an xAPI or cmi5 launch (its unload beacon; SCORM, AICC and media launches end
   * with their final commit). The first call sets the launch's exit time. xAPI content reports no session time: the
   * time from the launch to now is the launch's, added to the registration's. cmi5: the AU's terminated statement
   * carries the session's duration and ends the launch (Cmi5Runtime); this only marks the exit of a launch whose AU
   * never terminated.
   */
  async leave(token: string): Promise<void> {
    const session = await this.sessions.requireSession(token);
    const s = session.settings;
    // SCORM, AICC and media sessions name their launch statements' subject; xAPI and cmi5 sessions do not.
    if (!s.tracking || !session.launchHistoryId || s.statements) return;
    const now = new Date();
    // The page may say it twice (pagehide, beforeunload): the first call claims the exit.
    const launchTime = await this.progress.claimLaunchExit(session.appId, session.launchHistoryId, now);
    if (!launchTime || s.cmi5) return;
    const seconds = Math.max(0, Math.round((now.getTime() - launchTime.getTime()) / 1000));
    const where = { appId: session.appId, registrationId: session.registrationId, instance: session.instance };
    await this.progress.applyStatementProgress(
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
    const row = await this.sessionRows.findOneBy({ id: sessionIdOf(this.sessions.tokens, token) });
    const target = row?.settings?.redirectOnExitUrl;
    return target && /^https?:\/\//i.test(target) ? target : null;
  }

  /** Where a session's content lives in the content store. */
  async contentPrefix(token: string): Promise<string> {
    const session = await this.sessions.requireSession(token);
    const { version } = await this.sessions.sessionContext(session);
    return version.contentPrefix.endsWith('/') ? version.contentPrefix : `${version.contentPrefix}/`;
  }

  /** The media file of a media course session (the viewer page plays it). */
  async mediaOf(token: string): Promise<{ kind: MediaKind; file: string; title: string; thresholds: MediaThresholds }> {
    const session = await this.sessions.requireSession(token);
    const { version } = await this.sessions.sessionContext(session);
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
    const row = id ? await this.sessionRows.findOneBy({ id }) : null;
    if (!row || !row.usedAt || !row.settings?.activityId || row.expiresAt.getTime() <= Date.now()) return null;
    if (!isAiccSessionId(this.keys, sid, row.id, row.settings.activityId)) return null;
    const session = row as LiveSession;
    const ctx = await this.sessions.sessionContext(session).catch((err: unknown) => {
      if (err instanceof PlayerError) return null;
      throw err;
    });
    const launchable = ctx?.launchables.find((a) => a.id === session.settings.activityId);
    if (!ctx || !launchable) return null;
    const token = encodeToken(this.keys, { t: 'session', id: row.id, exp: Math.floor(row.expiresAt.getTime() / 1000) } satisfies SessionClaims);
    return { session, token, launch: this.sessions.activityLaunch(session, ctx, launchable), launchable };
  }
}
