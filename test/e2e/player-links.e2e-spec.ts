import { getRepositoryToken } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { RegistrationInstanceEntity } from '../../src/modules/registrations/entities/registration-instance.entity';
import { PlayerSessionEntity } from '../../src/modules/player/player-session.entity';
import { PlayerSessionReaper, REAP_BATCH } from '../../src/modules/player/player-session-reaper';
import { fixture, importCourse } from '../support/courses';
import { createClients, failure, op, sc } from '../support/official-client';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

describe('course preview links and the reaping of expired player sessions', () => {
  let s: TestServer;
  let app: string;
  let other: string;

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    const child = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'Other' } });
    const cred = await call(`${s.api}/appManagement/${child.body.id}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'k', active: true } });
    other = basic(child.body.id, cred.body.credential);
    await importCourse(s.api, app, 'golf', fixture('scorm12-golf-runtime-basic.zip'));
  }, 60_000);
  afterAll(async () => s?.close());

  const preview = (path: string, json: unknown, auth = app) => call(`${s.api}/courses/${path}`, { method: 'POST', auth, json });

  it('builds preview links for a course and a version, under PUBLIC_URL, with the launch link rules', async () => {
    const r = await preview('golf/preview', { expiry: 60, redirectOnExitUrl: 'https://lms.example.com/done', culture: 'de', cssUrl: 'https://cdn.example.com/a.css', additionalvalues: [{ item: 'k', value: 'v' }] });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['launchLink']);
    expect(r.body.launchLink).toMatch(new RegExp(`^${s.config.publicUrl}/player/launch/[\\w-]+\\.[\\w-]+$`));
    expect((await preview('golf/versions/1/preview', {})).status).toBe(200);
    // The player opens it: a redirect to the session page.
    expect((await fetch(r.body.launchLink, { redirect: 'manual' })).status).toBe(303);

    for (const [body, message] of [
      [{ expiry: 5 }, /expiry/],
      [{ expiry: 301 }, /expiry/],
      [{ redirectOnExitUrl: 'ftp://x' }, /redirectOnExitUrl/],
      [{ cssUrl: 'not a url' }, /cssUrl/],
      [{ culture: '12' }, /culture/],
      [{ startSco: 'nope' }, /startSco/],
      [{ unknownField: 1 }, /unknownField/],
    ] as const) {
      const bad = await preview('golf/preview', body);
      expect({ body, status: bad.status }).toEqual({ body, status: 400 });
      expect(bad.body.message).toMatch(message);
    }
    expect((await preview('nope/preview', {})).status).toBe(404);
    expect((await preview('golf/versions/9/preview', {})).status).toBe(404);
    expect((await preview('golf/versions/x/preview', {})).status).toBe(400);
    // Another application's course looks like no course.
    expect((await preview('golf/preview', {}, other)).status).toBe(404);
    expect((await call(`${s.api}/courses/golf/preview`, { method: 'POST', json: {} })).status).toBe(401);
  });

  it("a registration's launch link opens one session, however many requests claim it at once; a refused launch uses it up too", async () => {
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'claim-once', courseId: 'golf', learner: { id: 'l-claim' } } })).status).toBe(204);
    const link = await call(`${s.api}/registrations/claim-once/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    const claims = await Promise.all(Array.from({ length: 6 }, () => fetch(link.body.launchLink, { redirect: 'manual' })));
    expect(claims.map((r) => r.status).sort()).toEqual([303, 410, 410, 410, 410, 410]);
    const refused = claims.find((r) => r.status === 410)!;
    expect(await refused.text()).toMatch(/already been used/);
    const sessions = s.app.get<Repository<PlayerSessionEntity>>(getRepositoryToken(PlayerSessionEntity));
    const history = await call(`${s.api}/registrations/claim-once/launchHistory`, { auth: app });
    expect(history.body.launchHistory).toHaveLength(1);

    // The registration's instance is gone when its link is claimed: 410, and the link stays used (the claim committed).
    const late = await call(`${s.api}/registrations/claim-once/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    const lateId = JSON.parse(Buffer.from(late.body.launchLink.split('/').pop().split('.')[0], 'base64url').toString()).id as string;
    await s.app.get(DataSource).getRepository(RegistrationInstanceEntity).delete({ registrationId: 'claim-once' });
    const gone = await fetch(late.body.launchLink, { redirect: 'manual' });
    expect(gone.status).toBe(410);
    expect(await gone.text()).toMatch(/no longer available/);
    expect((await sessions.findOneByOrFail({ id: lateId })).usedAt).not.toBeNull();
  });

  it('a preview session accepts commits and records nothing', async () => {
    const r = await preview('golf/preview', { expiry: 10 });
    const sessions = s.app.get<Repository<PlayerSessionEntity>>(getRepositoryToken(PlayerSessionEntity));
    const id = JSON.parse(Buffer.from(r.body.launchLink.split('/').pop().split('.')[0], 'base64url').toString()).id as string;
    const row = await sessions.findOneByOrFail({ id });
    expect(row.registrationId).toBe('');
    expect(row.settings).toMatchObject({ tracking: false, preview: { courseId: 'golf', version: 1 } });
    const launched = await fetch(r.body.launchLink, { redirect: 'manual' });
    const page = new URL(launched.headers.get('location')!, s.baseUrl).toString();
    const activityId = (await sessions.findOneByOrFail({ id })).settings!.activityId;
    const commit = await fetch(`${page}commit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seq: 1, activityId, cmi: { 'cmi.core.lesson_status': 'passed' } }) });
    expect(await commit.json()).toMatchObject({ result: true, applied: false });
    expect((await call(`${s.api}/registrations`, { auth: app })).body.registrations).toEqual([]);

    // A multi-SCO preview moves between SCOs like a registration does, still without recording anything.
    await importCourse(s.api, app, 'golf-multi', fixture('scorm12-golf-runtime-minimum.zip'));
    const multi = await preview('golf-multi/preview', { startSco: 'etiquette_course_item' });
    expect(multi.status).toBe(200);
    const multiPage = new URL((await fetch(multi.body.launchLink, { redirect: 'manual' })).headers.get('location')!, s.baseUrl).toString();
    const html = await (await fetch(multiPage)).text();
    expect(html).toContain('"activityId":"etiquette_course_item"');
    const switched = await fetch(`${multiPage}activity`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ activityId: 'playing_par_item' }) });
    expect(switched.status).toBe(200);
    expect(await switched.json()).toMatchObject({ activityId: 'playing_par_item', contentUrl: expect.stringMatching(/^content\//), cmi: { 'cmi.core.student_id': 'preview' } });
    expect((await fetch(`${multiPage}content/imsmanifest.xml`)).status).toBe(200);
    expect((await call(`${s.api}/registrations`, { auth: app })).body.registrations).toEqual([]);
  });

  it('the commit route (served outside Express): sendBeacon bodies, the body limit, malformed JSON, content types, keep-alive', async () => {
    const r = await preview('golf/preview', { expiry: 10 });
    const sessions = s.app.get<Repository<PlayerSessionEntity>>(getRepositoryToken(PlayerSessionEntity));
    const id = JSON.parse(Buffer.from(r.body.launchLink.split('/').pop().split('.')[0], 'base64url').toString()).id as string;
    const page = new URL((await fetch(r.body.launchLink, { redirect: 'manual' })).headers.get('location')!, s.baseUrl).toString();
    const activityId = (await sessions.findOneByOrFail({ id })).settings!.activityId;
    const post = (body: string | Buffer, type?: string, url = `${page}commit`) => fetch(url, { method: 'POST', headers: type ? { 'content-type': type } : {}, body: typeof body === 'string' ? body : new Uint8Array(body) });
    const commit = JSON.stringify({ seq: 1, activityId, cmi: { 'cmi.core.lesson_status': 'passed' } });

    // navigator.sendBeacon posts a string as text/plain;charset=UTF-8 (the JSON parser of the other routes ignores it).
    const beacon = await post(commit, 'text/plain;charset=UTF-8');
    expect(beacon.status).toBe(200);
    expect(beacon.headers.get('cache-control')).toBe('no-store');
    expect(beacon.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await beacon.json()).toEqual({ result: true, errorCode: 0, applied: false });
    // The same keep-alive connection serves the next request (undici reuses it).
    expect((await post(commit, 'application/json', `${page}commit?x=1`)).status).toBe(200);

    const malformed = await post('{"seq": ', 'application/json');
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).message).toMatch(/Malformed JSON/);
    const large = await post(JSON.stringify({ seq: 2, activityId, cmi: { 'cmi.suspend_data': 'x'.repeat(s.config.http.jsonBodyLimit) } }), 'application/json');
    expect(large.status).toBe(413);
    expect((await large.json()).message).toMatch(String(s.config.http.jsonBodyLimit));
    const form = await post('seq=1', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(415);
    expect((await form.json()).message).toMatch(/JSON/);
    const latin = await post(commit, 'application/json; charset=latin1');
    expect(latin.status).toBe(415);
    // A parameter without a value is malformed: the body is read as UTF-8, as the JSON parser of the other routes
    // does (this used to throw in the HTTP server's own listener and end the process).
    const bare = await post(commit, 'application/json; charset');
    expect(bare.status).toBe(200);
    expect(await bare.json()).toMatchObject({ result: true });
    expect((await post(commit, 'application/json;;; =x; charset')).status).toBe(200);
    const empty = await post('', undefined);
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ result: false, errorCode: 101, message: expect.stringMatching(/seq/) });
    const badToken = await post(commit, 'application/json', `${s.baseUrl}/player/s/nope/commit`);
    expect(badToken.status).toBeGreaterThanOrEqual(400);
    expect(badToken.status).toBeLessThan(500);
    expect(await badToken.json()).toMatchObject({ result: false, errorCode: 101, message: expect.any(String) });
    // Other methods and paths still go to the Express app.
    expect((await fetch(`${page}commit`)).status).toBe(404);
  });

  it('works through the official client', async () => {
    const client = createClients(s.api, { normal: [s.firstStart.application.appId, s.firstStart.application.secretKey] });
    const request = new sc.LaunchLinkRequestSchema('https://example.com/done');
    expect((await op(client.course, 'buildCoursePreviewLaunchLink', 'golf', request)).launchLink).toMatch(/\/player\/launch\//);
    expect((await op(client.course, 'buildCoursePreviewLaunchLinkWithVersion', 'golf', 1, request)).launchLink).toMatch(/\/player\/launch\//);
    expect((await failure(client.course, 'buildCoursePreviewLaunchLink', 'nope', request)).status).toBe(404);
  });

  it('the reaper deletes expired player sessions in batches and keeps live ones', async () => {
    const sessions = s.app.get<Repository<PlayerSessionEntity>>(getRepositoryToken(PlayerSessionEntity));
    await sessions.clear();
    const now = Date.now();
    const row = (id: string, expiresAt: Date): PlayerSessionEntity => ({ id, appId: 'a', registrationId: 'r', instance: 0, launchHistoryId: null, createdAt: new Date(now - 3600_000), expiresAt, usedAt: null, settings: null, launchAuth: null, lastSeenAt: null });
    const expired = Array.from({ length: REAP_BATCH * 2 + 7 }, (_, i) => row(`expired-${i}`, new Date(now - 1000 - i)));
    for (let i = 0; i < expired.length; i += 200) await sessions.insert(expired.slice(i, i + 200));
    await preview('golf/preview', {}); // a live, unused link
    await sessions.insert(row('live-session', new Date(now + 3600_000)));
    expect(await s.app.get(PlayerSessionReaper).reap(new Date(now))).toBe(expired.length);
    const left = await sessions.find({ select: { id: true } });
    expect(left.map((r) => r.id)).toContain('live-session');
    expect(left).toHaveLength(2);
    expect(await s.app.get(PlayerSessionReaper).reap(new Date(now))).toBe(0);
  });
});
