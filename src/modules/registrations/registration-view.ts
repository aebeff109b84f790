import type { RegistrationEntity } from './entities/registration.entity';
import type { RegistrationInstanceEntity } from './entities/registration-instance.entity';
import { ActivityResult, IncludeFlags, Objective, shapeActivityTree } from './registration-types';

/** RegistrationSchema */
export interface RegistrationView {
  id: string;
  instance: number;
  xapiRegistrationId: string;
  updated: string;
  registrationCompletion: string;
  registrationCompletionAmount: number;
  registrationSuccess: string;
  score?: { scaled: number };
  totalSecondsTracked: number;
  firstAccessDate?: string;
  lastAccessDate?: string;
  completedDate?: string;
  createdDate: string;
  course: { id: string; title: string; version: number };
  learner: { id: string; email?: string; firstName: string; lastName: string };
  tags: string[];
  globalObjectives: Objective[];
  suspendedActivityId?: string;
  activityDetails?: ActivityResult;
}

export function registrationView(
  reg: RegistrationEntity,
  inst: RegistrationInstanceEntity,
  extra: { courseTitle: string; tags: string[]; include: IncludeFlags },
): RegistrationView {
  const updated = inst.updatedAt > reg.updatedAt ? inst.updatedAt : reg.updatedAt;
  return {
    id: reg.id,
    instance: inst.instance,
    xapiRegistrationId: reg.xapiRegistrationId,
    updated: updated.toISOString(),
    registrationCompletion: inst.completion,
    registrationCompletionAmount: inst.completionAmount,
    registrationSuccess: inst.success,
    ...(inst.scoreScaled !== null ? { score: { scaled: inst.scoreScaled } } : {}),
    totalSecondsTracked: inst.totalSeconds,
    ...(inst.firstAccessAt ? { firstAccessDate: inst.firstAccessAt.toISOString() } : {}),
    ...(inst.lastAccessAt ? { lastAccessDate: inst.lastAccessAt.toISOString() } : {}),
    ...(inst.completedAt ? { completedDate: inst.completedAt.toISOString() } : {}),
    // The registration's creation, on every instance: lists filter and sort by it.
    createdDate: reg.createdAt.toISOString(),
    course: { id: reg.courseId, title: extra.courseTitle, version: inst.courseVersion },
    learner: {
      id: reg.learnerId,
      ...(reg.learnerEmail !== null ? { email: reg.learnerEmail } : {}),
      firstName: reg.learnerFirstName ?? '',
      lastName: reg.learnerLastName ?? '',
    },
    tags: extra.tags,
    globalObjectives: inst.globalObjectives ?? [],
    ...(inst.suspendedActivityId !== null ? { suspendedActivityId: inst.suspendedActivityId } : {}),
    ...(inst.activityDetails ? { activityDetails: shapeActivityTree(inst.activityDetails, extra.include) } : {}),
  };
}
