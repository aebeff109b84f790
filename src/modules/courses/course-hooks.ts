import { Injectable } from '@nestjs/common';

/** Removes what a module holds for a course (or one version of it); must be idempotent. */
export type CourseDeletion = (appId: string, courseId: string, version?: number) => Promise<void>;

/** Counts registrations per course (or per course version) for includeRegistrationCount. */
export type CourseRegistrationCounter = (appId: string, courseIds: string[], version?: number) => Promise<Map<string, number>>;

/**
 * The one deletion path of a course: registrations, invitations, dispatches and statements modules register here,
 * and deleting a course or a version runs every registered deletion before the course's own rows and files go.
 */
@Injectable()
export class CourseHooks {
  private readonly deletions: Array<{ name: string; run: CourseDeletion }> = [];
  private registrationCounter: CourseRegistrationCounter | null = null;

  registerDeletion(name: string, run: CourseDeletion): void {
    this.deletions.push({ name, run });
  }

  registerRegistrationCounter(counter: CourseRegistrationCounter): void {
    this.registrationCounter = counter;
  }

  async beforeDelete(appId: string, courseId: string, version?: number): Promise<void> {
    for (const { run } of [...this.deletions].reverse()) await run(appId, courseId, version);
  }

  async registrationCounts(appId: string, courseIds: string[], version?: number): Promise<Map<string, number>> {
    if (!this.registrationCounter || courseIds.length === 0) return new Map(courseIds.map((id) => [id, 0]));
    return this.registrationCounter(appId, courseIds, version);
  }
}
