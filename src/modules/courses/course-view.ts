import type { CourseEntity } from './entities/course.entity';
import type { CourseVersionEntity } from './entities/course-version.entity';

/** CourseSchema */
export interface CourseView {
  id: string;
  title: string;
  xapiActivityId?: string;
  created: string;
  updated: string;
  version: number;
  registrationCount?: number;
  activityId?: string;
  courseLearningStandard: string;
  tags: string[];
  dispatched: boolean;
  metadata?: object;
  rootActivity?: object;
}

export function courseView(
  course: CourseEntity,
  version: CourseVersionEntity,
  extra: { tags: string[]; registrationCount?: number; includeMetadata?: boolean; versionDates?: boolean },
): CourseView {
  return {
    id: course.id,
    title: course.title,
    ...(version.xapiActivityId ? { xapiActivityId: version.xapiActivityId } : {}),
    // A version reports its own dates; the course reports the course's.
    created: (extra.versionDates ? version.createdAt : course.createdAt).toISOString(),
    updated: (extra.versionDates ? version.updatedAt : course.updatedAt).toISOString(),
    version: version.version,
    ...(extra.registrationCount !== undefined ? { registrationCount: extra.registrationCount } : {}),
    activityId: version.rootActivity?.externalIdentifier,
    courseLearningStandard: version.learningStandard,
    tags: extra.tags,
    dispatched: false,
    ...(extra.includeMetadata ? { metadata: version.metadata ?? {} } : {}),
    ...(version.rootActivity ? { rootActivity: version.rootActivity } : {}),
  };
}
