import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { KeyRing } from '../../platform/crypto/keyring';
import type { LaunchableActivity } from '../courses/packages/package-types';
import { InstanceKey } from '../registrations/registration-progress';
import type { ActivityResult } from '../registrations/registration-types';
import { type LaunchMode, type NewlySatisfied } from './cmi5-launch';
import { Cmi5Runtime } from './cmi5-runtime';
import { PlayerSessions, SESSION_TTL_SECONDS } from './player-sessions';
import { contentUrlOf } from './player-page';
import { PlayerSessionSettings } from './player-session.entity';
import { encodeToken, SessionClaims } from './player-tokens';
import type { CourseVersion } from '../courses/course-version';

/** cmi5's part of a launch: the AU's cmi5 session (Cmi5Runtime.start) with its launch URL. */
@Injectable()
export class PlayerCmi5Start {
  constructor(
    private readonly sessions: PlayerSessions,
    private readonly cmi5: Cmi5Runtime,
    private readonly keys: KeyRing,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Starts the cmi5 session of an AU launch (Cmi5Runtime.start); the session's expiry is the one openSession gives it
   * (launch and preview) or already has (a switch of activity). A preview runs in a registration of its own (its id).
   * Launch mode (cmi5 10.2.2): Browse when nothing is tracked (a preview, a link with tracking false); Review when the
   * learner has satisfied the AU already (its moveOn met by their results, or waived); Normal otherwise.
   */
  startCmi5(
    sessionId: string,
    settings: PlayerSessionSettings,
    version: CourseVersion,
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
        const url = contentUrlOf(this.sessions.launchHref(launchable, settings, [this.cmi5.launchQuery(where.appId, sessionId, expiresAt, state)]));
        const page = `${this.config.publicUrl}/player/s/${encodeToken(this.keys, { t: 'session', id: sessionId, exp: Math.floor(expiresAt.getTime() / 1000) } satisfies SessionClaims)}/`;
        return new URL(url, page).toString();
      },
      now,
    });
  }
}
