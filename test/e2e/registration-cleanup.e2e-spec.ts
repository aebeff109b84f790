import { DataSource } from 'typeorm';
import { RegistrationPostbackStateEntity } from '../../src/modules/registrations/entities/registration-postback-state.entity';
import { fixture, importCourse } from '../support/courses';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * What a registration leaves in other tables — its postback sequence (registration_postback_state) — goes with it,
 * whichever way it goes: registration, instance, progress reset, course and application deletion. (What its launches
 * reported as xAPI statements is kept on its instances, and goes with them: see launch-statements.e2e-spec.)
 */
describe('registration state removed with its registration', () => {
  let s: TestServer;
  let app: string;
  let appId: string;
  let ds: DataSource;
  const learner = { id: 'learner-c', firstName: 'Ada', lastName: 'Lovelace' };

  const postbackStates = (forApp: string, registrationId?: string) =>
    ds.getRepository(RegistrationPostbackStateEntity).countBy({ appId: forApp, ...(registrationId !== undefined ? { registrationId } : {}) });
  /** The row a postback leaves (written here as the postback job writes it). */
  const seedState = async (forApp: string, registrationId: string) => {
    await ds.getRepository(RegistrationPostbackStateEntity).insert({ appId: forApp, registrationId, instance: 0, requestedSeq: 2, settledSeq: 1, updatedAt: new Date() });
  };
  const register = async (registrationId: string, courseId = 'golf12') => {
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId, courseId, learner } })).status).toBe(204);
  };

  beforeAll(async () => {
    s = await startTestServer();
    appId = s.firstStart.application.appId;
    app = basic(appId, s.firstStart.application.secretKey);
    ds = s.app.get(DataSource);
    await importCourse(s.api, app, 'golf12', fixture('scorm12-golf-runtime-basic.zip'));
    await importCourse(s.api, app, 'golf12b', fixture('scorm12-golf-runtime-basic.zip'));
  });
  afterAll(async () => s?.close());

  it('deleting a launched registration removes its state, and only its own', async () => {
    await register('rc-launched');
    await register('rc-other');
    await seedState(appId, 'rc-other');
    const link = await call(`${s.api}/registrations/rc-launched/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    expect(link.status).toBe(200);
    const res = await fetch(link.body.launchLink as string, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const playerUrl = new URL(res.headers.get('location')!, s.baseUrl).toString();
    const progress = await call(`${s.api}/registrations/rc-launched?includeChildResults=true`, { auth: app });
    const activityId = progress.body.activityDetails.children[0].id as string;
    const commit = await fetch(`${playerUrl}commit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ seq: 1, activityId, cmi: { 'cmi.core.lesson_status': 'passed', 'cmi.core.score.raw': '90' }, final: true }),
    });
    expect(commit.status).toBe(200);

    expect((await call(`${s.api}/registrations/rc-launched`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect(await postbackStates(appId, 'rc-other')).toBe(1);
    expect((await call(`${s.api}/registrations/rc-other`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect(await postbackStates(appId, 'rc-other')).toBe(0);
  });

  it('a progress reset keeps the postback sequence; deleting the only instance removes it with the registration', async () => {
    await register('rc-reset');
    await seedState(appId, 'rc-reset');
    expect((await call(`${s.api}/registrations/rc-reset/progress`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect(await postbackStates(appId, 'rc-reset')).toBe(1);
    // The only instance: deleting it deletes the registration, and its postback sequence with it.
    expect((await call(`${s.api}/registrations/rc-reset/instances/0`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect((await call(`${s.api}/registrations/rc-reset`, { auth: app })).status).toBe(404);
    expect(await postbackStates(appId, 'rc-reset')).toBe(0);
  });

  it('a course deletion removes the state of its registrations, not of other courses', async () => {
    await register('rc-course-1', 'golf12b');
    await register('rc-course-2', 'golf12b');
    await register('rc-kept', 'golf12');
    for (const id of ['rc-course-1', 'rc-course-2', 'rc-kept']) await seedState(appId, id);
    expect((await call(`${s.api}/courses/golf12b`, { method: 'DELETE', auth: app })).status).toBe(204);
    for (const id of ['rc-course-1', 'rc-course-2']) {
      expect(await postbackStates(appId, id)).toBe(0);
    }
    expect(await postbackStates(appId, 'rc-kept')).toBe(1);
  });

  it('an application deletion removes the state of all its registrations', async () => {
    const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    const created = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'Cleanup app' } });
    expect(created.status).toBe(200);
    const other = created.body.id as string;
    await seedState(other, 'r-1');
    await seedState(other, 'r-2');
    expect((await call(`${s.api}/appManagement/applications/${other}`, { method: 'DELETE', auth: mgmt })).status).toBe(204);
    expect(await postbackStates(other)).toBe(0);
  });
});
