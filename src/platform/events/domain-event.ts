import { randomUUID } from 'node:crypto';

/**
 * A fact that happened in LCDS, told to whoever listens. Events hold JSON values only (strings, numbers, booleans,
 * null, arrays and plain objects of them), so the durable path can store them and hand the same values to a
 * listener in another process. They name learners by id, never by name or e-mail.
 */
export abstract class DomainEvent {
  /** Unique per event; the idempotency key of durable deliveries (the same id on every redelivery). */
  declare readonly id: string;
  /** ISO 8601, UTC. */
  declare readonly occurredAt: string;
  /** The application (tenant) the event belongs to. */
  declare readonly appId: string;

  constructor(data: object) {
    Object.assign(this, data);
    const self = this as { id?: string; occurredAt?: string };
    self.id ??= randomUUID();
    self.occurredAt ??= new Date().toISOString();
  }
}

/**
 * An event class: its constructor and its stable `type` name (stored in outbox rows, so never renamed once released).
 */
export interface EventType<E extends DomainEvent = DomainEvent> {
  readonly type: string;
  new (data: never): E;
  readonly prototype: E;
}

/** What a constructor takes: the event's fields; `id` and `occurredAt` are filled in when left out. */
export type EventData<E extends DomainEvent> = Omit<{ [K in keyof E]: E[K] }, 'id' | 'occurredAt'> & { id?: string; occurredAt?: string };
