import { InvalidInputError } from '../../platform/http/domain-errors';
import type { CourseVersion } from '../courses/course-version';
import { RegistrationStateDto } from './dto/registration-state.dto';
import { RegistrationInstanceEntity } from './entities/registration-instance.entity';
import { initialActivityTree, overlayActivityTree } from './registration-types';

/** A registration instance as it starts: nothing attempted on the course version's activity tree. */
export function freshInstance(appId: string, registrationId: string, instance: number, version: CourseVersion, now: Date): RegistrationInstanceEntity {
  return {
    appId,
    registrationId,
    instance,
    courseVersion: version.version,
    completion: 'UNKNOWN',
    success: 'UNKNOWN',
    completionAmount: 0,
    scoreScaled: null,
    totalSeconds: 0,
    firstAccessAt: null,
    lastAccessAt: null,
    completedAt: null,
    activityDetails: version.rootActivity ? initialActivityTree(version.rootActivity) : null,
    globalObjectives: [],
    sequencingState: null,
    xapiReported: null,
    suspendedActivityId: null,
    commitSeq: 0,
    createdAt: now,
    updatedAt: now,
  };
}

/** initialRegistrationState (a RegistrationSchema, checked by its DTO): its progress fields onto the first instance. */
export function applyInitialState(inst: RegistrationInstanceEntity, state: RegistrationStateDto): void {
  const date = (name: 'firstAccessDate' | 'lastAccessDate' | 'completedDate'): Date | undefined => {
    const v = state[name];
    if (v === undefined || v === null) return undefined;
    // ISO 8601 forms Date cannot read (week or ordinal dates) would be stored as an invalid date.
    const d = new Date(v);
    if (Number.isNaN(d.getTime())) throw new InvalidInputError(`initialRegistrationState.${name} must be an ISO 8601 date-time`);
    return d;
  };
  inst.completion = state.registrationCompletion ?? inst.completion;
  inst.success = state.registrationSuccess ?? inst.success;
  inst.completionAmount = state.registrationCompletionAmount ?? inst.completionAmount;
  inst.scoreScaled = state.score?.scaled ?? inst.scoreScaled;
  inst.totalSeconds = state.totalSecondsTracked ?? inst.totalSeconds;
  inst.firstAccessAt = date('firstAccessDate') ?? inst.firstAccessAt;
  inst.lastAccessAt = date('lastAccessDate') ?? inst.lastAccessAt;
  inst.completedAt = date('completedDate') ?? inst.completedAt;
  inst.globalObjectives = state.globalObjectives ?? inst.globalObjectives;
  inst.suspendedActivityId = state.suspendedActivityId ?? inst.suspendedActivityId;
  if (state.activityDetails && inst.activityDetails) inst.activityDetails = overlayActivityTree(inst.activityDetails, state.activityDetails);
}
