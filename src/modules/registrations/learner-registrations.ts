import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { RegistrationEntity } from './entities/registration.entity';
import { RegistrationInstanceEntity } from './entities/registration-instance.entity';

/** UserInvitationSchema.registrationReport of a registration's latest instance, and whether it was launched. */
export interface RegistrationReport {
  complete: string;
  success: string;
  totalSecondsTracked: number;
  score?: { scaled: number };
  started: boolean;
}

/**
 * A learner's registrations, read and updated by learner (UpdateLearnerInfo, the learner's erasure, invitations'
 * duplicate checks), and the reports of registrations that user invitations show.
 */
@Injectable()
export class LearnerRegistrations {
  constructor(
    @InjectRepository(RegistrationEntity) private readonly registrations: Repository<RegistrationEntity>,
    @InjectRepository(RegistrationInstanceEntity) private readonly instances: Repository<RegistrationInstanceEntity>,
  ) {}

  /** The newest registration on a course of each of these learners that has one (the invitation job's duplicate check). */
  async newestForLearners(appId: string, courseId: string, learnerIds: readonly string[]): Promise<Map<string, RegistrationEntity>> {
    const out = new Map<string, RegistrationEntity>();
    const unique = [...new Set(learnerIds)];
    for (let i = 0; i < unique.length; i += 500) {
      const rows = await this.registrations.find({ where: { appId, courseId, learnerId: In(unique.slice(i, i + 500)) }, order: { createdAt: 'DESC', id: 'ASC' } });
      for (const r of rows) if (!out.has(r.learnerId)) out.set(r.learnerId, r);
    }
    return out;
  }

  /** The latest instance's results of each registration that exists (UserInvitationSchema's registrationReport). */
  async reports(appId: string, ids: readonly string[]): Promise<Map<string, RegistrationReport>> {
    const out = new Map<string, RegistrationReport>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += 500) {
      const rows = await this.instances
        .createQueryBuilder('i')
        .innerJoin(RegistrationEntity, 'r', 'r.appId = i.appId AND r.id = i.registrationId AND r.latestInstance = i.instance')
        .where('i.appId = :appId AND i.registrationId IN (:...ids)', { appId, ids: unique.slice(i, i + 500) })
        .getMany();
      for (const inst of rows) {
        out.set(inst.registrationId, {
          complete: inst.completion,
          success: inst.success,
          totalSecondsTracked: inst.totalSeconds,
          ...(inst.scoreScaled !== null ? { score: { scaled: inst.scoreScaled } } : {}),
          started: inst.firstAccessAt !== null,
        });
      }
    }
    return out;
  }

  /** Whether any registration of the application carries this learner id. */
  async learnerExists(appId: string, learnerId: string): Promise<boolean> {
    return this.registrations.existsBy({ appId, learnerId });
  }

  /** UpdateLearnerInfo: the learner's name and e-mail on every registration of that learner in the application. */
  async updateLearner(appId: string, learner: { id: string; email?: string; firstName?: string; lastName?: string }): Promise<number> {
    const changes: Partial<RegistrationEntity> = {
      ...(learner.email !== undefined ? { learnerEmail: learner.email } : {}),
      ...(learner.firstName !== undefined ? { learnerFirstName: learner.firstName } : {}),
      ...(learner.lastName !== undefined ? { learnerLastName: learner.lastName } : {}),
    };
    if (Object.keys(changes).length === 0) return 0;
    const res = await this.registrations.update({ appId, learnerId: learner.id }, { ...changes, updatedAt: new Date() });
    return res.affected ?? 0;
  }

  /** The ids and xAPI registration ids of the learner's registrations (erasure). */
  async idsOfLearner(appId: string, learnerId: string): Promise<Array<{ id: string; xapiRegistrationId: string }>> {
    return this.registrations.find({ where: { appId, learnerId }, select: { id: true, xapiRegistrationId: true } });
  }

  /** The e-mail addresses the learner's registrations carry (erasure). */
  async emailsOfLearner(appId: string, learnerId: string): Promise<string[]> {
    const rows = await this.registrations.find({ where: { appId, learnerId }, select: { learnerEmail: true } });
    return [...new Set(rows.flatMap((r) => (r.learnerEmail ? [r.learnerEmail] : [])))];
  }
}
