import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { CoursesService } from '../courses/courses.service';
import { SettingsService } from '../settings/settings.service';
import { RegistrationEntity } from './entities/registration.entity';
import { RegistrationInstanceEntity } from './entities/registration-instance.entity';
import { initialActivityTree, overlayActivityTree } from './registration-types';
import { RegistrationsService, settingCourseRef } from './registrations.service';

/** WhenToRestartRegistration (RegistrationInstanceIncrementTimingValue): when launching starts a new instance. */
type RestartTiming =
  | 'NEVER'
  | 'WHEN_EXISTING_REG_IS_COMPLETE_AND_NEWER_PACKAGE_VERSION_EXISTS'
  | 'WHEN_NEWER_PACKAGE_VERSION_EXISTS'
  | 'WHEN_EXISTING_REG_IS_COMPLETE'
  | 'WHEN_EXISTING_REG_IS_SATISFIED'
  | 'WHEN_EXISTING_REG_IS_SATISFIED_AND_NEWER_PACKAGE_VERSION_EXISTS'
  | 'WHEN_EXISTING_REG_IS_INCOMPLETE_AND_NEWER_PACKAGE_VERSION_EXISTS'
  | 'WHEN_EXISTING_REG_IS_FAILED'
  | 'WHEN_EXISTING_REG_IS_FAILED_AND_NEWER_PACKAGE_VERSION_EXISTS';

const RESTART_SETTING_IDS = ['WhenToRestartRegistration', 'AssignLatestVersionInsteadOfRestartRegistration'];

/** Whether an instance in this state restarts under `timing` (`newer`: the course has a later version than the instance's). */
export function restartDue(timing: string, inst: Pick<RegistrationInstanceEntity, 'completion' | 'success'>, newer: boolean): boolean {
  const complete = inst.completion === 'COMPLETED';
  const failed = inst.success === 'FAILED';
  const satisfied = inst.success === 'PASSED' || (complete && !failed);
  switch (timing as RestartTiming) {
    case 'WHEN_NEWER_PACKAGE_VERSION_EXISTS':
      return newer;
    case 'WHEN_EXISTING_REG_IS_COMPLETE_AND_NEWER_PACKAGE_VERSION_EXISTS':
      return newer && complete;
    case 'WHEN_EXISTING_REG_IS_COMPLETE':
      return complete;
    case 'WHEN_EXISTING_REG_IS_SATISFIED':
      return satisfied;
    case 'WHEN_EXISTING_REG_IS_SATISFIED_AND_NEWER_PACKAGE_VERSION_EXISTS':
      return newer && satisfied;
    case 'WHEN_EXISTING_REG_IS_INCOMPLETE_AND_NEWER_PACKAGE_VERSION_EXISTS':
      return newer && !complete;
    case 'WHEN_EXISTING_REG_IS_FAILED':
      return failed;
    case 'WHEN_EXISTING_REG_IS_FAILED_AND_NEWER_PACKAGE_VERSION_EXISTS':
      return newer && failed;
    default:
      return false;
  }
}

/**
 * What a launch of a registration runs (its launch link is built for it): the latest instance, or, when the
 * instance's effective WhenToRestartRegistration says so, a new instance on the course's latest version; with
 * AssignLatestVersionInsteadOfRestartRegistration and a newer version, the latest instance moves onto that version
 * instead, keeping the results of the activities the new version still has.
 */
@Injectable()
export class RegistrationRestarts {
  constructor(
    @InjectRepository(RegistrationInstanceEntity) private readonly instances: Repository<RegistrationInstanceEntity>,
    private readonly registrations: RegistrationsService,
    private readonly courses: CoursesService,
    private readonly settings: SettingsService,
  ) {}

  /** `inst`: the registration's latest instance, as the caller read it. */
  async instanceToLaunch(appId: string, reg: RegistrationEntity, inst: RegistrationInstanceEntity): Promise<RegistrationInstanceEntity> {
    const { course, version } = await this.courses.resolveVersion(appId, reg.courseId, inst.courseVersion);
    const values = await this.settings.effective(appId, { level: 'registrationInstance', registrationId: reg.id, instance: inst.instance, course: settingCourseRef(version) }, RESTART_SETTING_IDS);
    const newer = course.latestVersion > inst.courseVersion;
    if (!restartDue(values.get('WhenToRestartRegistration') ?? 'NEVER', inst, newer)) return inst;
    if (newer && values.get('AssignLatestVersionInsteadOfRestartRegistration') === 'true') {
      const { version: latest } = await this.courses.resolveVersion(appId, reg.courseId);
      const tree = latest.rootActivity ? overlayActivityTree(initialActivityTree(latest.rootActivity), inst.activityDetails ?? undefined) : null;
      // Compare-and-set on commit_seq: a commit landing meanwhile keeps the instance where it was (this launch runs it).
      const moved = await this.instances.update(
        { appId, registrationId: reg.id, instance: inst.instance, commitSeq: inst.commitSeq },
        { courseVersion: latest.version, activityDetails: tree, sequencingState: null, suspendedActivityId: null, commitSeq: inst.commitSeq + 1, updatedAt: new Date() },
      );
      return moved.affected ? this.registrations.requireInstance(appId, reg) : inst;
    }
    await this.registrations.createInstance(appId, reg.id);
    return this.registrations.requireInstance(appId, await this.registrations.requireRegistration(appId, reg.id));
  }
}
