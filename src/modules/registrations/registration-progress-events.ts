import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { DomainEvent, EventBus, RegistrationCompleted, RegistrationProgressChanged } from '../../platform/events';
import { RegistrationEntity } from './entities/registration.entity';

/** An instance's progress as the events tell it: its tree root's completion, success and score. */
export interface ProgressSummary {
  completion: string;
  success: string;
  score: number | null;
}

/** The summary of an activity tree (its root), taken before a write changes it. */
export function progressSummary(root: { activityCompletion: string; activitySuccess: string; score?: { scaled?: number } }): ProgressSummary {
  return { completion: root.activityCompletion, success: root.activitySuccess, score: root.score?.scaled ?? null };
}

export interface ProgressWrite {
  completion: string;
  success: string;
  scoreScaled: number | null;
  totalSeconds: number;
  at?: Date;
}

/**
 * The events of one progress write (a runtime commit, progress from statements), built before it is stored so that
 * their outbox rows go in its transaction: RegistrationProgressChanged when completion, success or score changed,
 * RegistrationCompleted when completion turned COMPLETED. Costs nothing when nobody listens.
 */
@Injectable()
export class RegistrationProgressEvents {
  constructor(
    private readonly events: EventBus,
    @InjectRepository(RegistrationEntity) private readonly registrations: Repository<RegistrationEntity>,
  ) {}

  /** True when a listener may want an event of a progress write (checked before doing any work for one). */
  get listened(): boolean {
    return this.events.hasListeners(RegistrationProgressChanged) || this.events.hasListeners(RegistrationCompleted);
  }

  async of(where: { appId: string; registrationId: string; instance: number }, before: ProgressSummary, after: ProgressWrite): Promise<DomainEvent[]> {
    const events: DomainEvent[] = [];
    const score = after.scoreScaled;
    if (before.completion === after.completion && before.success === after.success && before.score === score) return events;
    if (this.events.hasListeners(RegistrationProgressChanged)) {
      events.push(new RegistrationProgressChanged({ ...where, completion: after.completion, success: after.success, score, totalSecondsTracked: after.totalSeconds }));
    }
    if (after.completion === 'COMPLETED' && before.completion !== 'COMPLETED' && this.events.hasListeners(RegistrationCompleted)) {
      // Once per instance's completion: reading the registration here costs a query that rarely runs.
      const reg = await this.registrations.findOne({ where: { appId: where.appId, id: where.registrationId }, select: { courseId: true, learnerId: true } });
      if (reg) {
        events.push(
          new RegistrationCompleted({
            ...where,
            courseId: reg.courseId,
            learnerId: reg.learnerId,
            success: after.success,
            score,
            totalSecondsTracked: after.totalSeconds,
            completedAt: (after.at ?? new Date()).toISOString(),
          }),
        );
      }
    }
    return events;
  }
}
