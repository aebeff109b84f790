import { Injectable } from '@nestjs/common';
import { RegistrationProgress } from '../registrations/registration-progress';
import type { ActivityResult } from '../registrations/registration-types';
import { PlayerSessions } from './player-sessions';

/** The completion of each launchable activity (the leaves of the registration's tree), by activity id. */
export function leafCompletions(root: ActivityResult): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (n: ActivityResult) => {
    if ((n.children ?? []).length === 0) out[n.id] = n.activityCompletion;
    else n.children.forEach(walk);
  };
  walk(root);
  return out;
}

/**
 * What the player page's table of contents shows of content that reports to the server itself (xAPI and cmi5 AUs
 * talk to the LRS, not to the page): the activities' completion as the registration stores it now. One read of the
 * instance's tree; the page asks while such an AU runs and when it returns.
 */
@Injectable()
export class PlayerStatusService {
  constructor(
    private readonly sessions: PlayerSessions,
    private readonly progress: RegistrationProgress,
  ) {}

  async status(token: string): Promise<{ completion: Record<string, string> }> {
    const session = await this.sessions.requireSession(token);
    if (!session.registrationId || !session.settings.tracking) return { completion: {} };
    const tree = await this.progress.treeOf({ appId: session.appId, registrationId: session.registrationId, instance: session.instance });
    return { completion: tree ? leafCompletions(tree) : {} };
  }
}
