import { DataSource, ObjectLiteral, Repository } from 'typeorm';
import { affectedBy, leanInsert, leanRead, leanUpdate, rowInsert } from '../../src/platform/database/lean-read';
import { RegistrationProgress } from '../../src/modules/registrations/registration-progress';
import { RegistrationEntity } from '../../src/modules/registrations/entities/registration.entity';
import { RegistrationInstanceEntity } from '../../src/modules/registrations/entities/registration-instance.entity';
import { DispatchNonceEntity } from '../../src/modules/dispatch/entities/dispatch-nonce.entity';
import { PlayerSessionEntity } from '../../src/modules/player/player-session.entity';
import { fixture, importCourse } from '../support/courses';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * LeanRead (the dispatch launch's and the player link's reads by plain SQL) hydrates a row as findOneBy does, on the
 * stack under test: every entity without relations that has rows after a course, a dispatch and a launch, read both ways.
 */
describe('LeanRead reads rows as findOneBy does', () => {
  let s: TestServer;
  let app: string;

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'golf', fixture('scorm12-golf-runtime-basic.zip'));
    expect((await call(`${s.api}/dispatch/destinations`, { method: 'POST', auth: app, json: { destinations: [{ id: 'lms', data: { name: 'LMS', launchAuth: { type: 'cookies', options: { expiry: 600 } } } }] } })).status).toBe(204);
    expect((await call(`${s.api}/dispatch/dispatches`, { method: 'POST', auth: app, json: { dispatches: [{ id: 'd1', data: { destinationId: 'lms', courseId: 'golf', registrationCap: 5 } }] } })).status).toBe(204);
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'lean', courseId: 'golf', learner: { id: 'l-lean', firstName: 'Ada', lastName: 'Lovelace' } } })).status).toBe(204);
    const link = await call(`${s.api}/registrations/lean/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    expect((await fetch(link.body.launchLink, { redirect: 'manual' })).status).toBe(303);
    // A second link, not claimed: a session row with nulls (used_at, launch_history_id).
    expect((await call(`${s.api}/registrations/lean/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } })).status).toBe(200);
  }, 60_000);
  afterAll(async () => s?.close());

  it('every row of the launch path (course, version, registration, instance, session, dispatch, destination, …)', async () => {
    const dataSource = s.app.get(DataSource);
    const read: string[] = [];
    for (const meta of dataSource.entityMetadatas) {
      if (meta.relations.length || meta.embeddeds.length || meta.tableType !== 'regular') continue;
      const repo: Repository<ObjectLiteral> = dataSource.getRepository<ObjectLiteral>(meta.target);
      const keys = meta.primaryColumns.map((c) => c.propertyName);
      for (const row of await repo.find({ take: 3 })) {
        const where = Object.fromEntries(keys.map((k) => [k, row[k]]));
        if (Object.values(where).some((v) => typeof v !== 'string' && typeof v !== 'number')) continue;
        const lean = await leanRead(repo, keys).one(where);
        expect({ entity: meta.name, row: lean }).toEqual({ entity: meta.name, row: await repo.findOneBy(where) });
        expect(lean).toBeInstanceOf(meta.target as new () => unknown);
        read.push(meta.name);
      }
    }
    for (const entity of ['CourseEntity', 'CourseVersionEntity', 'RegistrationEntity', 'RegistrationInstanceEntity', 'PlayerSessionEntity', 'DispatchEntity', 'DestinationEntity', 'LaunchHistoryEntity']) expect(read).toContain(entity);
    // No row: null, as findOneBy.
    const courses = dataSource.getRepository<ObjectLiteral>('CourseEntity');
    expect(await leanRead(courses, ['appId', 'id']).one({ appId: s.firstStart.application.appId, id: 'nope' })).toBeNull();
  });

  it('LeanUpdate writes values as update does (dates, JSON), counts the rows, and honours its IS NULL condition', async () => {
    const sessions = s.app.get(DataSource).getRepository(PlayerSessionEntity);
    const [open] = await sessions.find({ where: { registrationId: 'lean' }, order: { createdAt: 'DESC' }, take: 1 });
    const twin = { ...open, id: `${open.id.slice(0, 30)}twin00` };
    await sessions.insert(twin);
    const claim = leanUpdate(sessions, ['usedAt'], ['id'], ['usedAt']);
    const at = new Date('2031-02-03T04:05:06.789Z');
    const settings = { redirectOnExitUrl: 'message', tracking: true, activityId: 'x', culture: 'fr' };
    // The same changes through update and through LeanUpdate give the same rows.
    await sessions.update({ id: open.id }, { usedAt: at, settings, expiresAt: at });
    expect(await claim.run({ usedAt: at }, { id: twin.id })).toBe(1);
    expect(await claim.run({ usedAt: new Date() }, { id: twin.id })).toBe(0);
    expect(await leanUpdate(sessions, ['settings', 'expiresAt'], ['id']).run({ settings, expiresAt: at }, { id: twin.id })).toBe(1);
    expect(await leanUpdate(sessions, ['settings', 'expiresAt'], ['id']).run({ settings, expiresAt: at }, { id: 'nope' })).toBe(0);
    expect({ ...(await sessions.findOneByOrFail({ id: twin.id })), id: open.id }).toEqual(await sessions.findOneByOrFail({ id: open.id }));
    expect((await sessions.findOneByOrFail({ id: twin.id })).usedAt).toEqual(at);
  });

  it('LeanInsert writes a row as insert does; a duplicate key fails', async () => {
    const nonces = s.app.get(DataSource).getRepository(DispatchNonceEntity);
    const at = new Date('2031-02-03T04:05:06.789Z');
    await nonces.insert({ nonce: 'by-insert', expiresAt: at });
    await leanInsert(nonces, ['nonce', 'expiresAt']).run({ nonce: 'by-lean-insert', expiresAt: at });
    expect(await nonces.findOneByOrFail({ nonce: 'by-lean-insert' })).toEqual({ ...(await nonces.findOneByOrFail({ nonce: 'by-insert' })), nonce: 'by-lean-insert' });
    await expect(leanInsert(nonces, ['nonce', 'expiresAt']).run({ nonce: 'by-insert', expiresAt: at })).rejects.toThrow();
    // Ignoring duplicates: the taken key is skipped, the row as it was.
    expect(await affectedBy(s.app.get(DataSource), ...Object.values(rowInsert(nonces, { nonce: 'by-insert', expiresAt: new Date('2040-01-01T00:00:00Z') }, true)) as [string, unknown[]])).toBe(0);
    expect((await nonces.findOneByOrFail({ nonce: 'by-insert' })).expiresAt).toEqual(at);
  });

  it("a launch's joined read (registration, instance, sequencing state) gives the rows as findOneBy does", async () => {
    const dataSource = s.app.get(DataSource);
    const appId = s.firstStart.application.appId;
    const progress = s.app.get(RegistrationProgress);
    const reg = await dataSource.getRepository(RegistrationEntity).findOneByOrFail({ appId, id: 'lean' });
    await dataSource.getRepository(RegistrationInstanceEntity).update({ appId, registrationId: 'lean', instance: 0 }, { sequencingState: '{"s":1}' });
    const inst = await dataSource.getRepository(RegistrationInstanceEntity).findOneByOrFail({ appId, registrationId: 'lean', instance: 0 });
    for (const which of [0, 'latest'] as const) {
      const state = await progress.launchState(appId, 'lean', which);
      expect(state).toEqual({ reg, inst, sequencingState: '{"s":1}' });
      expect(state!.reg).toBeInstanceOf(RegistrationEntity);
      expect(state!.inst).toBeInstanceOf(RegistrationInstanceEntity);
    }
    // No such instance, registration or application: null.
    expect(await progress.launchState(appId, 'lean', 1)).toBeNull();
    expect(await progress.launchState(appId, 'nope', 'latest')).toBeNull();
    expect(await progress.launchState('other-app', 'lean', 0)).toBeNull();
  });
});
