import { setTimeout as sleep } from 'node:timers/promises';
import { importCourse } from '../support/courses';
import { scoPackage } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * GetRegistrations with `datetimeFilter=updated` / `orderBy=updated_*`: a registration whose learner made progress
 * (a launch, a commit) is updated, as RegistrationSchema.updated says, and the list finds it so (what integrations poll).
 */
describe('registrations list: updated by the learner’s progress', () => {
  let s: TestServer;
  let app: string;

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'one12', { name: 'one12.zip', data: await scoPackage('1.2', ''), type: 'application/zip' });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  const ids = async (query: string) => ((await call(`${s.api}/registrations?${query}`, { auth: app })).body.registrations as Array<{ id: string }>).map((r) => r.id);
  const create = async (registrationId: string) =>
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId, courseId: 'one12', learner: { id: `l-${registrationId}` } } })).status).toBe(204);

  /** Launches the registration without a browser; returns a commit function of its player session. */
  const launch = async (registrationId: string) => {
    const link = await call(`${s.api}/registrations/${registrationId}/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    const res = await fetch(link.body.launchLink as string, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const player = new URL(res.headers.get('location')!, s.baseUrl).toString();
    let seq = 0;
    return async (cmi: Record<string, string>) => {
      const r = await fetch(`${player}commit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seq: ++seq, activityId: 'sco-1', cmi }) });
      expect(await r.json()).toMatchObject({ applied: true });
    };
  };

  it('a launch and a commit move the registration in datetimeFilter=updated and orderBy=updated_desc', async () => {
    await create('older');
    await create('newer');
    await sleep(20);
    const mark = new Date().toISOString();
    expect(await ids(`datetimeFilter=updated&since=${encodeURIComponent(mark)}`)).toEqual([]);
    expect((await ids('orderBy=updated_desc')).slice(0, 2)).toEqual(['newer', 'older']);

    const commit = await launch('older');
    expect(await ids(`datetimeFilter=updated&since=${encodeURIComponent(mark)}`)).toEqual(['older']);
    await sleep(20);
    const afterLaunch = new Date().toISOString();
    await commit({ 'cmi.core.lesson_status': 'incomplete', 'cmi.core.session_time': '00:00:05' });
    const listed = (await call(`${s.api}/registrations?datetimeFilter=updated&since=${encodeURIComponent(afterLaunch)}`, { auth: app })).body.registrations;
    expect(listed.map((r: { id: string }) => r.id)).toEqual(['older']);
    expect(listed[0].registrationCompletion).toBe('INCOMPLETE');
    expect(listed[0].updated >= afterLaunch).toBe(true);
    expect((await ids('orderBy=updated_desc')).slice(0, 2)).toEqual(['older', 'newer']);
  });
});
