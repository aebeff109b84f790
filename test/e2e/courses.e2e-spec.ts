import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { fixture, importCourse } from '../support/courses';
import { dbDate } from '../support/db';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

describe('courses: list, versions, title, tags, configuration, assets, zip, delete', () => {
  let s: TestServer;
  let app: string;

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'golf-a', fixture('scorm12-golf-runtime-basic.zip'));
    await importCourse(s.api, app, 'golf-b', fixture('scorm2004-3rd-golf-runtime-basic.zip'));
  });
  afterAll(async () => s?.close());

  it('gets a course with the real schema, with and without metadata and registration count', async () => {
    const plain = await call(`${s.api}/courses/golf-a`, { auth: app });
    expect(plain.body).toMatchObject({ id: 'golf-a', version: 1, courseLearningStandard: 'SCORM12', tags: [], dispatched: false });
    expect(plain.body.metadata).toBeUndefined();
    expect(plain.body.registrationCount).toBeUndefined();
    expect(plain.body.rootActivity.children.length).toBeGreaterThan(0);
    const full = await call(`${s.api}/courses/golf-a?includeCourseMetadata=true&includeRegistrationCount=true`, { auth: app });
    expect(full.body.metadata).toEqual(expect.any(Object));
    expect(full.body.registrationCount).toBe(0);
    expect((await call(`${s.api}/courses/nope`, { auth: app })).status).toBe(404);
  });

  it('sets the title and tags, filters the list by tags (any of) and text, and pages with more', async () => {
    expect((await call(`${s.api}/courses/golf-a/title`, { method: 'PUT', auth: app, json: { title: 'Golf for beginners' } })).status).toBe(204);
    expect((await call(`${s.api}/courses/golf-a/tags`, { method: 'PUT', auth: app, json: { tags: ['sport', 'intro'] } })).status).toBe(204);
    expect((await call(`${s.api}/courses/tags`, { method: 'PUT', auth: app, json: { ids: ['golf-b'], tags: ['advanced'] } })).status).toBe(204);
    expect((await call(`${s.api}/courses/golf-a/tags`, { auth: app })).body.tags.sort()).toEqual(['intro', 'sport']);
    await call(`${s.api}/courses/golf-a/tags`, { method: 'DELETE', auth: app, json: { tags: ['intro'] } });
    expect((await call(`${s.api}/courses/golf-a/tags`, { auth: app })).body.tags).toEqual(['sport']);

    const bySport = await call(`${s.api}/courses?tags=sport,advanced`, { auth: app });
    expect(bySport.body.courses.map((c: any) => c.id).sort()).toEqual(['golf-a', 'golf-b']);
    const byAdvanced = await call(`${s.api}/courses?tags=advanced`, { auth: app });
    expect(byAdvanced.body.courses.map((c: any) => c.id)).toEqual(['golf-b']);
    const byTitle = await call(`${s.api}/courses?filter=beginners&filterBy=course_title`, { auth: app });
    expect(byTitle.body.courses.map((c: any) => c.title)).toEqual(['Golf for beginners']);
    // A case-insensitive substring, on titles and on ids (which compare byte for byte everywhere else).
    const byTitleUpper = await call(`${s.api}/courses?filter=FOR%20BEGIN&filterBy=course_title`, { auth: app });
    expect(byTitleUpper.body.courses.map((c: any) => c.title)).toEqual(['Golf for beginners']);
    const byIdUpper = await call(`${s.api}/courses?filter=GOLF-&filterBy=course_id`, { auth: app });
    expect(byIdUpper.body.courses.map((c: any) => c.id).sort()).toEqual(['golf-a', 'golf-b']);
    expect((await call(`${s.api}/courses?filter=100%25_off&filterBy=course_title`, { auth: app })).body.courses).toEqual([]);
    expect((await call(`${s.api}/courses/tags`, { method: 'PUT', auth: app, json: { ids: ['nope'], tags: ['x'] } })).status).toBe(404);

    // 150 more courses straight into the tables, to page through them.
    const ds = s.app.get(DataSource);
    const now = Date.now();
    for (let i = 0; i < 150; i++) {
      const at = dbDate(ds, new Date(now - 1000 * (i + 10)));
      await ds.query('INSERT INTO course (app_id, id, title, title_key, latest_version, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)', [s.firstStart.application.appId, `bulk-${i}`, `Bulk ${i}`, `Bulk ${i}`, at, at]);
      await ds.query(
        'INSERT INTO course_version (app_id, course_id, version, title, learning_standard, metadata, root_activity, package, content_prefix, size_bytes, created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, 0, ?, ?)',
        [s.firstStart.application.appId, `bulk-${i}`, `Bulk ${i}`, 'SCORM12', '{}', '{"externalIdentifier":"x","itemIdentifier":"x","activityType":"SCO","title":"x","children":[]}', '{"launchables":[]}', `apps/x/bulk-${i}/`, at, at],
      );
    }
    const first = await call(`${s.api}/courses?includeTotalCount=true&filter=bulk-&orderBy=created_desc`, { auth: app });
    expect(first.headers.get('x-total-count')).toBe('150');
    expect(first.body.courses).toHaveLength(100);
    expect(first.body.courses[0].id).toBe('bulk-0');
    const second = await call(`${s.api}/courses?more=${encodeURIComponent(first.body.more)}`, { auth: app });
    expect(second.body.courses).toHaveLength(50);
    expect(second.body.courses[49].id).toBe('bulk-149');
    expect(second.body.more).toBeUndefined();
    const until = new Date(now - 1000 * 100).toISOString();
    const old = await call(`${s.api}/courses?filter=bulk-&until=${until}&datetimeFilter=created`, { auth: app });
    expect(old.body.courses).toHaveLength(60);
  });

  it('keeps configuration per course and per version, falling back', async () => {
    const set = await call(`${s.api}/courses/golf-a/configuration`, { method: 'POST', auth: app, json: { settings: [{ settingId: 'PlayerLaunchType', value: 'NEW_WINDOW' }] } });
    expect(set.status).toBe(204);
    const list = await call(`${s.api}/courses/golf-a/configuration?includeMetadata=true`, { auth: app });
    const item = list.body.settingItems.find((i: any) => i.id === 'PlayerLaunchType');
    expect(item).toMatchObject({ effectiveValue: 'NEW_WINDOW', effectiveValueSource: 'course', explicitValue: 'NEW_WINDOW' });
    expect(item.metadata).toEqual(expect.objectContaining({ dataType: expect.any(String) }));
    const version = await call(`${s.api}/courses/golf-a/versions/1/configuration`, { auth: app });
    expect(version.body.settingItems.find((i: any) => i.id === 'PlayerLaunchType').effectiveValue).toBe('NEW_WINDOW');
    const bad = await call(`${s.api}/courses/golf-a/configuration`, { method: 'POST', auth: app, json: { settings: [{ settingId: 'NoSuchSetting', value: '1' }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/NoSuchSetting/);
    expect((await call(`${s.api}/courses/golf-a/configuration/PlayerLaunchType`, { method: 'DELETE', auth: app })).status).toBe(204);
    const after = await call(`${s.api}/courses/golf-a/configuration`, { auth: app });
    expect(after.body.settingItems.find((i: any) => i.id === 'PlayerLaunchType').effectiveValueSource).not.toBe('course');
  });

  it('uploads, lists, reads and deletes assets under the update policies, and downloads the zip', async () => {
    const upload = async (destination: string, content: string, policy?: string) => {
      const form = new FormData();
      form.append('destination', destination);
      form.append('file', new Blob([content]), 'x.txt');
      const res = await fetch(`${s.api}/courses/golf-a/asset/upload${policy ? `?updateAssetPolicy=${policy}` : ''}`, { method: 'POST', headers: { authorization: app }, body: form });
      return { status: res.status, body: await res.json() };
    };
    expect(await upload('extra/notes.txt', 'first')).toEqual({ status: 200, body: { filename: 'notes.txt', destination: 'extra/notes.txt' } });
    expect((await upload('extra/notes.txt', 'again', 'reject')).status).toBe(400);
    expect((await upload('extra/new.txt', 'x', 'strict')).status).toBe(400);
    expect((await upload('extra/notes.txt', 'second', 'strict')).status).toBe(200);
    expect((await upload('../escape.txt', 'x')).status).toBe(400);
    const got = await call(`${s.api}/courses/golf-a/asset?relativePath=extra/notes.txt`, { auth: app });
    expect(got.body).toBe('second');
    const list = await call(`${s.api}/courses/golf-a/asset/list`, { auth: app });
    expect(list.body.files).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'extra/notes.txt', size: 6 }), expect.objectContaining({ path: 'imsmanifest.xml' })]));

    const zip = await fetch(`${s.api}/courses/golf-a/zip`, { headers: { authorization: app } });
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const dir = mkdtempSync(join(tmpdir(), 'lcds-zip-'));
    writeFileSync(join(dir, 'c.zip'), Buffer.from(await zip.arrayBuffer()));
    execFileSync('unzip', ['-q', join(dir, 'c.zip'), '-d', join(dir, 'out')]);
    expect(readdirSync(join(dir, 'out'))).toEqual(expect.arrayContaining(['imsmanifest.xml', 'extra']));

    expect((await call(`${s.api}/courses/golf-a/asset?relativePath=extra/notes.txt`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect((await call(`${s.api}/courses/golf-a/asset?relativePath=extra/notes.txt`, { auth: app })).status).toBe(404);

    const token = await call(`${s.api}/oauth/authenticate/application/token`, { method: 'POST', auth: app, body: new URLSearchParams({ scope: 'write:course' }), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const viaBearer = await fetch(`${s.api}/courses/golf-a/asset/upload`, { method: 'POST', headers: { authorization: `Bearer ${token.body.access_token}` }, body: new FormData() });
    expect(viaBearer.status).toBe(403);
  });

  it('builds preview launch links; statements come from the LRS', async () => {
    const preview = await call(`${s.api}/courses/golf-b/preview`, { method: 'POST', auth: app, json: {} });
    expect(preview.status).toBe(200);
    expect(preview.body.launchLink).toMatch(new RegExp(`^${s.config.publicUrl}/player/launch/`));
    // No registrations, no statements; course-statements.e2e-spec.ts covers them.
    expect((await call(`${s.api}/courses/golf-b/xAPIStatements`, { auth: app })).body).toEqual({ statements: [] });
  });

  it('deletes versions (the last one deletes the course) and whole courses with their files', async () => {
    await importCourse(s.api, app, 'golf-b', fixture('scorm12-golf-runtime-basic.zip'), { mayCreateNewVersion: 'true' });
    expect((await call(`${s.api}/courses/golf-b`, { auth: app })).body.version).toBe(2);
    expect((await call(`${s.api}/courses/golf-b/versions/2`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect((await call(`${s.api}/courses/golf-b`, { auth: app })).body).toMatchObject({ version: 1, courseLearningStandard: 'SCORM20043RDEDITION' });
    expect((await call(`${s.api}/courses/golf-b/versions/7`, { auth: app })).status).toBe(404);
    expect((await call(`${s.api}/courses/golf-b/versions/x`, { auth: app })).status).toBe(400);
    expect((await call(`${s.api}/courses/golf-b/versions/1`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect((await call(`${s.api}/courses/golf-b`, { auth: app })).status).toBe(404);

    const files = await call(`${s.api}/courses/golf-a/asset/list`, { auth: app });
    expect(files.body.files.length).toBeGreaterThan(0);
    await call(`${s.api}/courses/golf-a/configuration`, { method: 'POST', auth: app, json: { settings: [{ settingId: 'PlayerLaunchType', value: 'NEW_WINDOW' }] } });
    expect((await call(`${s.api}/courses/golf-a`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect((await call(`${s.api}/courses/golf-a`, { auth: app })).status).toBe(404);
    expect((await call(`${s.api}/courses/golf-a`, { method: 'DELETE', auth: app })).status).toBe(404);

    // A new course under the same id starts clean: no tags, no configuration of the old one.
    await importCourse(s.api, app, 'golf-a', fixture('scorm12-golf-runtime-basic.zip'));
    expect((await call(`${s.api}/courses/golf-a/tags`, { auth: app })).body.tags).toEqual([]);
    const config = await call(`${s.api}/courses/golf-a/configuration`, { auth: app });
    expect(config.body.settingItems.find((i: any) => i.id === 'PlayerLaunchType').effectiveValueSource).toBe('default');
  });
});
