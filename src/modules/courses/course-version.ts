import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { CourseVersionEntity } from './entities/course-version.entity';

/**
 * A course version as other modules read it (the player runs it, registrations create instances of it). They get it
 * from CoursesService (findVersion, requireVersion, titlesOf) and never query the course tables themselves.
 */
export type { CourseVersionEntity as CourseVersion } from './entities/course-version.entity';
/** A course row as CoursesService hands it out (requireCourse). */
export type { CourseEntity as CourseRow } from './entities/course.entity';

/**
 * List hot path, documented exception to "ask the service": GetRegistrations reads each row's course title in the
 * page's own query (primary-key lookups joined to it). This joins the course version `on` names (aliases of the
 * caller's query) as `alias`, mapped to `property`, and selects its key and title only; the courses module owns the
 * table and its columns.
 */
export function joinVersionTitle<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>, property: string, alias: string, on: string): { qb: SelectQueryBuilder<T>; columns: string[] } {
  return { qb: qb.leftJoinAndMapOne(property, CourseVersionEntity, alias, on), columns: [`${alias}.appId`, `${alias}.courseId`, `${alias}.version`, `${alias}.title`] };
}
