import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { RegistrationProgress } from '../registrations/registration-progress';
import { historyLine, LaunchHistoryLog } from '../registrations/launch-history-log';
import { RegistrationPostbacks } from '../registrations/registration-postbacks';
import { type NewlySatisfied, rollUpCmi5 } from './cmi5-launch';
import { ausOf } from './cmi5-runtime';
import { PlayerCmi5Start } from './cmi5-session-start';
import { ActivityLaunch, LiveSession, passingOf, PlayerSessions, PREVIEW_LEARNER, rollupOf, summaryOf } from './player-sessions';
import { attemptSecondsOf, startNewAttempt } from './attempt-data';
import { PlayerError } from './player-errors';
import { PlayerSessionEntity, PlayerSessionSettings } from './player-session.entity';
import { applyEngine, definitionOf, engineOf, globalObjectivesOf, navOf, requestOf, SequencingNav, serializeEngine } from './player-sequencing';
import { type NavigationRequest, SequencingEngine } from '../sequencing/sequencing-engine';
import { sequencingDefinitionFor } from './tracking-rules';
import { findActivity, rollUp, trackedSeconds } from './scorm-runtime';

/** The answer to a navigation request of a sequenced course: what to run next, or that the session ended. */
export interface NavigationOutcome {
  launch?: ActivityLaunch;
  ended?: boolean;
  /** The request was not valid now (the page shows it; `launch` then runs the current activity again, if any). */
  error?: string;
  nav: SequencingNav;
}

/** A navigation request as SCORM writes it (adl.nav.request). */
const requestLabel = (req: NavigationRequest): string => ('target' in req && req.target !== undefined ? `{target=${req.target}}${req.type}` : req.type);

/** The valid navigation requests, for the detailed log. */
const validRequestsOf = (nav: SequencingNav): string => {
  const simple = (['continue', 'previous', 'exitAll', 'suspendAll'] as const).filter((k) => nav[k]);
  return [...simple, ...(nav.choice.length ? [`choice ${nav.choice.join(' ')}`] : [])].join(', ') || 'none';
};

/** Navigation between a course's activities: sequenced courses' navigation requests, and switches of activity. */
@Injectable()
export class PlayerNavigationService {
  constructor(
    @InjectRepository(PlayerSessionEntity) private readonly sessionRows: Repository<PlayerSessionEntity>,
    private readonly sessions: PlayerSessions,
    private readonly progress: RegistrationProgress,
    private readonly postbacks: RegistrationPostbacks,
    private readonly historyLog: LaunchHistoryLog,
    private readonly cmi5Start: PlayerCmi5Start,
  ) {}

  /**
   * A navigation request of a sequenced course (the page's buttons and table of contents, a SCO's adl.nav.request
   * at Terminate): the engine runs it on the stored state, after the page committed what the SCO left; the answer is
   * the activity to run next or the end of the session, with the valid requests after it.
   */
  async navigate(token: string, body: { request?: unknown; target?: unknown; check?: unknown } | undefined): Promise<NavigationOutcome> {
    const session = await this.sessions.requireSession(token);
    const s = session.settings;
    if (!s.sequenced) throw new PlayerError(400, 'Bad request', 'This course does not use SCORM 2004 sequencing');
    const req = requestOf(body?.request, body?.target);
    if (!req) throw new PlayerError(400, 'Bad request', 'request must be a navigation request: continue, previous, exit, exitAll, suspendAll, abandon, abandonAll, {target=ID}choice or {target=ID}jump');
    if (body?.check !== undefined && typeof body.check !== 'boolean') throw new PlayerError(400, 'Bad request', 'check must be a boolean');
    const where = { appId: session.appId, registrationId: session.registrationId, instance: session.instance };
    const lookahead = s.ui?.lookahead;
    for (let attempt = 0; attempt < 5; attempt++) {
      const ctx = await this.sessions.sessionContext(session);
      const def = sequencingDefinitionFor(definitionOf(ctx.version), s.tracked);
      const engine = engineOf(def, s.tracking ? await this.progress.sequencingStateOf(where) : s.seqState);
      if (s.noSuspendAllRollup) engine.rollupAtSuspendAll = false;
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
        const stored = await this.progress.updateInstance(where, ctx.inst.commitSeq, {
          activityDetails: tree,
          ...summaryOf(tree, ctx.inst.completedAt, now),
          sequencingState: serializeEngine(engine),
          globalObjectives: globalObjectivesOf(engine),
          lastAccessAt: now,
          updatedAt: now,
        });
        if (!stored) continue;
        // What sequencing decided at the end of the attempt (rollup, an exit) is the launch's too.
        await this.sessions.recordLaunch(session, tree, result.ended === true, now);
        if (launchable) {
          settings.baseSeconds = trackedSeconds(node?.timeTracked);
          settings.attemptBaseSeconds = attemptSecondsOf(node);
        }
      } else settings.seqState = serializeEngine(engine);
      if (launchable) {
        settings.activityId = launchable.id;
        delete settings.resumed;
        delete settings.undelivered;
        // The current activity again after a refused request: its SCO resumes where it was (same attempt).
        if ((req.type === 'resumeAll' && suspended === launchable.id) || (result.error && launchable.id === cur0)) settings.resumed = launchable.id;
        delete settings.passing;
        const passing = passingOf(launchable);
        if (passing !== undefined) settings.passing = passing;
      }
      await this.sessionRows.update({ id: session.id }, { settings });
      if (s.history?.seq && session.launchHistoryId) {
        const outcome = result.error ? `refused (${result.error.code}): ${result.error.message}${launchable ? `; activity ${JSON.stringify(launchable.id)} runs again` : ''}` : launchable ? `delivered activity ${JSON.stringify(launchable.id)}` : result.ended ? 'the session ended' : 'nothing delivered';
        const valid = s.history.seq === 'detailed' ? `; valid now: ${validRequestsOf(navOf(engine))}` : '';
        await this.historyLog.append(session, historyLine('nav', `${requestLabel(req)} (current ${cur === undefined ? 'none' : JSON.stringify(cur)}): ${outcome}${valid}`));
      }
      if (s.tracking && s.postbacks !== false && (!s.postbacksAtExit || result.ended)) await this.postbacks.schedule(session.appId, session.registrationId, session.instance, s.postbacks === true);
      const next = { ...session, settings } as LiveSession;
      return {
        ...(launchable ? { launch: this.sessions.activityLaunch(next, ctx, launchable, engine) } : {}),
        ...(result.ended ? { ended: true } : {}),
        ...(result.error ? { error: result.error.message } : {}),
        nav: navOf(engine, lookahead),
      };
    }
    throw new PlayerError(409, 'Busy', 'The registration is being updated by another session; retry');
  }

  /**
   * Switches the session to another launchable activity of the course (Continue, Previous, a table-of-contents
   * choice, a SCO's navigation request). The player commits the activity it leaves first; this counts a new attempt
   * on the one it enters (not when it resumes a suspended attempt) and returns what a fresh API starts it with.
   */
  async switchActivity(token: string, activityId: unknown): Promise<ActivityLaunch> {
    const session = await this.sessions.requireSession(token);
    if (typeof activityId !== 'string' || !activityId) throw new PlayerError(400, 'Bad request', 'activityId is required');
    if (session.settings.sequenced) {
      // A sequenced course: the switch is a choice navigation request, which the engine may refuse.
      const outcome = await this.navigate(token, { request: 'choice', target: activityId });
      if (outcome.error || !outcome.launch || outcome.launch.activityId !== activityId) throw new PlayerError(409, 'Not allowed', outcome.error ?? 'The sequencing rules do not allow this activity now.');
      return outcome.launch;
    }
    const where = { appId: session.appId, registrationId: session.registrationId, instance: session.instance };
    for (let attempt = 0; attempt < 5; attempt++) {
      const ctx = await this.sessions.sessionContext(session);
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
        if (!(await this.progress.updateInstance(where, inst.commitSeq, { activityDetails: tree, ...summaryOf(tree, inst.completedAt, now), lastAccessAt: now, updatedAt: now }))) continue;
        await this.sessions.recordLaunch(session, tree, false, now);
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
        settings.cmi5 = await this.cmi5Start.startCmi5(session.id, settings, ctx.version, launchable, where, reg ? reg.xapiRegistrationId : session.id, learner, satisfiedFirst, now, node, session.settings.cmi5?.strict === true, new Date(session.expiresAt));
      }
      await this.sessionRows.update({ id: session.id }, { settings });
      if (settings.history?.control && session.launchHistoryId) {
        const from = session.settings.activityId;
        await this.historyLog.append(session, historyLine('activity', `${JSON.stringify(from)} -> ${JSON.stringify(launchable.id)}${node?.runtime?.exit === 'suspend' ? ' (resuming a suspended attempt)' : ''}`, now));
      }
      const next = { ...session, settings } as LiveSession;
      return this.sessions.activityLaunch(next, ctx, launchable);
    }
    throw new PlayerError(409, 'Busy', 'The registration is being updated by another session; retry');
  }
}
