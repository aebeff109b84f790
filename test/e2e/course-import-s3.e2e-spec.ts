import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fixture, importCourse } from '../support/courses';
import { startS3Server } from '../support/s3-server';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/** The whole course life on the S3 content store, against a real S3-compatible server. */
describe('courses on S3-compatible storage', () => {
  let s3: Awaited<ReturnType<typeof startS3Server>>;
  let s: TestServer;
  let app: string;

  beforeAll(async () => {
    s3 = await startS3Server();
    s = await startTestServer(s3.env);
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
  });
  afterAll(async () => {
    await s?.close();
    await s3?.close();
  });

  const objectsInBucket = () => {
    const root = join(s3.dir, 'data', s3.bucket);
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
    // s3rver keeps each object as <key>._S3rver_object beside its metadata.
    return walk(root).filter((f) => f.endsWith('._S3rver_object'));
  };

  it('imports into the bucket, serves assets and the zip from it, and deletes everything with the course', async () => {
    const status = await importCourse(s.api, app, 's3-golf', fixture('scorm2004-3rd-golf-runtime-basic.zip'));
    expect(status.status).toBe('COMPLETE');
    expect(objectsInBucket().length).toBeGreaterThan(10);
    const manifest = await call(`${s.api}/courses/s3-golf/asset?relativePath=imsmanifest.xml`, { auth: app });
    expect(manifest.status).toBe(200);
    expect(String(manifest.body)).toContain('<manifest');
    const list = await call(`${s.api}/courses/s3-golf/asset/list`, { auth: app });
    expect(list.body.files.map((f: { path: string }) => f.path)).toContain('imsmanifest.xml');
    const zip = await fetch(`${s.api}/courses/s3-golf/zip`, { headers: { authorization: app } });
    expect(Buffer.from(await zip.arrayBuffer()).subarray(0, 4).toString('hex')).toBe('504b0304');
    expect((await call(`${s.api}/courses/s3-golf`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect(objectsInBucket()).toEqual([]);
  });

  it('leaves nothing in the bucket when a package is refused', async () => {
    const status = await importCourse(s.api, app, 's3-broken', fixture('invalid-scorm12-item-bad-resource-ref.zip'));
    expect(status.status).toBe('ERROR');
    expect(objectsInBucket()).toEqual([]);
  });
});
