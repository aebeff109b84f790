import type { CourseVersion } from '../courses/course-version';
import type { SettingCourseRef } from '../settings/settings.service';

/** The first moment of the calendar month (UTC) a moment falls in: the period of the registration limit. */
export function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** The course chain of a registration's settings target, from the course version it runs. */
export function settingCourseRef(version: CourseVersion): SettingCourseRef {
  return {
    courseId: version.courseId,
    version: version.version,
    learningStandard: version.learningStandard,
    singleSco: (version.package?.launchables.length ?? 0) <= 1,
  };
}
