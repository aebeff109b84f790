import { fixture, importCourse } from '../support/courses';
import { InvitationsService } from '../../src/modules/invitations/invitations.service';
import { RegistrationCreation } from '../../src/modules/registrations/registration-creation';
import { RegistrationsService } from '../../src/modules/registrations/registrations.service';
import { EventBus, RegistrationCreated } from '../../src/platform/events';
import { waitFor } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * Registrations made at the same moment: parallel CreateRegistration calls of distinct ids all succeed (none is told
 * its id "already exists"), and simultaneous visitors of a public invitation never take it past its registrationCap.
 */
describe('registrations created at the same time', () => {
  let s: TestServer;
  let app: string;

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'golf', fixture('scorm12-golf-runtime-basic.zip'));
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('100 parallel creations of distinct ids: every one is created, none reported as a duplicate', async () => {
    const ids = Array.from({ length: 100 }, (_, i) => `parallel-${i}`);
    const answers = await Promise.all(
      ids.map((id, i) =>
        call(`${s.api}/registrations`, {
          method: 'POST',
          auth: app,
          json: { registrationId: id, courseId: 'golf', learner: { id: `l-${id}` }, registrationTags: [`t${i}`, 'all'], learnerTags: ['p'], courseTags: [`c${i % 3}`] },
        }),
      ),
    );
    expect(answers.map((a) => [a.status, a.body?.message ?? ''])).toEqual(ids.map(() => [204, '']));
    for (const id of ids) expect((await call(`${s.api}/registrations/${id}`, { auth: app })).status).toBe(200);
    // A real duplicate is still refused.
    const again = await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: ids[0], courseId: 'golf', learner: { id: 'x' } } });
    expect(again.status).toBe(400);
    expect(again.body.message).toMatch(/already exists/);
  });

  it('each of 30 ids created twice at the same moment: one creation of each succeeds, the other is the duplicate, all 30 exist', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `twice-${i}`);
    const create = (id: string, n: number) =>
      call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: id, courseId: 'golf', learner: { id: `l-${id}-${n}` }, registrationTags: ['twice'] } });
    const answers = await Promise.all(ids.flatMap((id) => [create(id, 1), create(id, 2)]));
    for (let i = 0; i < ids.length; i++) {
      const pair = [answers[2 * i], answers[2 * i + 1]].map((a) => a.status).sort();
      expect([ids[i], pair]).toEqual([ids[i], [204, 400]]);
    }
    for (const id of ids) expect([id, (await call(`${s.api}/registrations/${id}`, { auth: app })).status]).toEqual([id, 200]);
  });

  it('RegistrationCreation.create called 60 times at once in the process (distinct ids): all created, none a false duplicate', async () => {
    const service = s.app.get(RegistrationCreation);
    const appId = s.firstStart.application.appId;
    const ids = Array.from({ length: 60 }, (_, i) => `inproc-${i}`);
    const outcomes = await Promise.allSettled(ids.map((id, i) => service.create(appId, { registrationId: id, courseId: 'golf', learner: { id: `l-${id}` }, registrationTags: [`t${i}`] })));
    expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))).toEqual(ids.map(() => 'ok'));
    for (const id of ids) expect([id, (await call(`${s.api}/registrations/${id}`, { auth: app })).status]).toEqual([id, 200]);
  });

  it('createMany: 1,200 registrations in chunks, one RegistrationCreated each after its commit; a taken id refuses the batch before anything is written', async () => {
    const service = s.app.get(RegistrationCreation);
    const appId = s.firstStart.application.appId;
    const seen: string[] = [];
    const off = s.app.get(EventBus).on(RegistrationCreated, (e) => {
      if (e.registrationId.startsWith('batch-')) seen.push(e.registrationId);
    });
    try {
      const bodies = Array.from({ length: 1200 }, (_, i) => ({ registrationId: `batch-${i}`, courseId: 'golf', learner: { id: `batch-l-${i}`, email: `b${i}@example.com` }, learnerTags: ['batched'] }));
      await service.createMany(appId, bodies);
      const listed = await call(`${s.api}/registrations?courseId=golf&includeTotalCount=true&filter=batch-l-&filterBy=learner_id`, { auth: app });
      expect(listed.headers.get('x-total-count')).toBe('1200');
      await waitFor(() => Promise.resolve(seen.length), (n) => n >= 1200, 10_000);
      expect(new Set(seen).size).toBe(1200);
      expect((await call(`${s.api}/learner/batch-l-7/tags`, { auth: app })).body.tags).toEqual(['batched']);
      // One id of the batch exists: nothing of it is created, the error names the id.
      const again = [{ ...bodies[0], registrationId: 'batch-new-1' }, bodies[5]];
      await expect(service.createMany(appId, again)).rejects.toThrow(/'batch-5' already exists/);
      expect(await s.app.get(RegistrationsService).find(appId, 'batch-new-1')).toBeNull();
    } finally {
      off();
    }
  });

  it.each([1, 3, 7])('simultaneous visitors of a public invitation with registrationCap %i: exactly that many registrations', async (cap) => {
    const created = await call(`${s.api}/invitations/public`, { method: 'POST', auth: app, json: { courseId: 'golf', creatingUserEmail: 'owner@example.com', registrationCap: cap } });
    expect(created.status).toBe(200);
    const url = new URL(created.body.url as string);
    const visitors = Array.from({ length: 24 }, (_, i) => `cap${cap}-visitor${i}@example.com`);
    const answers = await Promise.all(
      visitors.map((email, i) =>
        fetch(`${s.baseUrl}${url.pathname}`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ firstName: 'V', lastName: String(i), email }).toString(),
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((st) => st === 303)).toHaveLength(cap);
    expect(statuses.filter((st) => st === 403)).toHaveLength(visitors.length - cap);
    const users = (await call(`${s.api}/invitations/public/${created.body.id}/userInvitations`, { auth: app })).body.userInvitations;
    expect(users).toHaveLength(cap);
    const got = await call(`${s.api}/invitations/public/${created.body.id}?includeRegistrationCount=true`, { auth: app });
    expect(got.body.registrationCount).toBe(cap);
    const regs = await call(`${s.api}/registrations?courseId=golf&includeTotalCount=true&filter=cap${cap}-&filterBy=learner_id`, { auth: app });
    expect(Number(regs.headers.get('x-total-count'))).toBe(cap);
    // Those who got in come back and resume their own registration, cap reached or not.
    const winner = users[0].email as string;
    const back = await fetch(`${s.baseUrl}${url.pathname}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ firstName: 'V', lastName: 'again', email: winner }).toString(),
    });
    expect(back.status).toBe(303);
  });

  it('30 joins of a public invitation (cap 5) awaited together in the process: exactly 5 get a registration', async () => {
    const created = await call(`${s.api}/invitations/public`, { method: 'POST', auth: app, json: { courseId: 'golf', creatingUserEmail: 'owner@example.com', registrationCap: 5 } });
    const invitations = s.app.get(InvitationsService);
    const inv = await invitations.require(s.firstStart.application.appId, 'public', created.body.id as string);
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => invitations.joinPublic(inv, { firstName: 'In', lastName: String(i), email: `capjoin${i}@example.com` })));
    expect(outcomes.filter((o) => 'registrationId' in o)).toHaveLength(5);
    expect(outcomes.filter((o) => 'refused' in o && o.refused === 'full')).toHaveLength(25);
    const regs = await call(`${s.api}/registrations?courseId=golf&includeTotalCount=true&filter=capjoin&filterBy=learner_id`, { auth: app });
    expect(Number(regs.headers.get('x-total-count'))).toBe(5);
    expect((await call(`${s.api}/invitations/public/${inv.id}?includeRegistrationCount=true`, { auth: app })).body.registrationCount).toBe(5);
  });
});
