import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { JobContext, JobQueue, UnrecoverableJobError } from '../queue/job-queue';
import type { JobEntity } from '../queue/job.entity';
import { AfterCommit } from './after-commit';
import { DOMAIN_EVENT_QUEUE, DomainEventJob } from './domain-event-queue';
import { DomainEvent, EventType } from './domain-event';
import { LCDS_EVENT_TYPES } from './lcds-events';

/** An in-process listener: runs in the publishing process after the change committed; lost if the process stops. */
export type EventListener<E extends DomainEvent> = (event: E) => void | Promise<void>;

/** What a durable listener learns about the delivery it runs. */
export interface DurableDelivery {
  /**
   * The same on every delivery of this event (the event's id): store it with what the listener writes (a unique key)
   * and skip an event already handled, since delivery is at least once.
   */
  readonly idempotencyKey: string;
  /** 1 on the first delivery, 2 on the first retry, … */
  readonly attempt: number;
  readonly jobId: string;
  /** Aborted when the delivery should stop (timeout, shutdown, the job taken over by another worker). */
  readonly signal?: AbortSignal;
}

/** A durable listener: runs at least once, through the job queue, on a worker; throwing retries it with backoff. */
export type DurableEventListener<E extends DomainEvent> = (event: E, delivery: DurableDelivery) => Promise<void>;

export interface DurableListenerOptions {
  /** Stable across releases and unique in the process: outbox rows name their listener by it. */
  name: string;
}

/** An event whose outbox rows a writer inserts itself (`EventBus.stage`). */
export interface StagedEvent {
  readonly event: DomainEvent;
  /** Rows of table `job` to insert in the writer's transaction (INSERT_JOB_SQL, or the JobEntity). */
  readonly jobs: readonly JobEntity[];
}

const LISTENER_NAME = /^[A-Za-z0-9][\w.:-]{0,99}$/;

/**
 * The domain event bus. Publishers tell what happened; listeners subscribe by event class.
 *
 * - `on`: in-process listeners, called once the change committed, in the publishing process, not awaited by the
 *   publisher (their errors are logged). For what may be lost with the process (caches, metrics, live views).
 * - `onDurable`: durable listeners. Publishing writes one job row per durable listener (queue `domain-event`) with the
 *   change's own EntityManager, in its transaction (an outbox): the delivery exists if and only if the change
 *   committed, and runs at least once on a worker, even after a crash. The event's id is the idempotency key.
 * - `publishIn(manager, event)` inside the change's transaction; `publish(event)` after a change that had none
 *   (its durable rows are then a write of their own, right after the change).
 */
@Injectable()
export class EventBus implements OnModuleInit {
  private readonly logger = new Logger(EventBus.name);
  private readonly types = new Map<string, EventType>();
  private readonly inProcess = new Map<string, Set<EventListener<DomainEvent>>>();
  private readonly durable = new Map<string, Map<string, DurableEventListener<DomainEvent>>>();
  private readonly durableByName = new Map<string, { type: string; listener: DurableEventListener<DomainEvent> }>();

  constructor(
    private readonly jobs: JobQueue,
    private readonly afterCommit: AfterCommit,
  ) {
    for (const type of LCDS_EVENT_TYPES) this.know(type);
  }

  onModuleInit(): void {
    this.jobs.register(DOMAIN_EVENT_QUEUE, (job, context) => this.deliverDurable(job, context));
  }

  /** Subscribes an in-process listener; returns the function that unsubscribes it. */
  on<E extends DomainEvent>(type: EventType<E>, listener: EventListener<E>): () => void {
    this.know(type);
    let set = this.inProcess.get(type.type);
    if (!set) {
      set = new Set();
      this.inProcess.set(type.type, set);
    }
    const entry = listener as EventListener<DomainEvent>;
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  /**
   * Subscribes a durable listener. Call it when the application starts (a provider's constructor or onModuleInit),
   * on every node: API nodes write the outbox rows of the listeners they know, workers run them.
   */
  onDurable<E extends DomainEvent>(type: EventType<E>, options: DurableListenerOptions, listener: DurableEventListener<E>): void {
    const { name } = options;
    if (!LISTENER_NAME.test(name)) throw new Error(`Durable listener name "${name}" must be 1 to 100 letters, digits, '_', '.', ':' or '-'`);
    if (this.durableByName.has(name)) throw new Error(`A durable listener named "${name}" is already subscribed`);
    this.know(type);
    const entry = listener as DurableEventListener<DomainEvent>;
    this.durableByName.set(name, { type: type.type, listener: entry });
    let byName = this.durable.get(type.type);
    if (!byName) {
      byName = new Map();
      this.durable.set(type.type, byName);
    }
    byName.set(name, entry);
  }

  /** True when a listener of either kind subscribed to this event class (a hot path may skip building the event). */
  hasListeners(type: EventType): boolean {
    return (this.inProcess.get(type.type)?.size ?? 0) > 0 || (this.durable.get(type.type)?.size ?? 0) > 0;
  }

  /** True when a durable listener subscribed to this event class (the publisher must then write outbox rows). */
  hasDurableListeners(type: EventType): boolean {
    return (this.durable.get(type.type)?.size ?? 0) > 0;
  }

  /**
   * Publishes an event inside the transaction of the change it tells: durable deliveries are written with `manager`
   * (they exist if and only if the transaction commits); in-process listeners run once it committed.
   */
  async publishIn(manager: EntityManager, event: DomainEvent): Promise<void> {
    const type = typeOf(event);
    const jobIds = await this.writeOutbox(manager, type, event);
    if (jobIds.length === 0 && !this.inProcess.get(type)?.size) return;
    this.afterCommit.schedule(manager, () => this.delivered(type, event, jobIds));
  }

  /**
   * Publishes an event after the change it tells committed (or for a change made without a transaction): in-process
   * listeners now, durable deliveries written now with a write of their own.
   */
  async publish(event: DomainEvent): Promise<void> {
    const type = typeOf(event);
    const jobIds = await this.writeOutbox(null, type, event);
    this.delivered(type, event, jobIds);
  }

  /**
   * For a writer that runs its own SQL transaction (the runtime commit): the event's outbox rows to insert in it (none
   * when no durable listener subscribed), then `committed(staged)` once it committed. Null when nobody listens.
   */
  stage(event: DomainEvent): StagedEvent | null {
    const type = typeOf(event);
    if (!this.hasListeners(event.constructor as EventType)) return null;
    const byName = this.durable.get(type);
    const fields = { ...event } as Record<string, unknown>;
    const jobs = byName ? [...byName.keys()].map((listener) => this.jobs.outboxRow(DOMAIN_EVENT_QUEUE, { listener, type, event: fields }, { appId: event.appId })) : [];
    return { event, jobs };
  }

  /** A staged event's transaction committed: the in-process listeners run, the outbox rows go to the transport. */
  committed(staged: StagedEvent): void {
    this.delivered(typeOf(staged.event), staged.event, staged.jobs.map((j) => j.id));
  }

  private async writeOutbox(manager: EntityManager | null, type: string, event: DomainEvent): Promise<string[]> {
    const byName = this.durable.get(type);
    if (!byName || byName.size === 0) return [];
    const fields = { ...event } as Record<string, unknown>;
    const ids: string[] = [];
    for (const listener of byName.keys()) {
      const payload: DomainEventJob = { listener, type, event: fields };
      const options = { appId: event.appId };
      ids.push(manager ? await this.jobs.enqueueIn(manager, DOMAIN_EVENT_QUEUE, payload, options) : await this.jobs.enqueue(DOMAIN_EVENT_QUEUE, payload, options));
    }
    return ids;
  }

  /** After commit: the in-process listeners, and the transport told about the durable rows (a latency matter only). */
  private delivered(type: string, event: DomainEvent, jobIds: string[]): void {
    for (const id of jobIds) void this.jobs.announce(DOMAIN_EVENT_QUEUE, id);
    const listeners = this.inProcess.get(type);
    if (!listeners) return;
    for (const listener of listeners) {
      void Promise.resolve()
        .then(() => listener(event))
        .catch((err: unknown) =>
          this.logger.error({ msg: 'event listener failed', event: type, eventId: event.id, listener: listener.name || 'anonymous', err: describe(err) }),
        );
    }
  }

  private async deliverDurable(job: DomainEventJob, context: JobContext): Promise<void> {
    const subscribed = this.durableByName.get(job.listener);
    if (!subscribed) {
      throw new UnrecoverableJobError(`No durable listener "${job.listener}" in this process (is the module or extension that subscribes it loaded on the workers?)`);
    }
    const type = this.types.get(job.type);
    if (!type || subscribed.type !== job.type) {
      throw new UnrecoverableJobError(`Durable listener "${job.listener}" does not listen to events of type "${job.type}"`);
    }
    const event = Object.assign(Object.create(type.prototype) as DomainEvent, job.event);
    const eventId = String(job.event.id);
    await subscribed.listener(event, { idempotencyKey: eventId, attempt: context.attempt, jobId: context.jobId, signal: context.signal });
  }

  private know(type: EventType): void {
    if (typeof type?.type !== 'string' || type.type.length === 0) throw new Error('An event class needs a static `type` name');
    const known = this.types.get(type.type);
    if (known && known !== type) throw new Error(`Two event classes have the type "${type.type}"`);
    this.types.set(type.type, type);
  }
}

function typeOf(event: DomainEvent): string {
  const type = (event.constructor as Partial<EventType>).type;
  if (typeof type !== 'string') throw new Error(`${event.constructor.name} has no static \`type\`: is it a DomainEvent class?`);
  return type;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
