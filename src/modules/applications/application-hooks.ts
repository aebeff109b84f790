import { Injectable } from '@nestjs/common';

/** Counts an application's resources of one kind (courses, registrations); registered by the owning module. */
export type ResourceCounter = (appIds: string[]) => Promise<Map<string, number>>;

/** Removes everything a module holds for an application; must be idempotent. */
export type ApplicationPurger = (appId: string) => Promise<void>;

/**
 * The one path by which other modules take part in an application's life without the applications module
 * knowing them: they register counters for GetApplicationInfo and purgers for DeleteApplication.
 */
@Injectable()
export class ApplicationHooks {
  private readonly counters = new Map<'course' | 'registration', ResourceCounter>();
  private readonly purgers: Array<{ name: string; purge: ApplicationPurger }> = [];

  registerCounter(kind: 'course' | 'registration', counter: ResourceCounter): void {
    this.counters.set(kind, counter);
  }

  registerPurger(name: string, purge: ApplicationPurger): void {
    this.purgers.push({ name, purge });
  }

  async count(kind: 'course' | 'registration', appIds: string[]): Promise<Map<string, number>> {
    const counter = this.counters.get(kind);
    if (!counter || appIds.length === 0) return new Map(appIds.map((id) => [id, 0]));
    return counter(appIds);
  }

  async purge(appId: string): Promise<void> {
    // Later modules' data first (it may reference courses), in reverse order of registration.
    for (const { purge } of [...this.purgers].reverse()) await purge(appId);
  }
}
