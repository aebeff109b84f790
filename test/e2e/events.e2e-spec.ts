import { DataSource } from 'typeorm';
import { DomainEvent, DurableDelivery, EventBus, RegistrationCompleted } from '../../src/platform/events';
import { startTestServer, TestServer } from '../support/test-server';

function completed(registrationId: string): RegistrationCompleted {
  return new RegistrationCompleted({
    appId: 'app-1',
    registrationId,
    instance: 0,
    courseId: 'course-1',
    learnerId: 'learner-1',
    success: 'PASSED',
    score: 80,
    totalSecondsTracked: 12,
    completedAt: new Date().toISOString(),
  });
}

async function until<T>(probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('domain events: in-process and durable (outbox) listeners', () => {
  let server: TestServer;
  let bus: EventBus;
  let ds: DataSource;
  const durable: Array<{ event: DomainEvent; delivery: DurableDelivery }> = [];
  const inProcess: DomainEvent[] = [];
  let failFirst = new Set<string>();

  beforeAll(async () => {
    server = await startTestServer();
    bus = server.app.get(EventBus);
    ds = server.app.get(DataSource);
    bus.onDurable(RegistrationCompleted, { name: 'test.completed-sink' }, (event, delivery) => {
      if (failFirst.delete(event.registrationId)) return Promise.reject(new Error('not yet'));
      durable.push({ event, delivery });
      return Promise.resolve();
    });
    bus.on(RegistrationCompleted, (event) => {
      inProcess.push(event);
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const outboxRows = async (eventId: string) =>
    ds.query<Array<{ status: string }>>(`SELECT status FROM job WHERE queue = 'domain-event' AND payload LIKE ?`, [`%${eventId}%`]);

  it('delivers an event published in a committed transaction to both kinds of listeners, the durable one with the event id as idempotency key', async () => {
    const event = completed('reg-commit');
    await ds.transaction(async (m) => {
      await bus.publishIn(m, event);
      // Nothing is told before the change is committed.
      await new Promise((r) => setTimeout(r, 100));
      expect(inProcess.find((e) => e.id === event.id)).toBeUndefined();
    });
    const got = await until(() => durable.find((d) => d.event.id === event.id));
    expect(got.event).toBeInstanceOf(RegistrationCompleted);
    expect(got.event).toMatchObject({ registrationId: 'reg-commit', score: 80, success: 'PASSED', appId: 'app-1' });
    expect(got.delivery.idempotencyKey).toBe(event.id);
    expect(got.delivery.attempt).toBe(1);
    await until(() => inProcess.find((e) => e.id === event.id));
  });

  it('writes nothing when the transaction rolls back: no outbox row, no listener called', async () => {
    const event = completed('reg-rollback');
    await expect(
      ds.transaction(async (m) => {
        await bus.publishIn(m, event);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await outboxRows(event.id)).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 500));
    expect(durable.find((d) => d.event.id === event.id)).toBeUndefined();
    expect(inProcess.find((e) => e.id === event.id)).toBeUndefined();
  });

  it('retries a durable listener that throws, with the same idempotency key', async () => {
    failFirst = new Set(['reg-retry']);
    const event = completed('reg-retry');
    await bus.publish(event);
    const got = await until(() => durable.find((d) => d.event.id === event.id), 20_000);
    expect(got.delivery.attempt).toBe(2);
    expect(got.delivery.idempotencyKey).toBe(event.id);
    expect((await outboxRows(event.id)).map((r) => r.status)).toEqual(['completed']);
  });

  it('refuses a second durable listener with the same name', () => {
    expect(() => bus.onDurable(RegistrationCompleted, { name: 'test.completed-sink' }, () => Promise.resolve())).toThrow(/already subscribed/);
  });
});
