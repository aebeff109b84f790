import { affectedBy, type LeanStatement, leanUpdate } from '../../platform/database/lean-read';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { KeyRing } from '../../platform/crypto/keyring';
import { CoursesService } from '../courses/courses.service';
import type { MediaKind } from '../courses/packages/media-parser';
import type { LaunchableActivity } from '../courses/packages/package-types';
import { RegistrationProgress } from '../registrations/registration-progress';
import type { ActivityResult } from '../registrations/registration-types';
import { SettingTarget } from '../settings/settings.service';
import { Cmi5Runtime } from './cmi5-runtime';
import { PlayerXapi } from './player-xapi';
import { languageElement, learnerPreferenceCmi } from './learner-preference';
import { attemptSecondsOf } from './attempt-data';
import { PlayerError } from './player-errors';
import { PlayerSessionEntity, PlayerSessionSettings } from './player-session.entity';
import { encodeToken, SessionClaims, VerifiedSessionTokens } from './player-tokens';
import { aiccLaunchQuery, aiccSessionId, HACP_PATH } from './aicc-hacp';
import { objectiveCmi } from './player-sequencing';
import { SequencingEngine } from '../sequencing/sequencing-engine';
import { DEFAULT_ROLLUP_RULES, findActivity, FlatCmi, initialCmi, RollupRules, ScormVersion, trackedSeconds } from './scorm-runtime';
import type { CourseVersion } from '../courses/course-version';
import type { InstanceRecord, RegistrationRecord } from '../registrations/registration-records';

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

export interface SessionContext {
  reg: RegistrationRecord | null;
  inst: InstanceRecord | null;
  version: CourseVersion;
  launchables: LaunchableActivity[];
}

/** Who a course preview runs as (no registration, no learner). */
export const PREVIEW_LEARNER = { id: 'preview', name: 'Preview' };

/** The media file of a media course (a single PDF, video or audio file), from what its import kept. */
export const mediaOf = (version: CourseVersion): { kind: MediaKind; file: string } | null => {
  const media = version.package?.packageData?.media as { kind?: MediaKind; file?: string } | undefined;
  return media?.kind && media.file ? { kind: media.kind, file: media.file } : null;
};

/** The rolled-up completion amount of a registration's tree (0..1; completed is 1). */
export const progressOf = (tree: ActivityResult): number => (tree.activityCompletion === 'COMPLETED' ? 1 : (tree.completionAmount?.scaled ?? 0));

/** The registration summary of a tree the sequencing engine (or cmi5's rollup) rolled up (its root). */
export const summaryOf = (tree: ActivityResult, completedAt: Date | null, now: Date) => ({
  completion: tree.activityCompletion,
  success: tree.activitySuccess,
  completionAmount: tree.activityCompletion === 'COMPLETED' ? 1 : (tree.completionAmount?.scaled ?? 0),
  scoreScaled: tree.score?.scaled ?? null,
  completedAt: completedAt ?? (tree.activityCompletion === 'COMPLETED' ? now : null),
});

export type LiveSession = PlayerSessionEntity & { settings: PlayerSessionSettings & { standard: ScormVersion } };

export const standardVersion = (standard: string): ScormVersion | null => (standard === 'SCORM12' || standard === 'AICC' ? '1.2' : standard.startsWith('SCORM2004') ? '2004' : null);

/** The scaled passing score of a launchable (SCORM 1.2 mastery score / 100, SCORM 2004 minNormalizedMeasure). */
export const passingOf = (launchable: LaunchableActivity): number | undefined => {
  const n = launchable.data.scaledPassingScore !== undefined ? Number(launchable.data.scaledPassingScore) : undefined;
  return n !== undefined && Number.isFinite(n) ? n : undefined;
};

/** The session id of a session token; 400 when the token is not ours, 410 when it expired. */
export function sessionIdOf(tokens: VerifiedSessionTokens, token: string): string {
  const claims = tokens.decode(token);
  if (claims === 'malformed') throw new PlayerError(400, 'This page is not valid', 'The address of the player is damaged. Launch the course again.');
  if (claims === 'expired') throw new PlayerError(410, 'This session has ended', 'The player session has expired. Launch the course again.');
  return claims.id;
}

/** The session row if it is live (launched, not expired); 410 otherwise. */
export function liveSession(row: PlayerSessionEntity | null): LiveSession {
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
export const rollupOf = (session: LiveSession): RollupRules => session.settings.rollup ?? { ...DEFAULT_ROLLUP_RULES, kind: session.settings.standard === '2004' ? 'simple' : 'units' };

/**
 * The player's sessions: the live session of a token, what it runs (registration, instance, course version, asked of
 * their modules), what a fresh SCORM API starts an activity with, and the session row's own changes.
 */
@Injectable()
export class PlayerSessions {
  readonly tokens: VerifiedSessionTokens;

  constructor(
    @InjectRepository(PlayerSessionEntity) private readonly rows: Repository<PlayerSessionEntity>,
    private readonly progress: RegistrationProgress,
    private readonly courses: CoursesService,
    private readonly keys: KeyRing,
    private readonly cmi5: Cmi5Runtime,
    private readonly xapi: PlayerXapi,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.tokens = new VerifiedSessionTokens(keys);
  }

  /** The launch sessions of deleted registrations (their settings carry the learner's name). */
  async forgetSessions(appId: string, registrationIds: string[]): Promise<void> {
    for (let i = 0; i < registrationIds.length; i += 500) await this.rows.delete({ appId, registrationId: In(registrationIds.slice(i, i + 500)) });
  }

  /** The live session of a session token; 410 when it ended, 400 when the token is not ours. */
  async requireSession(token: string): Promise<LiveSession> {
    return liveSession(await this.rows.findOneBy({ id: sessionIdOf(this.tokens, token) }));
  }

  /** The registration, instance and course version a session runs (a preview: the course version alone). */
  async sessionContext(session: LiveSession): Promise<SessionContext> {
    const preview = session.settings.preview;
    if (preview) {
      const version = await this.courses.findVersion(session.appId, preview.courseId, preview.version);
      if (!version?.package) throw new PlayerError(410, 'This course is no longer available', 'The course of this preview has been deleted.');
      return { reg: null, inst: null, version, launchables: version.package.launchables };
    }
    const reg = await this.progress.registration(session.appId, session.registrationId);
    const inst = reg ? await this.progress.instance({ appId: session.appId, registrationId: session.registrationId, instance: session.instance }) : null;
    if (!reg || !inst) throw new PlayerError(410, 'This course is no longer available', 'The registration no longer exists.');
    const version = await this.courses.findVersion(session.appId, reg.courseId, inst.courseVersion);
    if (!version?.package) throw new PlayerError(410, 'This course is no longer available', 'The course of this registration has been deleted.');
    return { reg, inst, version, launchables: version.package.launchables };
  }

  /**
   * The activity as a fresh SCORM API starts it: its stored runtime, the learner, its launch URL. The link's culture
   * is the learner's language preference; its additional values are query parameters of the content's URL.
   */
  activityLaunch(session: LiveSession, ctx: SessionContext, launchable: LaunchableActivity, engine?: SequencingEngine): ActivityLaunch {
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
      ctx.version.learningStandard === 'XAPI' ? this.xapi.xapiQuery(session, reg, ctx.version, learner) : '',
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
  launchHref(launchable: LaunchableActivity, s: PlayerSessionSettings, launchQueries: string[]): string {
    const query = [launchable.parameters?.replace(/^[?&]/, ''), ...(s.additionalValues ?? []).map((p) => `${encodeURIComponent(p.item)}=${encodeURIComponent(p.value)}`), ...launchQueries].filter((q) => q);
    return launchable.href + (query.length ? (launchable.href.includes('?') ? '&' : '?') + query.join('&') : '');
  }

  /**
   * The SCORM runtime the player runs a course version with (media courses run a 2004 API their viewer drives; xAPI
   * courses keep their progress in the same tree, but the page exposes no API to them).
   */
  runtimeOf(version: CourseVersion): ScormVersion {
    const scormVersion = standardVersion(version.learningStandard) ?? (mediaOf(version) || version.learningStandard === 'XAPI' || version.learningStandard === 'CMI5' ? '2004' : null);
    if (!scormVersion) throw new PlayerError(501, 'This course cannot be played yet', `The player does not run ${version.learningStandard} courses yet.`);
    return scormVersion;
  }

  requireActivity(version: CourseVersion, preferred?: string, sequenced = false): LaunchableActivity {
    if (sequenced && !preferred) throw new PlayerError(409, 'This course has nothing to launch', 'The sequencing rules of the course leave no activity to start.');
    const launchable = this.pickActivity(version, preferred);
    if (!launchable) throw new PlayerError(409, 'This course has nothing to launch', 'The course has no launchable activity.');
    return launchable;
  }

  private pickActivity(version: CourseVersion, preferred?: string): LaunchableActivity | undefined {
    const all = version.package?.launchables ?? [];
    return (preferred ? all.find((a) => a.id === preferred) : undefined) ?? all.find((a) => a.data.scormType === 'sco') ?? all[0];
  }

  /**
   * The session's launch history row as the registration stands after the player changed it outside a commit (a
   * navigation request's rollup and exit, a switch of activity): its statuses, score and time; `ended`: its exit time.
   */
  async recordLaunch(session: LiveSession, tree: ActivityResult, ended: boolean, now: Date): Promise<void> {
    if (!session.launchHistoryId) return;
    const launchSeconds = Math.max(0, trackedSeconds(tree.timeTracked) - (session.settings.launchBaseSeconds ?? trackedSeconds(tree.timeTracked)));
    await this.progress.recordLaunch(session.appId, session.launchHistoryId, {
      completion: tree.activityCompletion, success: tree.activitySuccess, scoreScaled: tree.score?.scaled ?? null, totalSeconds: launchSeconds, lastRuntimeUpdate: now, ...(ended ? { exitTime: now } : {}),
    });
  }

  /** The settings target of a course preview: its course version. */
  previewTarget(preview: { courseId: string; version: number }, version: CourseVersion): SettingTarget {
    return { level: 'courseVersion', courseId: preview.courseId, version: preview.version, learningStandard: version.learningStandard, singleSco: (version.package?.launchables.length ?? 0) <= 1 };
  }

  async openSession(id: string, settings: PlayerSessionSettings, launchHistoryId: string | null, now: Date): Promise<string> {
    const opened = this.sessionOpening(id, settings, launchHistoryId, now);
    await affectedBy(this.rows.manager.connection, opened.statement.sql, opened.statement.params);
    return opened.token;
  }

  /**
   * The write that opens a session (its settings, launch and expiry: SQL text made once) and the session token it
   * answers with, for a launch to run in its own transaction (RegistrationProgress.startLaunch). `settings` is
   * written as it is now.
   */
  sessionOpening(id: string, settings: PlayerSessionSettings, launchHistoryId: string | null, now: Date): { statement: LeanStatement; token: string } {
    const expiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000);
    const statement = leanUpdate(this.rows, ['launchHistoryId', 'expiresAt', 'settings'], ['id']).statement({ launchHistoryId, expiresAt, settings }, { id });
    return { statement, token: encodeToken(this.keys, { t: 'session', id, exp: Math.floor(expiresAt.getTime() / 1000) } satisfies SessionClaims) };
  }
}
