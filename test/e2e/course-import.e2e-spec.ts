import { createServer, Server } from 'node:http';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { countActivities, fixture, FIXTURES, importCourse, startUpload, waitForImport } from '../support/courses';
import { basic, call, startTestServer, TestServer } from '../support/test-server';
import { join } from 'node:path';

/** Real packages from ../shared/fixtures, imported through the API and read back. */
describe('course import', () => {
  let s: TestServer;
  let app: string;
  let files: Server;
  let filesUrl: string;
  const postbacks: Array<{ body: any }> = [];
  let postbackFailuresLeft = 2;

  beforeAll(async () => {
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true' });
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    // A real HTTP peer: serves fixture packages for fetch imports and receives postbacks (failing at first).
    files = createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/postback') {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          if (postbackFailuresLeft-- > 0) {
            res.writeHead(503).end();
            return;
          }
          postbacks.push({ body: JSON.parse(body) });
          res.writeHead(200).end();
        });
        return;
      }
      const name = decodeURIComponent((req.url ?? '').replace(/^\/files\//, ''));
      try {
        const data = readFileSync(join(FIXTURES, 'packages', name));
        res.writeHead(200, { 'content-type': name.endsWith('.zip') ? 'application/zip' : 'application/octet-stream', 'content-length': data.length });
        res.end(data);
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', () => r()));
    filesUrl = `http://127.0.0.1:${(files.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    files?.close();
    await s?.close();
  });

  const cases: Array<[string, string, (root: any) => void]> = [
    ['scorm12-golf-runtime-basic.zip', 'SCORM12', (r) => expect(countActivities(r, 'SCO')).toBe(1)],
    ['scorm12-golf-runtime-minimum.zip', 'SCORM12', (r) => expect(countActivities(r, 'SCO')).toBe(18)],
    ['scorm12-golf-cp-metadata.zip', 'SCORM12', (r) => expect(countActivities(r, 'SCO')).toBe(1)],
    ['scorm2004-2nd-golf-cp-single-sco.zip', 'SCORM20042NDEDITION', (r) => expect(countActivities(r, 'SCO')).toBe(1)],
    ['scorm2004-3rd-golf-runtime-basic.zip', 'SCORM20043RDEDITION', (r) => expect(countActivities(r, 'SCO')).toBe(1)],
    ['scorm2004-3rd-golf-seq-forced-sequential.zip', 'SCORM20043RDEDITION', (r) => expect(countActivities(r, 'SCO')).toBe(5)],
    ['scorm2004-4th-golf-seq-posttest-rollup.zip', 'SCORM20044THEDITION', (r) => expect(countActivities(r, 'SCO')).toBe(5)],
    ['aicc-complex-pre-ort.zip', 'AICC', (r) => expect(countActivities(r, 'SCO')).toBe(3)],
    ['xapi-tincan-golfexample.zip', 'XAPI', (r) => expect(r.title).toBeTruthy()],
    ['cmi5-catapult-multi-au-framed.zip', 'CMI5', (r) => expect(countActivities(r, 'SCO')).toBe(8)],
  ];

  it.each(cases)('imports %s as %s with its activity tree', async (name, standard, checkTree) => {
    const courseId = name.replace(/\.zip$/, '');
    const status = await importCourse(s.api, app, courseId, fixture(name));
    expect(status).toMatchObject({ status: 'COMPLETE', importResult: { course: { id: courseId, version: 1, courseLearningStandard: standard } } });
    expect(status.importResult.parserWarnings).toEqual(expect.any(Array));
    checkTree(status.importResult.course.rootActivity);
    const course = await call(`${s.api}/courses/${encodeURIComponent(courseId)}`, { auth: app });
    expect(course.status).toBe(200);
    expect(course.body.courseLearningStandard).toBe(standard);
  });

  it.each([
    ['invalid-scorm12-malformed-xml.zip', /imsmanifest\.xml/i],
    ['invalid-scorm12-missing-launch-url.zip', /href/i],
    ['invalid-scorm12-item-bad-resource-ref.zip', /identifierref|resource/i],
    ['invalid-scorm2004-missing-org-id.zip', /organization/i],
  ])('refuses %s with a message and leaves no course', async (name, message) => {
    const courseId = `broken-${name}`;
    const status = await importCourse(s.api, app, courseId, fixture(name));
    expect(status.status).toBe('ERROR');
    expect(status.message).toMatch(message);
    expect((await call(`${s.api}/courses/${encodeURIComponent(courseId)}`, { auth: app })).status).toBe(404);
  });

  it('refuses a file that is no course, a hostile zip, and an upload without a file', async () => {
    const text = await importCourse(s.api, app, 'not-a-course', { name: 'notes.txt', data: Buffer.from('hello'), type: 'text/plain' });
    expect(text.status).toBe('ERROR');
    expect(text.message).toMatch(/zip|media/i);

    // A zip whose entry escapes the package with ../ (built by hand: local header + central directory).
    const evil = zipWith('../evil.txt', Buffer.from('pwned'));
    const hostile = await importCourse(s.api, app, 'hostile', { name: 'evil.zip', data: evil, type: 'application/zip' });
    expect(hostile.status).toBe('ERROR');
    expect(hostile.message).toMatch(/evil\.txt/);

    const res = await fetch(`${s.api}/courses/importJobs/upload?courseId=nofile`, { method: 'POST', headers: { authorization: app }, body: new FormData() });
    expect(res.status).toBe(400);
  });

  it('answers 409 for an existing course unless mayCreateNewVersion, which makes version 2', async () => {
    await importCourse(s.api, app, 'versioned', fixture('scorm12-golf-runtime-basic.zip'));
    const again = await startUpload(s.api, app, 'versioned', fixture('scorm12-golf-runtime-basic.zip'));
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/mayCreateNewVersion/);
    const v2 = await importCourse(s.api, app, 'versioned', fixture('scorm2004-3rd-golf-runtime-basic.zip'), { mayCreateNewVersion: 'true' });
    expect(v2.importResult.course).toMatchObject({ version: 2, courseLearningStandard: 'SCORM20043RDEDITION' });
    const versions = await call(`${s.api}/courses/versioned/versions`, { auth: app });
    expect(versions.body.courses.map((c: any) => c.version)).toEqual([1, 2]);
  });

  it('imports by fetch and by noUpload, including a referenced media file, and posts the result back', async () => {
    const fetched = await call(`${s.api}/courses/importJobs?courseId=fetched&postbackUrl=${encodeURIComponent(filesUrl + '/postback')}`, {
      method: 'POST',
      auth: app,
      json: { url: `${filesUrl}/files/scorm12-golf-runtime-basic.zip` },
    });
    expect(fetched.status).toBe(200);
    expect((await waitForImport(s.api, app, fetched.body.result)).status).toBe('COMPLETE');

    const noUpload = await call(`${s.api}/courses/importJobs/noUpload?courseId=nu`, {
      method: 'POST',
      auth: app,
      json: { fetchRequest: { url: `${filesUrl}/files/xapi-tincan-locator.zip` } },
    });
    expect((await waitForImport(s.api, app, noUpload.body.result)).importResult.course.courseLearningStandard).toBe('XAPI');

    const media = await call(`${s.api}/courses/importJobs/noUpload?courseId=video`, {
      method: 'POST',
      auth: app,
      json: { mediaFileReferenceRequest: { url: 'https://media.example.com/intro.mp4', contentType: 'video/mp4', mediaFileMetadata: { title: 'Intro video' } } },
    });
    const done = await waitForImport(s.api, app, media.body.result);
    expect(done.importResult.course.title).toBe('Intro video');

    const missing = await call(`${s.api}/courses/importJobs?courseId=gone`, { method: 'POST', auth: app, json: { url: `${filesUrl}/files/nothing.zip` } });
    expect((await waitForImport(s.api, app, missing.body.result)).message).toMatch(/404/);

    // The receiver failed twice; the postback was retried until it got through.
    const deadline = Date.now() + 60_000;
    while (postbacks.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(postbacks[0].body).toMatchObject({ jobId: fetched.body.result, status: 'COMPLETE', importResult: { course: { id: 'fetched' } } });
  }, 90_000);

  it('refuses URLs the outbound policy forbids, and bad query values', async () => {
    const bad = await call(`${s.api}/courses/importJobs?courseId=x`, { method: 'POST', auth: app, json: { url: 'file:///etc/passwd' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/http/);
    const badId = await call(`${s.api}/courses/importJobs?courseId=a/b`, { method: 'POST', auth: app, json: { url: 'https://example.com/a.zip' } });
    expect(badId.status).toBe(400);
    expect(badId.body.message).toMatch(/courseId/);
    // An explicit null is not a request (it was a 500).
    for (const field of ['fetchRequest', 'mediaFileReferenceRequest', 'connectorReferenceRequest']) {
      const nul = await call(`${s.api}/courses/importJobs/noUpload?courseId=n1`, { method: 'POST', auth: app, json: { [field]: null } });
      expect({ field, status: nul.status, message: nul.body.message }).toEqual({ field, status: 400, message: expect.stringMatching(/exactly one of/) });
    }
  });

  it('keeps nothing of a refused upload: no temporary file, no stored package', async () => {
    const uploads = join(s.config.dataDir, 'tmp', 'uploads');
    // The test server's store is local (no S3 settings here).
    const stored = s.config.storage.kind === 'local' ? join(s.config.storage.dir, 'uploads') : '';
    const count = (dir: string): number => (existsSync(dir) ? readdirSync(dir, { recursive: true }).length : 0);
    const before = { tmp: count(uploads), stored: count(stored) };
    const refused = async (query: string, extra: Record<string, string> = {}) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(extra)) form.append(k, v);
      form.append('file', new Blob([new Uint8Array(readFileSync(fixture('scorm12-golf-runtime-basic.zip')))]), 'golf.zip');
      const res = await fetch(`${s.api}/courses/importJobs/upload?${query}`, { method: 'POST', headers: { authorization: app }, body: form });
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
    };
    await refused('courseId=a/b'); // the query's pipe refuses it before the handler runs
    await refused('courseId=ok&mayCreateNewVersion=maybe');
    await refused('courseId=ok&postbackUrl=ftp://example.com/');
    await refused('courseId=ok', { contentMetadata: '{not json' });
    expect({ tmp: count(uploads), stored: count(stored) }).toEqual(before);
  });

  it('keeps import jobs and courses to their application', async () => {
    const other = await call(`${s.api}/appManagement/applications`, {
      method: 'POST',
      auth: basic(s.firstStart.management.appId, s.firstStart.management.secretKey),
      json: { name: 'other' },
    });
    const creds = await call(`${s.api}/appManagement/${other.body.id}/credentials`, { auth: basic(s.firstStart.management.appId, s.firstStart.management.secretKey) });
    const otherAuth = basic(other.body.id, creds.body.credentials[0].credential);
    const started = await startUpload(s.api, app, 'mine', fixture('scorm12-golf-runtime-basic.zip'));
    await waitForImport(s.api, app, started.body.result);
    expect((await call(`${s.api}/courses/importJobs/${started.body.result}`, { auth: otherAuth })).status).toBe(404);
    expect((await call(`${s.api}/courses/mine`, { auth: otherAuth })).status).toBe(404);
    expect((await call(`${s.api}/courses/mine`, { method: 'DELETE', auth: otherAuth })).status).toBe(404);
  });
});

/** A one-entry zip (stored, no compression) with the given raw name. */
function zipWith(name: string, data: Buffer): Buffer {
  const nameBuf = Buffer.from(name);
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(nameBuf.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(nameBuf.length, 28);
  const localPart = Buffer.concat([local, nameBuf, data]);
  const centralPart = Buffer.concat([central, nameBuf]);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(centralPart.length, 12);
  end.writeUInt32LE(localPart.length, 16);
  return Buffer.concat([localPart, centralPart, end]);
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
