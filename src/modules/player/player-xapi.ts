import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import type { CourseVersion } from '../courses/course-version';
import type { RegistrationRecord } from '../registrations/registration-records';
import { RegistrationProgress } from '../registrations/registration-progress';
import { LrsLaunchTokens } from '../xapi/lrs/lrs-launch-tokens';
import { agentKey } from '../xapi/lrs/statement-keys';
import type { PlayerSessionEntity, PlayerSessionSettings } from './player-session.entity';
import { xapiLaunchQuery, xapiLearnerActor } from './xapi-launch';
import { applyXapiInteractions, applyXapiResults, type XapiInteractionStatement, type XapiResultStatement } from './xapi-progress';

/**
 * The player's xAPI adapter: the TinCan launch parameters of an xAPI course's session, and the registration's progress
 * from the result statements its content sent to the LRS (written through the registrations module).
 */
@Injectable()
export class PlayerXapi {
  constructor(
    private readonly lrsTokens: LrsLaunchTokens,
    private readonly progress: RegistrationProgress,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The TinCan launch parameters of an xAPI course: the application's LRS, a launch token bound to the registration and
   * learner that lives as long as the session, the learner's Agent, the registration and the course's activity id. A
   * preview runs as the preview learner in a registration of its own (the session id).
   */
  xapiQuery(session: PlayerSessionEntity & { settings: PlayerSessionSettings }, reg: RegistrationRecord | null, version: CourseVersion, learner: { id: string; name: string }): string {
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

  /**
   * The progress of an xAPI registration from the statements its content sent to the LRS (a job of XapiProgress):
   * result statements set the root activity's status and score; with TinCanInteractionsEnabled (read as the
   * statements are applied) the interactions they report become its runtime interactions. The latest instance's
   * tree, summary and latest launch history are stored like a commit (its commit_seq advances, so it orders with
   * other updates), then a postback. Statements of registrations of other courses, or about other activities or
   * actors, change nothing.
   */
  async applyXapiResults(appId: string, registration: string, statements: XapiResultStatement[], interactions: XapiInteractionStatement[] = []): Promise<unknown> {
    const reg = await this.progress.registrationByXapiId(appId, registration);
    if (!reg) return { skipped: 'no registration' };
    const actor = agentKey(xapiLearnerActor(this.config.publicUrl, { id: reg.learnerId, name: '' })) ?? '';
    let skipped: string | null = null;
    const tree = await this.progress.applyStatementProgress(
      { appId, registrationId: reg.id, instance: reg.latestInstance },
      (root, version, values) => {
        if (version.learningStandard !== 'XAPI') {
          skipped = 'not an xAPI registration';
          return false;
        }
        const applied = applyXapiResults(root, statements, { activityId: version.xapiActivityId ?? root.id, actor });
        const interacted = /^(yes|true)$/i.test(values.get('TinCanInteractionsEnabled') ?? 'true') && applyXapiInteractions(root, interactions, actor);
        if (!applied && !interacted) skipped = 'no statement about the course by its learner';
        return applied || (interacted ? { completedAt: null } : false);
      },
      undefined,
      interactions.length ? ['TinCanInteractionsEnabled'] : [],
    );
    if (!tree) return { skipped: skipped ?? 'not an xAPI registration' };
    return { applied: statements.length, interactions: interactions.length, completion: tree.activityCompletion, success: tree.activitySuccess };
  }
}
