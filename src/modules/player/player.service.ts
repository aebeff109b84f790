import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, IsNull, Repository } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { KeyRing } from '../../platform/crypto/keyring';
import { CourseVersionEntity } from '../courses/entities/course-version.entity';
import type { LaunchableActivity } from '../courses/packages/package-types';
import { LaunchHistoryEntity } from '../registrations/entities/launch-history.entity';
import { RegistrationEntity } from '../registrations/entities/registration.entity';
import { RegistrationInstanceEntity } from '../registrations/entities/registration-instance.entity';
import type { LaunchLinkRequest } from '../registrations/launch-links';
import { RegistrationPostbacks } from '../registrations/registration-postbacks';
import { LaunchStatements } from '../xapi/launch-statements/launch-statements';
import { PlayerError } from './player-errors';
import { buildNav, PlayerNav } from './player-nav';
import { PlayerSessionEntity, PlayerSessionSettings } from './player-session.entity';
import { decodeToken, encodeToken, LaunchClaims, SessionClaims } from './player-tokens';
import { activityStateOf, findActivity, FlatCmi, formatTracked, initialCmi, rollUp, ScormVersion, trackedSeconds } from './scorm-runtime';

/** How long a player session lives after its launch (the content and commit URLs stop working after). */
export const SESSION_TTL_SECONDS = 8 * 3600;

/** What the player needs to run one activity (the page's first one, and each one it switches to). */
export interface ActivityLaunch {
  activityId: string;
  title: string;
  contentHref: string;
  cmi: FlatCmi;
}

/** What the player page needs: the activity it starts with, and the course's table of contents. */
export interface PlayerPageModel extends ActivityLaunch {
  /** The course's title (the page title). */
  courseTitle: string;
  version: ScormVersion;
  tracking: boolean;
  redirectOnExitUrl: string;
  cssUrl?: string;
  nav: PlayerNav;
}

export interface CommitBody {
  seq: number;
  activityId: string;
  cmi: FlatCmi;
  final?: boolean;
}

type LiveSession = PlayerSessionEntity & { settings: PlayerSessionSettings & { standard: ScormVersion } };

const standardVersion = (standard: string): ScormVersion | null => (standard === 'SCORM12' ? '1.2' : standard.startsWith('SCORM2004') ? '2004' : null);

/** The scaled passing score of a launchable (SCORM 1.2 mastery score / 100, SCORM 2004 minNormalizedMeasure). */
const passingOf = (launchable: LaunchableActivity): number | undefined => {
  const n = launchable.data.scaledPassingScore !== undefined ? Number(launchable.data.scaledPassingScore) : undefined;
  return n !== undefined && Number.isFinite(n) ? n : undefined;
};

/** Launch links, player sessions, and the commits of the runtime data the SCO reports. */
@Injectable()
export class PlayerService {
  constructor(
    @InjectRepository(PlayerSessionEntity) private readonly sessions: Repository<PlayerSessionEntity>,
    @InjectRepository(RegistrationEntity) private readonly registrations: Repository<RegistrationEntity>,
    @InjectRepository(RegistrationInstanceEntity) private readonly instances: Repository<RegistrationInstanceEntity>,
    @InjectRepository(CourseVersionEntity) private readonly versions: Repository<CourseVersionEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly keys: KeyRing,
    private readonly postbacks: RegistrationPostbacks,
    private readonly launchStatements: LaunchStatements,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // ---- launch links -----------------------------------------------------------------------------------------

  async issueLink(req: LaunchLinkRequest): Promise<string> {
    const id = randomUUID();
    const now = new Date();
    const exp = Math.floor(now.getTime() / 1000) + req.expirySeconds;
    const settings: PlayerSessionSettings = {
      redirectOnExitUrl: req.redirectOnExitUrl,
      tracking: req.tracking,
      ...(req.startSco ? { startSco: req.startSco } : {}),
      ...(req.culture ? { culture: req.culture } : {}),
      ...(req.cssUrl ? { cssUrl: req.cssUrl } : {}),
    };
    await this.sessions.insert({ id, appId: req.appId, registrationId: req.registrationId, instance: req.instance, launchHistoryId: null, createdAt: now, expiresAt: new Date(exp * 1000), usedAt: null, settings });
    const claims: LaunchClaims = {
      t: 'launch',
      id,
      app: req.appId,
      reg: req.registrationId,
      inst: req.instance,
      exp,
      redirect: req.redirectOnExitUrl,
      tracking: req.tracking,
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
    const reg = await this.registrations.findOneBy({ appId: claims.app, id: claims.reg });
    const inst = reg ? await this.instances.findOneBy({ appId: claims.app, registrationId: claims.reg, instance: claims.inst }) : null;
    if (!reg || !inst || !inst.activityDetails) throw new PlayerError(410, 'This course is no longer available', 'The registration of this launch link no longer exists.');
    const version = await this.versions.findOneBy({ appId: claims.app, courseId: reg.courseId, version: inst.courseVersion });
    if (!version) throw new PlayerError(410, 'This course is no longer available', 'The course of this registration has been deleted.');
    const scormVersion = standardVersion(version.learningStandard);
    if (!scormVersion) throw new PlayerError(501, 'This course cannot be played yet', `The player does not run ${version.learningStandard} courses yet.`);
    const launchable = this.pickActivity(version, claims.startSco ?? inst.suspendedActivityId ?? undefined);
    if (!launchable) throw new PlayerError(409, 'This course has nothing to launch', 'The course has no launchable activity.');

    const node = findActivity(inst.activityDetails, launchable.id);
    const baseSeconds = trackedSeconds(node?.timeTracked);
    let launchHistoryId: string | null = null;
    if (claims.tracking) {
      launchHistoryId = randomUUID();
      const resuming = node?.runtime?.exit === 'suspend';
      if (node && !resuming) node.attempts += 1;
      if (node) rollUp(inst.activityDetails);
      await this.dataSource.transaction(async (m) => {
        await m.insert(LaunchHistoryEntity, {
          appId: claims.app,
          id: launchHistoryId!,
          registrationId: claims.reg,
          instance: claims.inst,
          launchTime: now,
          exitTime: null,
          lastRuntimeUpdate: null,
          completion: inst.completion,
          success: inst.success,
          scoreScaled: inst.scoreScaled,
          totalSeconds: 0,
          historyLog: null,
        });
        await m.update(
          RegistrationInstanceEntity,
          { appId: claims.app, registrationId: claims.reg, instance: claims.inst },
          { activityDetails: inst.activityDetails, firstAccessAt: inst.firstAccessAt ?? now, lastAccessAt: now, updatedAt: now },
        );
      });
    }
    const passing = passingOf(launchable);
    const settings: PlayerSessionSettings = {
      redirectOnExitUrl: claims.redirect,
      tracking: claims.tracking,
      ...(claims.culture ? { culture: claims.culture } : {}),
      ...(claims.css ? { cssUrl: claims.css } : {}),
      activityId: launchable.id,
      seqBase: inst.commitSeq,
      baseSeconds,
      launchBaseSeconds: trackedSeconds(inst.activityDetails.timeTracked),
      standard: scormVersion,
      ...(passing !== undefined ? { passing } : {}),
    };
    const expiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000);
    await this.sessions.update({ id: claims.id }, { launchHistoryId, expiresAt, settings });
    if (claims.tracking) {
      this.launchStatements.launched({ appId: claims.app, registrationId: claims.reg, instance: claims.inst, activityId: launchable.id, standard: scormVersion, sessionId: claims.id, resumed: node?.runtime?.exit === 'suspend', at: now });
    }
    return encodeToken(this.keys, { t: 'session', id: claims.id, exp: Math.floor(expiresAt.getTime() / 1000) } satisfies SessionClaims);
  }

  private pickActivity(version: CourseVersionEntity, preferred?: string): LaunchableActivity | undefined {
    const all = version.package?.launchables ?? [];
    return (preferred ? all.find((a) => a.id === preferred) : undefined) ?? all.find((a) => a.data.scormType === 'sco') ?? all[0];
  }

  // ---- sessions ---------------------------------------------------------------------------------------------

  /** The live session of a session token; 410 when it ended, 400 when the token is not ours. */
  async requireSession(token: string): Promise<LiveSession> {
    const claims = decodeToken<SessionClaims>(this.keys, token, 'session');
    if (claims === 'malformed') throw new PlayerError(400, 'This page is not valid', 'The address of the player is damaged. Launch the course again.');
    if (claims === 'expired') throw new PlayerError(410, 'This session has ended', 'The player session has expired. Launch the course again.');
    const row = await this.sessions.findOneBy({ id: claims.id });
    if (!row || !row.usedAt || !row.settings?.activityId || row.expiresAt.getTime() <= Date.now()) {
      throw new PlayerError(410, 'This session has ended', 'The player session is over. Launch the course again.');
    }
    return row as LiveSession;
  }

  private async sessionContext(session: LiveSession) {
    const reg = await this.registrations.findOneBy({ appId: session.appId, id: session.registrationId });
    const inst = reg ? await this.instances.findOneBy({ appId: session.appId, registrationId: session.registrationId, instance: session.instance }) : null;
    if (!reg || !inst) throw new PlayerError(410, 'This course is no longer available', 'The registration no longer exists.');
    const version = await this.versions.findOneBy({ appId: session.appId, courseId: reg.courseId, version: inst.courseVersion });
    if (!version?.package) throw new PlayerError(410, 'This course is no longer available', 'The course of this registration has been deleted.');
    return { reg, inst, version, launchables: version.package.launchables };
  }

  /** The activity as a fresh SCORM API starts it: its stored runtime, the learner, its launch URL. */
  private activityLaunch(session: LiveSession, reg: RegistrationEntity, inst: RegistrationInstanceEntity, launchable: LaunchableActivity): ActivityLaunch {
    const s = session.settings;
    const node = inst.activityDetails ? findActivity(inst.activityDetails, launchable.id) : null;
    const name = [reg.learnerLastName, reg.learnerFirstName].filter((x) => x).join(', ');
    const passing = passingOf(launchable);
    const masteryScore = s.standard === '1.2' && passing !== undefined ? Math.round(passing * 100) : undefined;
    const cmi = initialCmi(s.standard, node?.runtime, { id: reg.learnerId, name }, {
      totalSeconds: trackedSeconds(node?.timeTracked),
      ...(typeof launchable.data.dataFromLms === 'string' ? { launchData: launchable.data.dataFromLms } : {}),
      ...(masteryScore !== undefined ? { masteryScore } : {}),
      ...(s.standard === '2004' && passing !== undefined ? { scaledPassingScore: passing } : {}),
    });
    const href = launchable.href + (launchable.parameters ? (launchable.href.includes('?') ? '&' : '?') + launchable.parameters.replace(/^[?&]/, '') : '');
    return { activityId: launchable.id, title: launchable.title, contentHref: href, cmi };
  }

  async pageModel(token: string): Promise<PlayerPageModel> {
    const session = await this.requireSession(token);
    const s = session.settings;
    const { reg, inst, version, launchables } = await this.sessionContext(session);
    const launchable = launchables.find((a) => a.id === s.activityId);
    if (!launchable) throw new PlayerError(410, 'This course is no longer available', 'The course of this registration has been deleted.');
    const first = this.activityLaunch(session, reg, inst, launchable);
    return {
      ...first,
      title: first.title || version.title,
      courseTitle: version.title,
      version: s.standard,
      tracking: s.tracking,
      redirectOnExitUrl: s.redirectOnExitUrl,
      ...(s.cssUrl ? { cssUrl: s.cssUrl } : {}),
      nav: buildNav(version.rootActivity, launchables, version.package?.packageData, s.standard === '2004', inst.activityDetails),
    };
  }

  /**
   * Switches the session to another launchable activity of the course (Continue, Previous, a table-of-contents
   * choice, a SCO's navigation request). The player commits the activity it leaves first; this counts a new attempt
   * on the one it enters (not when it resumes a suspended attempt) and returns what a fresh API starts it with.
   */
  async switchActivity(token: string, activityId: unknown): Promise<ActivityLaunch> {
    const session = await this.requireSession(token);
    if (typeof activityId !== 'string' || !activityId) throw new PlayerError(400, 'Bad request', 'activityId is required');
    const where = { appId: session.appId, registrationId: session.registrationId, instance: session.instance };
    for (let attempt = 0; attempt < 5; attempt++) {
      const { reg, inst, launchables } = await this.sessionContext(session);
      const launchable = launchables.find((a) => a.id === activityId);
      if (!launchable) throw new PlayerError(404, 'No such activity', 'The course has no launchable activity with this id.');
      const tree = inst.activityDetails;
      const node = tree ? findActivity(tree, launchable.id) : null;
      if (session.settings.tracking && tree && node) {
        const now = new Date();
        if (node.runtime?.exit !== 'suspend') node.attempts += 1;
        rollUp(tree);
        const res = await this.instances.update({ ...where, commitSeq: inst.commitSeq }, { activityDetails: tree, lastAccessAt: now, updatedAt: now });
        if (!res.affected) continue;
      }
      const passing = passingOf(launchable);
      const settings: PlayerSessionSettings = { ...session.settings, activityId: launchable.id, baseSeconds: trackedSeconds(node?.timeTracked) };
      delete settings.passing;
      if (passing !== undefined) settings.passing = passing;
      await this.sessions.update({ id: session.id }, { settings });
      const next = { ...session, settings } as LiveSession;
      return this.activityLaunch(next, reg, inst, launchable);
    }
    throw new PlayerError(409, 'Busy', 'The registration is being updated by another session; retry');
  }

  /** Where a session's content lives in the content store. */
  async contentPrefix(token: string): Promise<string> {
    const session = await this.requireSession(token);
    const reg = await this.registrations.findOneBy({ appId: session.appId, id: session.registrationId });
    const inst = reg ? await this.instances.findOneBy({ appId: session.appId, registrationId: session.registrationId, instance: session.instance }) : null;
    const version = reg && inst ? await this.versions.findOne({ where: { appId: session.appId, courseId: reg.courseId, version: inst.courseVersion }, select: { contentPrefix: true } }) : null;
    if (!version) throw new PlayerError(410, 'This course is no longer available', 'The course of this registration has been deleted.');
    return version.contentPrefix.endsWith('/') ? version.contentPrefix : `${version.contentPrefix}/`;
  }

  // ---- commits ----------------------------------------------------------------------------------------------

  /**
   * Applies one commit of the SCO's data model in one short transaction: the activity's runtime and status, the
   * rolled-up summary, commit_seq, and the launch's history row. Commits are ordered: one whose sequence number is
   * not above the stored commit_seq (a retry, or an older one arriving late) is acknowledged and ignored.
   */
  async commit(token: string, body: CommitBody): Promise<{ applied: boolean; activityCompletion?: string; activitySuccess?: string }> {
    const session = await this.requireSession(token);
    const s = session.settings;
    if (!Number.isSafeInteger(body.seq) || body.seq < 1) throw new PlayerError(400, 'Bad commit', 'seq must be a positive integer');
    if (body.activityId !== s.activityId) throw new PlayerError(400, 'Bad commit', 'activityId is not the activity of this session');
    if (typeof body.cmi !== 'object' || body.cmi === null || Array.isArray(body.cmi)) throw new PlayerError(400, 'Bad commit', 'cmi must be an object');
    if (!s.tracking) return { applied: false };
    const seq = (s.seqBase ?? 0) + body.seq;
    const where = { appId: session.appId, registrationId: session.registrationId, instance: session.instance };
    for (let attempt = 0; attempt < 5; attempt++) {
      const inst = await this.instances.findOneBy(where);
      if (!inst || !inst.activityDetails) throw new PlayerError(410, 'This session has ended', 'The registration no longer exists.');
      if (seq <= inst.commitSeq) return { applied: false };
      const tree = inst.activityDetails;
      const node = findActivity(tree, s.activityId);
      if (!node) throw new PlayerError(410, 'This session has ended', 'The activity is not part of the registration any more.');
      const state = activityStateOf(s.standard, body.cmi, node.runtime, s.passing);
      const sessionSeconds = state.sessionSeconds ?? 0;
      const total = (s.baseSeconds ?? 0) + sessionSeconds;
      node.runtime = { ...state.runtime, totalTime: formatTracked(total), timeTracked: formatTracked(total) };
      node.activityCompletion = state.completion;
      node.activitySuccess = state.success;
      if (state.scoreScaled !== undefined) node.score = { scaled: state.scoreScaled };
      node.timeTracked = formatTracked(total);
      node.suspended = state.suspended;
      node.completionAmount = { scaled: state.completion === 'COMPLETED' ? 1 : Number(state.runtime.progressMeasure ?? 0) || 0 };
      if (node.attempts === 0) node.attempts = 1;
      rollUp(tree);
      const now = new Date();
      const completion = tree.activityCompletion;
      const applied = await this.dataSource.transaction(async (m) => {
        const res = await m.update(RegistrationInstanceEntity, { ...where, commitSeq: inst.commitSeq }, {
          activityDetails: tree,
          completion,
          success: tree.activitySuccess,
          completionAmount: completion === 'COMPLETED' ? 1 : (tree.completionAmount?.scaled ?? 0),
          scoreScaled: tree.score?.scaled ?? null,
          totalSeconds: trackedSeconds(tree.timeTracked),
          firstAccessAt: inst.firstAccessAt ?? now,
          lastAccessAt: now,
          completedAt: completion === 'COMPLETED' ? (inst.completedAt ?? now) : inst.completedAt,
          suspendedActivityId: state.suspended ? s.activityId! : null,
          commitSeq: seq,
          updatedAt: now,
        });
        if (!res.affected) return false;
        if (session.launchHistoryId) {
          await m.update(LaunchHistoryEntity, { appId: session.appId, id: session.launchHistoryId }, {
            lastRuntimeUpdate: now,
            completion,
            success: tree.activitySuccess,
            scoreScaled: tree.score?.scaled ?? null,
            totalSeconds: s.launchBaseSeconds !== undefined ? Math.max(0, trackedSeconds(tree.timeTracked) - s.launchBaseSeconds) : sessionSeconds,
            ...(body.final ? { exitTime: now } : {}),
          });
        }
        return true;
      });
      // After the transaction: the postback job reads the committed state.
      if (applied) await this.postbacks.schedule(session.appId, session.registrationId, session.instance);
      // Queued, not awaited: the xAPI statements of this commit (ADL SCORM profile) are made by a job.
      if (applied) this.launchStatements.commitApplied({ ...where, activityId: s.activityId, standard: s.standard, seq, cmi: body.cmi, final: body.final === true, passing: s.passing, at: now });
      if (applied) return { applied: true, activityCompletion: node.activityCompletion, activitySuccess: node.activitySuccess };
    }
    throw new PlayerError(409, 'Busy', 'The registration is being updated by another session; retry');
  }
}
