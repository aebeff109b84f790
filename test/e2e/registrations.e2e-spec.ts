import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { DataSource } from 'typeorm';
import { fixture, importCourse } from '../support/courses';
import { dbDate } from '../support/db';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

interface Received {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('registrations: create, list, progress, instances, reset, configuration, tags, postback, launch link', () => {
  let s: TestServer;
  let app: string;
  let mgmt: string;
  let otherApp: string;
  let receiver: Server;
  let receiverUrl: string;
  let receiverStatus = 200;
  const received: Received[] = [];

  const learner = { id: 'learner-1', email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' };
  const create = (body: Record<string, unknown>, query = '') => call(`${s.api}/registrations${query}`, { method: 'POST', auth: app, json: body });
  const reg = (id: string, path = '', init: Parameters<typeof call>[1] = {}) => call(`${s.api}/registrations/${encodeURIComponent(id)}${path}`, { auth: app, ...init });

  beforeAll(async () => {
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true' });
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    await importCourse(s.api, app, 'golf12', fixture('scorm12-golf-runtime-basic.zip'));
    await importCourse(s.api, app, 'golf2004', fixture('scorm2004-3rd-golf-runtime-basic.zip'));
    const child = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'Other' } });
    const cred = await call(`${s.api}/appManagement/${child.body.id}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'k', active: true } });
    otherApp = basic(child.body.id, cred.body.credential);
    await importCourse(s.api, otherApp, 'golf12', fixture('scorm12-golf-runtime-basic.zip'));
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: otherApp, json: { registrationId: 'theirs', courseId: 'golf12', learner } })).status).toBe(204);

    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        received.push({ method: req.method!, headers: req.headers, body });
        res.statusCode = receiverStatus;
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  });
  afterAll(async () => {
    receiver?.close();
    await s?.close();
  });

  it('creates a registration and reads its progress with the real schema; duplicates and bad input are 400', async () => {
    const created = await create({
      registrationId: 'reg-1',
      courseId: 'golf12',
      learner,
      registrationTags: ['cohort-a', 'cohort-a ', 'vip'],
      learnerTags: ['new-hire'],
      courseTags: ['golf'],
      postBack: { url: 'https://lms.example.com/hook', authType: 'HTTPBASIC', userName: 'u', password: 'p', resultsFormat: 'FULL' },
    });
    expect(created.status).toBe(204);
    expect(created.body).toBe('');

    const progress = await reg('reg-1');
    expect(progress.status).toBe(200);
    expect(progress.body).toMatchObject({
      id: 'reg-1',
      instance: 0,
      xapiRegistrationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      registrationCompletion: 'UNKNOWN',
      registrationSuccess: 'UNKNOWN',
      registrationCompletionAmount: 0,
      totalSecondsTracked: 0,
      course: { id: 'golf12', version: 1, title: expect.any(String) },
      learner,
      tags: ['cohort-a', 'vip'],
      globalObjectives: [],
    });
    expect(progress.body.course.title.length).toBeGreaterThan(0);
    expect(Date.parse(progress.body.createdDate)).not.toBeNaN();
    expect(progress.body.score).toBeUndefined();
    expect(progress.body.activityDetails).toMatchObject({ activityCompletion: 'UNKNOWN', activitySuccess: 'UNKNOWN', attempts: 0 });
    expect(progress.body.activityDetails.children).toBeUndefined();
    expect(progress.body.activityDetails.runtime).toBeUndefined();
    expect(JSON.stringify(progress.body)).not.toContain('"password"');

    expect((await call(`${s.api}/learner/learner-1/tags`, { auth: app })).status).not.toBe(500);
    expect((await call(`${s.api}/courses/golf12/tags`, { auth: app })).body.tags).toEqual(['golf']);

    const dup = await create({ registrationId: 'reg-1', courseId: 'golf12', learner });
    expect(dup.status).toBe(400);
    expect(dup.body.message).toMatch(/already exists/);
    const bad = async (body: Record<string, unknown>, query = '', pattern?: RegExp) => {
      const r = await create(body, query);
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
      if (pattern) expect(r.body.message).toMatch(pattern);
    };
    await bad({ registrationId: 'x1', courseId: 'nope', learner }, '', /nope/);
    await bad({ registrationId: 'x1', courseId: 'golf12', learner }, '?courseVersion=9', /9/);
    await bad({ registrationId: 'x1', courseId: 'golf12', learner }, '?courseVersion=abc', /courseVersion/);
    await bad({ registrationId: 'x1', courseId: 'golf12' }, '', /learner/);
    await bad({ registrationId: 'x1', courseId: 'golf12', learner: { firstName: 'x' } }, '', /learner\.id/);
    await bad({ courseId: 'golf12', learner }, '', /registrationId/);
    await bad({ registrationId: 'nul\u0000x', courseId: 'golf12', learner }, '', /registrationId must not contain control characters/);
    await bad({ registrationId: 'tab\tx', courseId: 'golf12', learner }, '', /registrationId/);
    await bad({ registrationId: 'x1', courseId: 'golf12', learner: { id: 'line\nbreak' } }, '', /learner\.id must not contain control characters/);
    await bad({ registrationId: 'x1', courseId: 'golf12', learner, postBack: { url: 'ftp://x.example.com/' } }, '', /postBack\.url/);
    await bad({ registrationId: 'x1', courseId: 'golf12', learner, postBack: { url: 'https://x.example.com/', authType: 'DIGEST' } }, '', /authType/);
    await bad({ registrationId: 'x1', courseId: 'golf12', learner, postBack: { url: 'https://x.example.com/', resultsFormat: 'XML' } }, '', /resultsFormat/);
    await bad({ registrationId: 'x1', courseId: 'golf12', learner, xapiRegistrationId: 'not-a-uuid' }, '', /xapiRegistrationId/);
    await bad({ registrationId: 'x1', courseId: 'golf12', learner, unknownField: 1 }, '', /unknownField/);
    await bad({ registrationId: 'x1', courseId: 'golf12', learner, initialRegistrationState: { registrationCompletion: 'DONE' } }, '', /registrationCompletion/);
    await bad({ registrationId: 'x1', courseId: 'golf12', learner, initialSettings: { settings: [{ settingId: 'NoSuchSetting', value: '1' }] } }, '', /NoSuchSetting/);
    // Nothing of the refused creations is left behind.
    expect((await reg('x1', '', { method: 'HEAD' })).status).toBe(404);

    const malformed = await call(`${s.api}/registrations`, { method: 'POST', auth: app, body: '{"registrationId":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/Malformed JSON/);
  });

  it('applies courseVersion, xapiRegistrationId, initialRegistrationState and initialSettings', async () => {
    await importCourse(s.api, app, 'golf12', fixture('scorm12-golf-runtime-basic.zip'), { mayCreateNewVersion: 'true' });
    const xapi = '6f1c1a53-7d0b-4e8f-9b1e-2a8c3c1d4e5f';
    expect(
      (
        await create(
          {
            registrationId: 'reg-v1',
            courseId: 'golf12',
            learner: { id: 'learner-2' },
            xapiRegistrationId: xapi,
            initialRegistrationState: {
              registrationCompletion: 'COMPLETED',
              registrationSuccess: 'PASSED',
              score: { scaled: 0.75 },
              totalSecondsTracked: 42,
              completedDate: '2024-01-02T03:04:05.000Z',
              globalObjectives: [{ id: 'obj-1', objectiveSuccess: 'PASSED' }],
            },
            initialSettings: { settings: [{ settingId: 'PlayerLaunchType', value: 'NEW_WINDOW' }] },
          },
          '?courseVersion=1',
        )
      ).status,
    ).toBe(204);
    const p = (await reg('reg-v1')).body;
    expect(p).toMatchObject({
      xapiRegistrationId: xapi,
      course: { id: 'golf12', version: 1 },
      registrationCompletion: 'COMPLETED',
      registrationSuccess: 'PASSED',
      score: { scaled: 0.75 },
      totalSecondsTracked: 42,
      completedDate: '2024-01-02T03:04:05.000Z',
      globalObjectives: [{ id: 'obj-1', objectiveSuccess: 'PASSED' }],
      learner: { id: 'learner-2', firstName: '', lastName: '' },
    });
    const config = await reg('reg-v1', '/configuration');
    expect(config.body.settingItems.find((i: any) => i.id === 'PlayerLaunchType')).toMatchObject({ effectiveValue: 'NEW_WINDOW', effectiveValueSource: 'registration' });
    // Without courseVersion: the latest version.
    expect((await create({ registrationId: 'reg-v2', courseId: 'golf12', learner: { id: 'learner-2' } })).status).toBe(204);
    expect((await reg('reg-v2')).body.course.version).toBe(2);
    const counts = await call(`${s.api}/courses/golf12?includeRegistrationCount=true`, { auth: app });
    expect(counts.body.registrationCount).toBe(3);
    const v1 = await call(`${s.api}/courses/golf12/versions/1?includeRegistrationCount=true`, { auth: app });
    expect(v1.body.registrationCount).toBe(2);
    const v2 = await call(`${s.api}/courses/golf12/versions/2?includeRegistrationCount=true`, { auth: app });
    expect(v2.body.registrationCount).toBe(1);
  });

  it('answers HEAD with 200 or 404 and never shows another application’s registration', async () => {
    const head = await reg('reg-1', '', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect((await reg('nope', '', { method: 'HEAD' })).status).toBe(404);
    expect((await reg('theirs', '', { method: 'HEAD' })).status).toBe(404);
    const paths: Array<[string, string, unknown?]> = [
      ['GET', ''],
      ['DELETE', ''],
      ['GET', '/instances'],
      ['POST', '/instances'],
      ['GET', '/instances/0'],
      ['DELETE', '/instances/0'],
      ['GET', '/launchHistory'],
      ['GET', '/instances/0/launchHistory'],
      ['DELETE', '/progress'],
      ['DELETE', '/globalData'],
      ['GET', '/configuration'],
      ['POST', '/configuration', { settings: [] }],
      ['DELETE', '/configuration/PlayerLaunchType'],
      ['GET', '/instances/0/configuration'],
      ['GET', '/tags'],
      ['PUT', '/tags', { tags: ['x'] }],
      ['DELETE', '/tags', { tags: ['x'] }],
      ['POST', '/launchLink', { redirectOnExitUrl: 'https://example.com/' }],
    ];
    for (const [method, path, json] of paths) {
      for (const id of ['nope', 'theirs']) {
        const r = await reg(id, path, { method, json });
        expect({ method, path, id, status: r.status }).toEqual({ method, path, id, status: 404 });
        expect(r.body.message).toMatch(/not found/);
      }
    }
    expect((await reg('reg-1', '/instances/7')).status).toBe(404);
    expect((await reg('reg-1', '/instances/x')).status).toBe(400);
    expect((await call(`${s.api}/registrations/tags`, { method: 'PUT', auth: app, json: { ids: ['reg-1', 'theirs'], tags: ['x'] } })).status).toBe(404);
    // The other application still has its registration.
    expect((await call(`${s.api}/registrations/theirs`, { method: 'HEAD', auth: otherApp })).status).toBe(200);
  });

  it('shapes activityDetails by the include flags', async () => {
    expect((await create({ registrationId: 'reg-2004', courseId: 'golf2004', learner })).status).toBe(204);
    const none = (await reg('reg-2004')).body.activityDetails;
    expect(none.children).toBeUndefined();
    expect(none.objectives).toBeUndefined();
    const children = (await reg('reg-2004', '?includeChildResults=true')).body.activityDetails;
    expect(children.children.length).toBeGreaterThan(0);
    const leaf = (n: any): any => (n.children?.length ? leaf(n.children[0]) : n);
    expect(leaf(children).runtime).toBeUndefined();
    expect(leaf(children).objectives).toBeUndefined();
    const runtime = (await reg('reg-2004', '?includeChildResults=true&includeRuntime=true')).body.activityDetails;
    expect(leaf(runtime).runtime).toMatchObject({ completionStatus: 'unknown', runtimeSuccessStatus: 'UNKNOWN' });
    expect(leaf(runtime).runtime.runtimeInteractions).toBeUndefined();
    const full = (await reg('reg-2004', '?includeChildResults=true&includeRuntime=true&includeInteractionsAndObjectives=true')).body.activityDetails;
    expect(leaf(full).runtime.runtimeInteractions).toEqual([]);
    expect(leaf(full).objectives).toEqual([]);
    expect((await reg('reg-2004', '?includeRuntime=maybe')).status).toBe(400);
  });

  it('lists with filters, tags, order, include flags, total count and more (10 per page)', async () => {
    const ds = s.app.get(DataSource);
    const appId = s.firstStart.application.appId;
    const base = Date.now() - 3_600_000;
    for (let i = 0; i < 23; i++) {
      expect((await create({ registrationId: `bulk-${String(i).padStart(2, '0')}`, courseId: 'golf2004', learner: { id: i % 2 ? 'odd' : 'even', email: `l${i}@example.com` } })).status).toBe(204);
      // Distinct creation times, one minute apart, oldest first.
      await ds.query('UPDATE registration SET created_at = ?, updated_at = ? WHERE app_id = ? AND id = ?', [dbDate(ds, new Date(base + i * 60_000)), dbDate(ds, new Date(base + i * 60_000)), appId, `bulk-${String(i).padStart(2, '0')}`]);
    }
    const first = await call(`${s.api}/registrations?courseId=golf2004&filter=bulk-&includeTotalCount=true`, { auth: app });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-total-count')).toBe('23');
    expect(first.body.registrations).toHaveLength(10);
    expect(first.body.registrations[0].id).toBe('bulk-22');
    expect(first.body.more).toEqual(expect.any(String));
    const second = await call(`${s.api}/registrations?more=${encodeURIComponent(first.body.more)}`, { auth: app });
    expect(second.headers.get('x-total-count')).toBeNull();
    expect(second.body.registrations.map((r: any) => r.id)).toEqual(Array.from({ length: 10 }, (_, i) => `bulk-${String(12 - i).padStart(2, '0')}`));
    const third = await call(`${s.api}/registrations?more=${encodeURIComponent(second.body.more)}`, { auth: app });
    expect(third.body.registrations).toHaveLength(3);
    expect(third.body.more).toBeUndefined();
    expect((await call(`${s.api}/registrations?more=forged.token`, { auth: app })).status).toBe(400);
    // Another application's token is refused.
    expect((await call(`${s.api}/registrations?more=${encodeURIComponent(first.body.more)}`, { auth: otherApp })).status).toBe(400);

    const asc = await call(`${s.api}/registrations?filter=bulk-&orderBy=created_asc`, { auth: app });
    expect(asc.body.registrations[0].id).toBe('bulk-00');
    const odd = await call(`${s.api}/registrations?learnerId=odd&includeTotalCount=true`, { auth: app });
    expect(odd.headers.get('x-total-count')).toBe('11');
    expect(odd.body.registrations.every((r: any) => r.learner.id === 'odd')).toBe(true);
    const byEmail = await call(`${s.api}/registrations?filter=l7@&filterBy=learner_email`, { auth: app });
    expect(byEmail.body.registrations.map((r: any) => r.id)).toEqual(['bulk-07']);
    const byCourse = await call(`${s.api}/registrations?filter=golf12&filterBy=course_id&includeTotalCount=true`, { auth: app });
    expect(byCourse.headers.get('x-total-count')).toBe('3');
    const since = new Date(base + 20 * 60_000).toISOString();
    const recent = await call(`${s.api}/registrations?filter=bulk-&since=${since}`, { auth: app });
    expect(recent.body.registrations.map((r: any) => r.id)).toEqual(['bulk-22', 'bulk-21', 'bulk-20']);
    const until = new Date(base + 60_000).toISOString();
    const old = await call(`${s.api}/registrations?filter=bulk-&until=${until}&datetimeFilter=created`, { auth: app });
    expect(old.body.registrations.map((r: any) => r.id)).toEqual(['bulk-01', 'bulk-00']);

    await call(`${s.api}/registrations/tags`, { method: 'PUT', auth: app, json: { ids: ['bulk-03', 'bulk-04'], tags: ['batch'] } });
    const tagged = await call(`${s.api}/registrations?tags=batch,vip`, { auth: app });
    expect(tagged.body.registrations.map((r: any) => r.id).sort()).toEqual(['bulk-03', 'bulk-04', 'reg-1']);

    const withChildren = await call(`${s.api}/registrations?filter=bulk-0&includeChildResults=true`, { auth: app });
    expect(withChildren.body.registrations[0].activityDetails.children.length).toBeGreaterThan(0);
    const page2 = await call(`${s.api}/registrations?filter=bulk-&includeChildResults=true`, { auth: app });
    const page2b = await call(`${s.api}/registrations?more=${encodeURIComponent(page2.body.more)}`, { auth: app });
    expect(page2b.body.registrations[0].activityDetails.children.length).toBeGreaterThan(0);
    expect(first.body.registrations[0].activityDetails.children).toBeUndefined();

    expect((await call(`${s.api}/registrations?orderBy=title_asc`, { auth: app })).status).toBe(400);
    expect((await call(`${s.api}/registrations?filterBy=nope`, { auth: app })).status).toBe(400);
    expect((await call(`${s.api}/registrations?since=yesterday`, { auth: app })).status).toBe(400);
    const theirs = await call(`${s.api}/registrations`, { auth: otherApp });
    expect(theirs.body.registrations.map((r: any) => r.id)).toEqual(['theirs']);
  });

  it('manages tags: get, put (replace), delete, batch', async () => {
    expect((await reg('reg-1', '/tags')).body).toEqual({ tags: ['cohort-a', 'vip'] });
    expect((await reg('reg-1', '/tags', { method: 'PUT', json: { tags: ['a', 'b'] } })).status).toBe(204);
    expect((await reg('reg-1', '/tags')).body.tags).toEqual(['a', 'b']);
    expect((await reg('reg-1', '/tags', { method: 'DELETE', json: { tags: ['a', 'zz'] } })).status).toBe(204);
    expect((await reg('reg-1', '/tags')).body.tags).toEqual(['b']);
    expect((await call(`${s.api}/registrations/tags`, { method: 'PUT', auth: app, json: { ids: ['reg-1', 'reg-2004'], tags: ['c'] } })).status).toBe(204);
    expect((await reg('reg-1', '/tags')).body.tags).toEqual(['b', 'c']);
    expect((await reg('reg-2004', '/tags')).body.tags).toEqual(['c']);
    expect((await reg('reg-1', '/tags', { method: 'PUT', json: { tags: 'x' } })).status).toBe(400);
    expect((await reg('reg-1', '/tags', { method: 'PUT', json: {} })).status).toBe(400);
  });

  it('creates, reads, lists and deletes instances; the last one takes the registration along', async () => {
    expect((await create({ registrationId: 'inst', courseId: 'golf12', learner }, '?courseVersion=1')).status).toBe(204);
    expect((await reg('inst', '/instances', { method: 'POST' })).status).toBe(204);
    // The new instance runs the latest version; the first keeps its own.
    expect((await reg('inst')).body).toMatchObject({ instance: 1, course: { version: 2 } });
    expect((await reg('inst', '/instances/0')).body).toMatchObject({ instance: 0, course: { version: 1 } });
    // The list shows each registration at its latest instance, with the title of that instance's course version.
    const listed = (await call(`${s.api}/registrations?courseId=golf12&learnerId=${learner.id}`, { auth: app })).body.registrations.find((r: any) => r.id === 'inst');
    expect(listed).toMatchObject({ instance: 1, course: { id: 'golf12', version: 2, title: (await reg('inst')).body.course.title } });
    expect(listed.course.title).not.toBe('');
    for (let i = 0; i < 10; i++) expect((await reg('inst', '/instances', { method: 'POST' })).status).toBe(204);
    const page1 = await reg('inst', '/instances');
    expect(page1.body.registrations.map((r: any) => r.instance)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const page2 = await reg('inst', `/instances?more=${encodeURIComponent(page1.body.more)}`);
    expect(page2.body.registrations.map((r: any) => r.instance)).toEqual([10, 11]);
    expect(page2.body.more).toBeUndefined();
    expect((await reg('reg-1', `/instances?more=${encodeURIComponent(page1.body.more)}`)).status).toBe(400);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await reg('inst', `/instances?since=${future}`)).body.registrations).toEqual([]);

    expect((await reg('inst', '/instances/11', { method: 'DELETE' })).status).toBe(204);
    expect((await reg('inst')).body.instance).toBe(10);
    expect((await reg('inst', '/instances/11')).status).toBe(404);
    for (let i = 1; i <= 10; i++) expect((await reg('inst', `/instances/${i}`, { method: 'DELETE' })).status).toBe(204);
    expect((await reg('inst')).body.instance).toBe(0);
    expect((await reg('inst', '/instances/0', { method: 'DELETE' })).status).toBe(204);
    expect((await reg('inst', '', { method: 'HEAD' })).status).toBe(404);
  });

  it('resets progress onto the latest version, resets global data, and deletes', async () => {
    expect((await create({ registrationId: 'reset', courseId: 'golf12', learner, registrationTags: ['keep'], initialRegistrationState: { registrationCompletion: 'COMPLETED', globalObjectives: [{ id: 'g' }] } }, '?courseVersion=1')).status).toBe(204);
    expect((await reg('reset', '/configuration', { method: 'POST', json: { settings: [{ settingId: 'PlayerLaunchType', value: 'NEW_WINDOW' }] } })).status).toBe(204);
    expect((await reg('reset', '/instances', { method: 'POST' })).status).toBe(204);
    expect((await reg('reset', '/globalData', { method: 'DELETE' })).status).toBe(204);
    expect((await reg('reset', '/instances/0')).body.globalObjectives).toEqual([]);
    expect((await reg('reset', '/instances/0')).body.registrationCompletion).toBe('COMPLETED');

    const before = (await reg('reset')).body;
    expect((await reg('reset', '/progress', { method: 'DELETE' })).status).toBe(204);
    const after = (await reg('reset')).body;
    expect(after).toMatchObject({ instance: 0, registrationCompletion: 'UNKNOWN', course: { version: 2 }, tags: ['keep'], xapiRegistrationId: before.xapiRegistrationId, learner });
    expect((await reg('reset', '/instances')).body.registrations).toHaveLength(1);
    expect((await reg('reset', '/launchHistory')).body).toEqual({ launchHistory: [] });
    const config = await reg('reset', '/configuration');
    expect(config.body.settingItems.find((i: any) => i.id === 'PlayerLaunchType').effectiveValueSource).toBe('registration');

    expect((await reg('reset', '', { method: 'DELETE' })).status).toBe(204);
    expect((await reg('reset')).status).toBe(404);
    expect((await reg('reset', '', { method: 'DELETE' })).status).toBe(404);
    // Recreated under the same id: nothing of the old one.
    expect((await create({ registrationId: 'reset', courseId: 'golf12', learner })).status).toBe(204);
    expect((await reg('reset', '/tags')).body.tags).toEqual([]);
    expect((await reg('reset', '/configuration')).body.settingItems.find((i: any) => i.id === 'PlayerLaunchType').effectiveValueSource).not.toBe('registration');
  });

  it('keeps configuration per registration and per instance, falling back registration → course', async () => {
    const item = async (path: string) => (await reg('reg-2004', path)).body.settingItems.find((i: any) => i.id === 'PlayerLaunchType');
    expect((await call(`${s.api}/courses/golf2004/configuration`, { method: 'POST', auth: app, json: { settings: [{ settingId: 'PlayerLaunchType', value: 'FRAMESET' }] } })).status).toBe(204);
    expect(await item('/configuration')).toMatchObject({ effectiveValue: 'FRAMESET', effectiveValueSource: 'course' });
    expect((await item('/configuration')).explicitValue).toBeUndefined();
    expect((await reg('reg-2004', '/configuration', { method: 'POST', json: { settings: [{ settingId: 'PlayerLaunchType', value: 'NEW_WINDOW' }] } })).status).toBe(204);
    expect(await item('/configuration')).toMatchObject({ effectiveValue: 'NEW_WINDOW', effectiveValueSource: 'registration', explicitValue: 'NEW_WINDOW' });
    expect(await item('/instances/0/configuration')).toMatchObject({ effectiveValue: 'NEW_WINDOW', effectiveValueSource: 'registration' });
    expect((await reg('reg-2004', '/instances/0/configuration', { method: 'POST', json: { settings: [{ settingId: 'PlayerLaunchType', value: 'FRAMESET' }] } })).status).toBe(204);
    expect(await item('/instances/0/configuration')).toMatchObject({ effectiveValue: 'FRAMESET', explicitValue: 'FRAMESET' });
    expect((await reg('reg-2004', '/instances/0/configuration/PlayerLaunchType', { method: 'DELETE' })).status).toBe(204);
    expect(await item('/instances/0/configuration')).toMatchObject({ effectiveValue: 'NEW_WINDOW' });
    expect((await reg('reg-2004', '/configuration/PlayerLaunchType', { method: 'DELETE' })).status).toBe(204);
    expect(await item('/configuration')).toMatchObject({ effectiveValue: 'FRAMESET', effectiveValueSource: 'course' });
    const withMeta = await reg('reg-2004', '/configuration?includeMetadata=true');
    expect(withMeta.body.settingItems[0].metadata).toEqual(expect.objectContaining({ dataType: expect.any(String) }));
    const bad = await reg('reg-2004', '/configuration', { method: 'POST', json: { settings: [{ settingId: 'NoSuchSetting', value: '1' }] } });
    expect(bad.status).toBe(400);
    expect((await reg('reg-2004', '/configuration/NoSuchSetting', { method: 'DELETE' })).status).toBe(400);
    expect((await reg('reg-2004', '/instances/5/configuration')).status).toBe(404);
  });

  it('reads launch history (empty before the player)', async () => {
    expect((await reg('reg-1', '/launchHistory')).body).toEqual({ launchHistory: [] });
    expect((await reg('reg-1', '/instances/0/launchHistory?includeHistoryLog=true')).body).toEqual({ launchHistory: [] });
    const ds = s.app.get(DataSource);
    const at = dbDate(ds, new Date('2024-05-01T10:00:00Z'));
    await ds.query(
      'INSERT INTO launch_history (app_id, id, registration_id, instance, launch_time, exit_time, last_runtime_update, completion, success, score_scaled, total_seconds, history_log) VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?)',
      [s.firstStart.application.appId, '11111111-2222-4333-8444-555555555555', 'reg-1', at, at, at, 'COMPLETED', 'PASSED', 0.5, 30, '<log/>'],
    );
    const plain = (await reg('reg-1', '/launchHistory')).body.launchHistory;
    expect(plain).toEqual([
      {
        id: '11111111-2222-4333-8444-555555555555',
        launchHistoryId: '11111111-2222-4333-8444-555555555555',
        instance: 0,
        score: { scaled: 0.5 },
        completionStatus: 'COMPLETED',
        successStatus: 'PASSED',
        totalSecondsTracked: 30,
        launchTime: '2024-05-01T10:00:00.000Z',
        exitTime: '2024-05-01T10:00:00.000Z',
        lastRuntimeUpdate: '2024-05-01T10:00:00.000Z',
      },
    ]);
    expect((await reg('reg-1', '/instances/0/launchHistory?includeHistoryLog=true')).body.launchHistory[0].historyLog).toBe('<log/>');
  });

  it('validates launch link requests and answers a player link', async () => {
    const link = (json: unknown, id = 'reg-1') => reg(id, '/launchLink', { method: 'POST', json });
    const ok = await link({ redirectOnExitUrl: 'https://lms.example.com/done' });
    expect(ok.status).toBe(200);
    expect(ok.body.launchLink).toMatch(new RegExp(`^${s.baseUrl}/player/launch/[\\w-]+\\.[\\w-]+$`));
    for (const keyword of ['closer', 'blank', 'message', '']) expect((await link({ redirectOnExitUrl: keyword })).status).toBe(200);
    expect((await link({ redirectOnExitUrl: 'https://x.example.com/', expiry: 300, tracking: false, culture: 'fr-FR', additionalvalues: [{ item: 'a', value: 'b' }], launchAuth: { type: 'vault', options: { ipAddress: true, expiry: 10 } } })).status).toBe(200);
    const refused: Array<[unknown, RegExp]> = [
      [{}, /redirectOnExitUrl/],
      [{ redirectOnExitUrl: 'not a url' }, /redirectOnExitUrl/],
      [{ redirectOnExitUrl: 'javascript:alert(1)' }, /redirectOnExitUrl/],
      [{ redirectOnExitUrl: 'https://x.example.com/', expiry: 9 }, /expiry/],
      [{ redirectOnExitUrl: 'https://x.example.com/', expiry: 301 }, /expiry/],
      [{ redirectOnExitUrl: 'https://x.example.com/', expiry: 'soon' }, /expiry/],
      [{ redirectOnExitUrl: 'https://x.example.com/', tracking: 'yes' }, /tracking/],
      [{ redirectOnExitUrl: 'https://x.example.com/', cssUrl: 'nope' }, /cssUrl/],
      [{ redirectOnExitUrl: 'https://x.example.com/', startSco: 'no-such-sco' }, /startSco/],
      [{ redirectOnExitUrl: 'https://x.example.com/', launchAuth: { type: 'password' } }, /launchAuth\.type/],
      [{ redirectOnExitUrl: 'https://x.example.com/', additionalvalues: 'x' }, /additionalvalues/],
      [{ redirectOnExitUrl: 'https://x.example.com/', surprise: true }, /surprise/],
    ];
    for (const [json, pattern] of refused) {
      const r = await link(json);
      expect({ json, status: r.status }).toEqual({ json, status: 400 });
      expect(r.body.message).toMatch(pattern);
    }
    expect((await link({ redirectOnExitUrl: 'https://x.example.com/', expiry: 1 }, 'nope')).status).toBe(404);
  });

  it('sends test postbacks (FORM and HTTPBASIC) to a real receiver; a failing receiver is a 400', async () => {
    received.length = 0;
    const form = await call(`${s.api}/registrations/postBackTest`, { method: 'POST', auth: app, json: { url: receiverUrl, authType: 'FORM', userName: 'alice', password: 's3cret', resultsFormat: 'ACTIVITY' } });
    expect(form.status).toBe(204);
    expect(received).toHaveLength(1);
    expect(received[0].method).toBe('POST');
    expect(received[0].headers['content-type']).toMatch(/application\/x-www-form-urlencoded/);
    const fields = new URLSearchParams(received[0].body);
    expect(fields.get('username')).toBe('alice');
    expect(fields.get('password')).toBe('s3cret');
    const data = JSON.parse(fields.get('data')!);
    expect(data).toMatchObject({ id: expect.any(String), registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', learner: { id: expect.any(String) } });
    expect(data.activityDetails.children.length).toBeGreaterThan(0);
    expect(data.activityDetails.children[0].runtime).toBeUndefined();

    const httpBasic = await call(`${s.api}/registrations/postBackTest`, { method: 'POST', auth: app, json: { url: receiverUrl, authType: 'HTTPBASIC', userName: 'bob', password: 'pw', resultsFormat: 'COURSE' } });
    expect(httpBasic.status).toBe(204);
    expect(received[1].headers.authorization).toBe(`Basic ${Buffer.from('bob:pw').toString('base64')}`);
    expect(received[1].headers['content-type']).toMatch(/application\/json/);
    const json = JSON.parse(received[1].body);
    expect(json).toMatchObject({ registrationCompletion: 'COMPLETED', course: { id: expect.any(String) } });
    expect(json.activityDetails).toBeUndefined();

    receiverStatus = 500;
    const failing = await call(`${s.api}/registrations/postBackTest`, { method: 'POST', auth: app, json: { url: receiverUrl, authType: 'FORM' } });
    receiverStatus = 200;
    expect(failing.status).toBe(400);
    expect(failing.body.message).toMatch(/500/);
    const closed = await call(`${s.api}/registrations/postBackTest`, { method: 'POST', auth: app, json: { url: 'http://127.0.0.1:1/hook' } });
    expect(closed.status).toBe(400);
    expect((await call(`${s.api}/registrations/postBackTest`, { method: 'POST', auth: app, json: {} })).status).toBe(400);
    expect((await call(`${s.api}/registrations/postBackTest`, { method: 'POST', auth: app, json: { url: 'ftp://x/' } })).status).toBe(400);
    expect((await call(`${s.api}/registrations/postBackTest`, { method: 'POST', auth: app, json: { url: receiverUrl, authType: 'OAUTH' } })).status).toBe(400);
  });

  it('checks bearer scopes per the contract (R/W/D)', async () => {
    const token = async (scope: string) =>
      (await call(`${s.api}/oauth/authenticate/application/token`, { method: 'POST', auth: app, body: new URLSearchParams({ scope }), headers: { 'content-type': 'application/x-www-form-urlencoded' } })).body.access_token;
    const reader = `Bearer ${await token('read:registration')}`;
    const writer = `Bearer ${await token('write:registration')}`;
    expect((await call(`${s.api}/registrations/reg-1`, { auth: reader })).status).toBe(200);
    expect((await call(`${s.api}/registrations/reg-1`, { method: 'HEAD', auth: reader })).status).toBe(200);
    expect((await call(`${s.api}/registrations/reg-1/tags`, { method: 'PUT', auth: reader, json: { tags: [] } })).status).toBe(403);
    expect((await call(`${s.api}/registrations/reg-1/tags`, { method: 'PUT', auth: writer, json: { tags: ['b'] } })).status).toBe(204);
    expect((await call(`${s.api}/registrations/reg-1`, { method: 'DELETE', auth: writer })).status).toBe(403);
  });

  it('goes with its course version, its course and its application', async () => {
    const appId = s.firstStart.application.appId;
    const info = async () => (await call(`${s.api}/appManagement/applications/${appId}?includeRegistrationCount=true`, { auth: mgmt })).body.registrationCount;
    // golf12: reg-1 (v1), reg-v1 (v1), reg-v2 (v2), reset (v2); a registration with instances on both versions.
    expect((await create({ registrationId: 'both', courseId: 'golf12', learner }, '?courseVersion=1')).status).toBe(204);
    expect((await reg('both', '/instances', { method: 'POST' })).status).toBe(204);
    const before = await info();
    expect(before).toBeGreaterThan(20);
    expect((await call(`${s.api}/courses/golf12/versions/1`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect((await reg('reg-1')).status).toBe(404);
    expect((await reg('reg-v1')).status).toBe(404);
    expect((await reg('reg-v2')).status).toBe(200);
    const both = await reg('both', '/instances');
    expect(both.body.registrations.map((r: any) => [r.instance, r.course.version])).toEqual([[1, 2]]);
    expect(await info()).toBe(before - 2);

    expect((await call(`${s.api}/courses/golf12`, { method: 'DELETE', auth: app })).status).toBe(204);
    for (const id of ['reg-v2', 'reset', 'both']) expect((await reg(id)).status).toBe(404);
    expect(await info()).toBe(before - 5);
    const ds = s.app.get(DataSource);
    const leftovers = await ds.query("SELECT COUNT(*) AS n FROM tag WHERE app_id = ? AND resource_type = 'registration' AND resource_id IN ('reg-1', 'both')", [appId]);
    expect(Number(leftovers[0].n)).toBe(0);

    // Deleting the other application removes its registrations.
    const otherId = Buffer.from(otherApp.slice(6), 'base64').toString().split(':')[0];
    await call(`${s.api}/appManagement/applications/${otherId}`, { method: 'PUT', auth: mgmt, json: { allowDelete: true } });
    expect((await call(`${s.api}/appManagement/applications/${otherId}`, { method: 'DELETE', auth: mgmt })).status).toBe(204);
    const rows = await ds.query('SELECT COUNT(*) AS n FROM registration WHERE app_id = ?', [otherId]);
    expect(Number(rows[0].n)).toBe(0);
  });
});
