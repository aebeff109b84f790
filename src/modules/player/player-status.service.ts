import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { RegistrationInstanceEntity } from '../registrations/entities/registration-instance.entity';
import type { ActivityResult } from '../registrations/registration-types';
import { PlayerService } from './player.service';

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
    private readonly player: PlayerService,
    @InjectRepository(RegistrationInstanceEntity) private readonly instances: Repository<RegistrationInstanceEntity>,
  ) {}

  async status(token: string): Promise<{ completion: Record<string, string> }> {
    const session = await this.player.requireSession(token);
    if (!session.registrationId || !session.settings.tracking) return { completion: {} };
    const inst = await this.instances.findOne({
      where: { appId: session.appId, registrationId: session.registrationId, instance: session.instance },
      select: { appId: true, registrationId: true, instance: true, activityDetails: true },
    });
    return { completion: inst?.activityDetails ? leafCompletions(inst.activityDetails) : {} };
  }
}
