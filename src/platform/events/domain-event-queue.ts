import { defineQueue } from '../queue/job-queue';

/** One durable delivery: an event for one durable listener. */
export interface DomainEventJob {
  /** The durable listener's name (unique in the process). */
  listener: string;
  /** The event class's `type`. */
  type: string;
  /** The event's fields, as published. */
  event: Record<string, unknown>;
}

/**
 * Durable deliveries of domain events: one job row per event and durable listener, written in the transaction of the
 * change (the outbox), run at least once by a worker. Retried with backoff for about five hours.
 */
export const DOMAIN_EVENT_QUEUE = defineQueue<DomainEventJob>({
  name: 'domain-event',
  // Built by the bus itself from typed events: checked by hand on each run, not by class-validator on each publish.
  validate: 'run',
  check: (payload) => {
    const problems: string[] = [];
    if (typeof payload.listener !== 'string' || payload.listener.length === 0) problems.push('listener: must be a non-empty string');
    if (typeof payload.type !== 'string' || payload.type.length === 0) problems.push('type: must be a non-empty string');
    const event = payload.event;
    if (event === null || typeof event !== 'object' || Array.isArray(event)) problems.push('event: must be an object');
    else if (typeof (event as { id?: unknown }).id !== 'string') problems.push('event.id: must be a string');
    return problems;
  },
  maxAttempts: 15,
  backoffMs: 2_000,
});
