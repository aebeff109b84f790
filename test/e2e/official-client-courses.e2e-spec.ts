import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { countActivities, fixture } from '../support/courses';
import { dbDate } from '../support/db';
import { Clients, createClients, errorBody, failure, invoke, op, sc } from '../support/official-client';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * Compatibility: every course operation of the official SCORM Cloud API V2 JavaScript client (v3) that LCDS implements,
 * plus the application configuration trio, driven through the client's own request building and model deserialisation.
 *
 * Client behaviour worth knowing (node_modules/@rusticisoftware/scormcloud-api-v2-client-javascript/src/rustici-software-cloud-v2/):
 * - Multipart operations (CreateUploadAndImportCourseJob, UploadCourse[Version]AssetFile) put `file` through
 *   ApiClient.isFileParam: an fs.ReadStream or a Buffer is attached with superagent's `.attach(key, value)`, anything
 *   else becomes a text field. A ReadStream part carries `filename="<basename>"` and a content type guessed from the
 *   path; a Buffer part has NO filename and `Content-Type: application/octet-stream` (form-data 2.5).
 * - `uploadedContentType` is sent as an HTTP header of that name; `contentMetadata` is a text field (a JSON string).
 * - Models that contain themselves deserialise only one level: CourseActivitySchema.js requires './CourseActivitySchema'
 *   while that module is still loading, gets an empty exports object, and so `rootActivity.children` are plain objects
 *   (with the JSON's fields), not CourseActivitySchema instances.
 * - Operations returning 'Blob' (GetCourseAsset, GetCourseVersionAsset, GetCourseZip, GetVersionedCourseZip) set
 *   superagent's responseType, so the body arrives as a Buffer whatever the content type; error bodies too.
 * - DeleteCourseTags sends its TagListSchema as a JSON body of the DELETE.
 * - `tags` of GetCourses is a csv collection: the client joins the array with unencoded commas.
 * - Booleans in query strings (mayCreateNewVersion, includeMetadata, singleSco, …) are sent as "true"/"false".
 */
describe('official SCORM Cloud JavaScript client (v3): courses', () => {
  let s: TestServer;
  let normal: Clients;
  let management: Clients;
  let peer: Server;
  let peerUrl: string;
  const peerRequests: string[] = [];
  const postbacks: any[] = [];

  const GOLF12 = fixture('scorm12-golf-runtime-basic.zip');
  const GOLF2004 = fixture('scorm2004-3rd-golf-runtime-basic.zip');
  const CMI5 = fixture('cmi5-catapult-single-au-basic-framed.zip');
  const Standard = () => sc.CourseSchema.CourseLearningStandardEnum;
  const Status = () => sc.ImportJobResultSchema.StatusEnum;
  const Source = () => sc.SettingItem.EffectiveValueSourceEnum;

  /** Polls GetImportJobStatus (through the client) until the job leaves RUNNING. */
  async function waitForJob(jobId: string, timeoutMs = 60_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await op(normal.course, 'getImportJobStatus', jobId);
      if (job.status !== Status().RUNNING) return job;
      if (Date.now() > deadline) throw new Error(`import ${jobId} still running after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Uploads a package with the client and waits for the job; fails the test unless it completes. */
  async function importPackage(courseId: string, path: string, opts: Record<string, unknown> = {}): Promise<any> {
    const started = await op(normal.course, 'createUploadAndImportCourseJob', courseId, { file: createReadStream(path), ...opts });
    const job = await waitForJob(started.result);
    if (job.status !== Status().COMPLETE) throw new Error(`import of ${courseId} ended ${job.status}: ${job.message}`);
    return job;
  }

  const settings = (...pairs: Array<[string, string]>) =>
    Object.assign(new sc.SettingsPostSchema(), { settings: pairs.map(([settingId, value]) => Object.assign(new sc.SettingsIndividualSchema(), { settingId, value })) });
  const itemOf = (list: any, id: string) => list.settingItems.find((i: any) => i.id === id);
  const zipEntries = (zip: Buffer): string[] => {
    const dir = mkdtempSync(join(tmpdir(), 'lcds-client-zip-'));
    writeFileSync(join(dir, 'c.zip'), zip);
    return execFileSync('unzip', ['-Z1', join(dir, 'c.zip')], { encoding: 'utf8' }).split('\n').filter(Boolean);
  };
  const fixtureEntry = (zip: string, entry: string): Buffer => execFileSync('unzip', ['-p', zip, entry], { maxBuffer: 64 * 1024 * 1024 });
  /** A file on disk, to hand the client as an fs.ReadStream (its part then carries filename="<name>"). */
  const tempFile = (name: string, content: string | Buffer): string => {
    const path = join(mkdtempSync(join(tmpdir(), 'lcds-client-')), name);
    writeFileSync(path, content);
    return path;
  };
  /** Runs an operation that should succeed; on failure, resolves the status and body so the assertion shows them. */
  const attempt = async (api: any, method: string, ...args: unknown[]): Promise<{ data?: any; error?: { status?: number; body: any } }> => {
    try {
      return { data: await op(api, method, ...args) };
    } catch (err: any) {
      return { error: { status: err.status, body: err.response ? errorBody(err) : String(err) } };
    }
  };

  beforeAll(async () => {
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true' });
    normal = createClients(s.api, { normal: [s.firstStart.application.appId, s.firstStart.application.secretKey] });
    management = createClients(s.api, { management: [s.firstStart.management.appId, s.firstStart.management.secretKey] });

    // A real HTTP peer on 127.0.0.1: serves fixture packages and asset files, and receives postbacks.
    peer = createServer((req, res) => {
      peerRequests.push(`${req.method} ${req.url}`);
      if (req.method === 'POST' && req.url === '/postback') {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          postbacks.push(JSON.parse(body));
          res.writeHead(200).end();
        });
        return;
      }
      if (req.url === '/assets/fetched.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('fetched by the server');
        return;
      }
      const name = decodeURIComponent((req.url ?? '').replace(/^\/files\//, ''));
      try {
        const data = readFileSync(fixture(name));
        res.writeHead(200, { 'content-type': 'application/zip', 'content-length': data.length }).end(data);
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => peer.listen(0, '127.0.0.1', () => r()));
    peerUrl = `http://127.0.0.1:${(peer.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    peer?.close();
    await s?.close();
  });

  describe('imports', () => {
    it('uploads a package as a file stream (createUploadAndImportCourseJob) and polls getImportJobStatus to COMPLETE', async () => {
      const started = await invoke(normal.course, 'createUploadAndImportCourseJob', 'oc-golf', { file: createReadStream(GOLF12), uploadedContentType: 'application/zip' });
      expect(started.response.status).toBe(200);
      expect(started.data).toBeInstanceOf(sc.StringResultSchema);
      expect(started.data.result).toMatch(/^[\w-]{8,}$/);

      const job = await waitForJob(started.data.result);
      expect(job).toBeInstanceOf(sc.ImportJobResultSchema);
      expect(job.jobId).toBe(started.data.result);
      expect(job.status).toBe(Status().COMPLETE);
      expect(job.message).toEqual(expect.any(String));
      // `progress` is an LCDS addition the client's model does not copy.
      expect(job.progress).toBeUndefined();

      const result = job.importResult;
      expect(result).toBeInstanceOf(sc.ImportResultSchema);
      expect(result.webPathToCourse).toEqual(expect.any(String));
      expect(result.webPathToCourse.length).toBeGreaterThan(0);
      expect(result.parserWarnings).toEqual(expect.any(Array));
      expect(result.courseLanguages).toEqual(expect.any(Array));

      const course = result.course;
      expect(course).toBeInstanceOf(sc.CourseSchema);
      expect(course.id).toBe('oc-golf');
      expect(course.version).toBe(1);
      expect(course.courseLearningStandard).toBe(Standard().sCORM12);
      expect(Object.values(Standard())).toContain(course.courseLearningStandard);
      expect(course.title).toEqual(expect.any(String));
      expect(course.title.length).toBeGreaterThan(0);
      expect(course.tags).toEqual([]);
      expect(course.dispatched).toBe(false);
      expect(course.created).toBeInstanceOf(Date);
      expect(course.updated).toBeInstanceOf(Date);
      expect(Math.abs(course.created.getTime() - Date.now())).toBeLessThan(60_000);
      expect(course.rootActivity).toBeInstanceOf(sc.CourseActivitySchema);
      expect(course.rootActivity.children.length).toBeGreaterThan(0);
      // One level deep only (see the header): the children are plain objects with the schema's fields.
      expect(course.rootActivity.children[0]).not.toBeInstanceOf(sc.CourseActivitySchema);
      expect(course.rootActivity.children[0]).toMatchObject({ activityType: expect.any(String), title: expect.any(String), children: expect.any(Array) });
      expect(Object.values(sc.CourseActivitySchema.ActivityTypeEnum)).toContain(course.rootActivity.activityType);
      expect(Object.values(sc.CourseActivitySchema.ActivityTypeEnum)).toContain(course.rootActivity.children[0].activityType);
      expect(countActivities(course.rootActivity, sc.CourseActivitySchema.ActivityTypeEnum.SCO)).toBe(1);
      expect(course.activityId).toEqual(expect.any(String));
    });

    it('makes a new version of an uploaded course only with mayCreateNewVersion', async () => {
      const exists = await failure(normal.course, 'createUploadAndImportCourseJob', 'oc-golf', { file: createReadStream(GOLF2004), uploadedContentType: 'application/zip' });
      expect(exists.status).toBe(409);
      expect(exists.response?.body.message).toMatch(/mayCreateNewVersion/);

      // Booleans go out as "true".
      const started = await op(normal.course, 'createUploadAndImportCourseJob', 'oc-golf', { file: createReadStream(GOLF2004), uploadedContentType: 'application/zip', mayCreateNewVersion: true });
      const job = await waitForJob(started.result);
      expect(job.status).toBe(Status().COMPLETE);
      expect(job.importResult.course).toBeInstanceOf(sc.CourseSchema);
      expect(job.importResult.course.version).toBe(2);
      expect(job.importResult.course.courseLearningStandard).toBe(Standard().sCORM20043RDEDITION);

      // No file at all: 400 naming the field.
      const missing = await failure(normal.course, 'createUploadAndImportCourseJob', 'oc-nofile', {});
      expect(missing.status).toBe(400);
      expect(missing.response?.body.message).toMatch(/file/);
      const badId = await failure(normal.course, 'createUploadAndImportCourseJob', 'a/b', { file: createReadStream(GOLF12) });
      expect(badId.status).toBe(400);
      expect(badId.response?.body.message).toMatch(/courseId/);
    });

    // The client attaches a Buffer `file` as a multipart part without a filename (ApiClient.js callApi,
    // request.attach(key, buffer)); LCDS's multipart handling keeps such parts.
    it('accepts a package passed to createUploadAndImportCourseJob as a Buffer (multipart part without filename)', async () => {
      const started = await attempt(normal.course, 'createUploadAndImportCourseJob', 'oc-buffer', { file: readFileSync(GOLF12), uploadedContentType: 'application/zip' });
      expect(started.error).toBeUndefined();
      const job = await waitForJob(started.data.result);
      expect(job.status).toBe(Status().COMPLETE);
      expect(job.importResult.course).toMatchObject({ id: 'oc-buffer', version: 1, courseLearningStandard: Standard().sCORM12 });
    });

    it('uploads a media file with the uploadedContentType header and contentMetadata field', async () => {
      const video = fixtureEntry(CMI5, 'video/mountains_31175.mp4');
      const metadata = { title: 'Mountains', description: 'A short clip', contentLanguage: 'en' };
      // No extension: form-data sends application/octet-stream, so only the uploadedContentType header says it is a video.
      const started = await op(normal.course, 'createUploadAndImportCourseJob', 'oc-video', {
        file: createReadStream(tempFile('clip', video)),
        uploadedContentType: 'video/mp4',
        contentMetadata: JSON.stringify(metadata),
      });
      const job = await waitForJob(started.result);
      expect(job.status).toBe(Status().COMPLETE);
      expect(job.importResult.courseLanguages).toEqual(['en']);
      expect(job.importResult.course.title).toBe('Mountains');
      expect(job.importResult.course.courseLearningStandard).toBe(Standard().UNKNOWN);

      const course = await op(normal.course, 'getCourse', 'oc-video', { includeCourseMetadata: true });
      expect(course.metadata).toBeInstanceOf(sc.MetadataSchema);
      expect(course.metadata.title).toBe('Mountains');
      expect(course.metadata.description).toBe('A short clip');
      const files = await op(normal.course, 'getCourseFileList', 'oc-video');
      expect(files.files).toHaveLength(1);
      expect(files.files[0].size).toBe(video.length);
    });

    it('imports by URL (createFetchAndImportCourseJob) and posts the result back', async () => {
      const request = new sc.ImportFetchRequestSchema(`${peerUrl}/files/cmi5-catapult-single-au-basic-framed.zip`);
      const started = await op(normal.course, 'createFetchAndImportCourseJob', 'oc-cmi5', request, { postbackUrl: `${peerUrl}/postback` });
      expect(started).toBeInstanceOf(sc.StringResultSchema);
      const job = await waitForJob(started.result);
      expect(job.status).toBe(Status().COMPLETE);
      expect(job.importResult.course.id).toBe('oc-cmi5');
      expect(job.importResult.course.courseLearningStandard).toBe(Standard().cMI5);
      expect(countActivities(job.importResult.course.rootActivity, 'SCO')).toBe(1);
      expect(peerRequests).toContain('GET /files/cmi5-catapult-single-au-basic-framed.zip');

      const deadline = Date.now() + 30_000;
      while (postbacks.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      // The postback body is an ImportJobResultSchema the client's model reads as such.
      const posted = sc.ImportJobResultSchema.constructFromObject(postbacks[0]);
      expect(posted.jobId).toBe(started.result);
      expect(posted.status).toBe(Status().COMPLETE);
      expect(posted.importResult.course).toBeInstanceOf(sc.CourseSchema);
      expect(posted.importResult.course.id).toBe('oc-cmi5');

      // A URL that answers 404: the job ends in ERROR with a message.
      const missing = await op(normal.course, 'createFetchAndImportCourseJob', 'oc-gone', new sc.ImportFetchRequestSchema(`${peerUrl}/files/nothing.zip`), {});
      const failed = await waitForJob(missing.result);
      expect(failed.status).toBe(Status().ERROR);
      expect(failed.message).toMatch(/404/);
      expect(failed.importResult).toBeUndefined();
      expect((await failure(normal.course, 'getCourse', 'oc-gone', {})).status).toBe(404);

      const forbidden = await failure(normal.course, 'createFetchAndImportCourseJob', 'oc-file', new sc.ImportFetchRequestSchema('file:///etc/passwd'), {});
      expect(forbidden.status).toBe(400);
      expect(forbidden.response?.body.message).toMatch(/http/);
    });

    it('imports through createNoUploadAndImportCourseJob: fetchRequest and mediaFileReferenceRequest', async () => {
      const fetchRequest = new sc.ImportRequestSchema();
      fetchRequest.fetchRequest = new sc.ImportFetchRequestSchema(`${peerUrl}/files/xapi-tincan-locator.zip`);
      const fetched = await waitForJob((await op(normal.course, 'createNoUploadAndImportCourseJob', 'oc-xapi', fetchRequest, {})).result);
      expect(fetched.status).toBe(Status().COMPLETE);
      expect(fetched.importResult.course.courseLearningStandard).toBe(Standard().XAPI);
      expect(fetched.importResult.course.xapiActivityId).toEqual(expect.any(String));

      const mediaRequest = new sc.ImportRequestSchema();
      mediaRequest.mediaFileReferenceRequest = new sc.ImportMediaFileReferenceRequestSchema('https://media.example.com/intro.mp4', 'video/mp4');
      mediaRequest.mediaFileReferenceRequest.mediaFileMetadata = Object.assign(new sc.MediaFileMetadataSchema(), { title: 'Intro video', contentLanguage: 'fr', estimatedDuration: 90 });
      const media = await waitForJob((await op(normal.course, 'createNoUploadAndImportCourseJob', 'oc-ref', mediaRequest, {})).result);
      expect(media.status).toBe(Status().COMPLETE);
      expect(media.importResult.course.title).toBe('Intro video');
      expect(media.importResult.course.courseLearningStandard).toBe(Standard().UNKNOWN);
      expect(media.importResult.courseLanguages).toEqual(['fr']);

      const both = new sc.ImportRequestSchema();
      both.fetchRequest = fetchRequest.fetchRequest;
      both.mediaFileReferenceRequest = mediaRequest.mediaFileReferenceRequest;
      const refused = await failure(normal.course, 'createNoUploadAndImportCourseJob', 'oc-both', both, {});
      expect(refused.status).toBe(400);
      expect(refused.response?.body.message).toMatch(/exactly one/);

      const again = await failure(normal.course, 'createNoUploadAndImportCourseJob', 'oc-xapi', fetchRequest, {});
      expect(again.status).toBe(409);
      const v2 = await waitForJob((await op(normal.course, 'createNoUploadAndImportCourseJob', 'oc-xapi', fetchRequest, { mayCreateNewVersion: true })).result);
      expect(v2.importResult.course.version).toBe(2);
    });

    it('answers 404 for an unknown import job, and for one of another application', async () => {
      const unknown = await failure(normal.course, 'getImportJobStatus', 'no-such-job');
      expect(unknown.status).toBe(404);
      expect(unknown.response?.body.message).toMatch(/no-such-job/);

      const started = await op(normal.course, 'createUploadAndImportCourseJob', 'oc-mine', { file: createReadStream(GOLF12) });
      await waitForJob(started.result);
      const other = await otherApplication('courses-other');
      expect((await failure(other.course, 'getImportJobStatus', started.result)).status).toBe(404);
      expect((await failure(other.course, 'getCourse', 'oc-mine', {})).status).toBe(404);
    });
  });

  async function otherApplication(name: string): Promise<Clients & { id: string }> {
    const request = new sc.ApplicationRequestSchema();
    request.name = name;
    const app = await op(management.mgmt, 'createApplication', request);
    const creds = await op(management.mgmt, 'getCredentials', app.id);
    return { id: app.id, ...createClients(s.api, { normal: [app.id, creds.credentials[0].credential] }) };
  }

  describe('reading and changing courses', () => {
    beforeAll(async () => {
      await importPackage('oc-read', GOLF12);
      await importPackage('oc-read', GOLF2004, { mayCreateNewVersion: true });
      await importPackage('oc-other', CMI5);
    });

    it('gets a course (getCourse) with and without metadata and registration count', async () => {
      const plain = await invoke(normal.course, 'getCourse', 'oc-read', {});
      expect(plain.response.status).toBe(200);
      const course = plain.data;
      expect(course).toBeInstanceOf(sc.CourseSchema);
      expect(course).toMatchObject({ id: 'oc-read', version: 2, courseLearningStandard: Standard().sCORM20043RDEDITION, tags: [], dispatched: false });
      expect(course.metadata).toBeUndefined();
      expect(course.registrationCount).toBeUndefined();
      expect(course.rootActivity).toBeInstanceOf(sc.CourseActivitySchema);
      expect(course.created).toBeInstanceOf(Date);
      expect(course.updated.getTime()).toBeGreaterThanOrEqual(course.created.getTime());

      const full = await op(normal.course, 'getCourse', 'oc-read', { includeCourseMetadata: true, includeRegistrationCount: true });
      expect(full.metadata).toBeInstanceOf(sc.MetadataSchema);
      expect(full.registrationCount).toBe(0);

      const missing = await failure(normal.course, 'getCourse', 'oc-nope', {});
      expect(missing.status).toBe(404);
      expect(missing.response?.body.message).toMatch(/oc-nope/);
    });

    it('lists versions (getCourseVersions) and reads one (getCourseVersionInfo)', async () => {
      const versions = await op(normal.course, 'getCourseVersions', 'oc-read', { includeRegistrationCount: true });
      expect(versions).toBeInstanceOf(sc.CourseListNonPagedSchema);
      expect(versions.courses.every((c: unknown) => c instanceof sc.CourseSchema)).toBe(true);
      expect(versions.courses.map((c: any) => [c.version, c.courseLearningStandard])).toEqual([
        [1, Standard().sCORM12],
        [2, Standard().sCORM20043RDEDITION],
      ]);
      expect(versions.courses.every((c: any) => c.id === 'oc-read' && c.registrationCount === 0)).toBe(true);
      expect(versions.courses[1].created.getTime()).toBeGreaterThanOrEqual(versions.courses[0].created.getTime());

      const future = await op(normal.course, 'getCourseVersions', 'oc-read', { since: new Date(Date.now() + 60_000) });
      expect(future.courses).toEqual([]);
      const all = await op(normal.course, 'getCourseVersions', 'oc-read', { until: new Date(Date.now() + 60_000) });
      expect(all.courses).toHaveLength(2);

      const v1 = await op(normal.course, 'getCourseVersionInfo', 'oc-read', 1, { includeCourseMetadata: true, includeRegistrationCount: true });
      expect(v1).toBeInstanceOf(sc.CourseSchema);
      expect(v1).toMatchObject({ id: 'oc-read', version: 1, courseLearningStandard: Standard().sCORM12, registrationCount: 0 });
      expect(v1.metadata).toBeInstanceOf(sc.MetadataSchema);
      expect(countActivities(v1.rootActivity, 'SCO')).toBe(1);

      const noVersion = await failure(normal.course, 'getCourseVersionInfo', 'oc-read', 7, {});
      expect(noVersion.status).toBe(404);
      expect((await failure(normal.course, 'getCourseVersions', 'oc-nope', {})).status).toBe(404);
    });

    it('sets the title (setCourseTitle) and tags (putCourseTags, deleteCourseTags, putCourseTagsBatch, getCourseTags)', async () => {
      const title = await invoke(normal.course, 'setCourseTitle', 'oc-read', Object.assign(new sc.TitleSchema(), { title: 'Golf for client users' }));
      expect(title.response.status).toBe(204);
      expect(title.data).toBeNull();
      expect((await op(normal.course, 'getCourse', 'oc-read', {})).title).toBe('Golf for client users');

      const put = await invoke(normal.course, 'putCourseTags', 'oc-read', Object.assign(new sc.TagListSchema(), { tags: ['sport', 'intro', 'client'] }));
      expect(put.response.status).toBe(204);
      expect(put.data).toBeNull();
      const tags = await op(normal.course, 'getCourseTags', 'oc-read');
      expect(tags).toBeInstanceOf(sc.TagListSchema);
      expect([...tags.tags].sort()).toEqual(['client', 'intro', 'sport']);

      // DELETE with a JSON body.
      const removed = await invoke(normal.course, 'deleteCourseTags', 'oc-read', Object.assign(new sc.TagListSchema(), { tags: ['intro'] }));
      expect(removed.response.status).toBe(204);
      expect([...(await op(normal.course, 'getCourseTags', 'oc-read')).tags].sort()).toEqual(['client', 'sport']);

      const batch = await invoke(normal.course, 'putCourseTagsBatch', new sc.BatchTagsSchema(['oc-read', 'oc-other'], ['advanced', 'client']));
      expect(batch.response.status).toBe(204);
      expect([...(await op(normal.course, 'getCourseTags', 'oc-other')).tags].sort()).toEqual(['advanced', 'client']);
      expect([...(await op(normal.course, 'getCourseTags', 'oc-read')).tags].sort()).toEqual(['advanced', 'client', 'sport']);
      expect((await op(normal.course, 'getCourse', 'oc-other', {})).tags.sort()).toEqual(['advanced', 'client']);

      const unknown = await failure(normal.course, 'putCourseTagsBatch', new sc.BatchTagsSchema(['oc-nope'], ['x']));
      expect(unknown.status).toBe(404);
      expect((await failure(normal.course, 'getCourseTags', 'oc-nope')).status).toBe(404);
    });

    it('lists courses (getCourses) by tags, title filter, order and dates', async () => {
      // csv collection: ['sport', 'advanced'] goes out as tags=sport,advanced (any of).
      const anyOf = await op(normal.course, 'getCourses', { tags: ['sport', 'advanced'] });
      expect(anyOf).toBeInstanceOf(sc.CourseListSchema);
      expect(anyOf.courses.map((c: any) => c.id).sort()).toEqual(['oc-other', 'oc-read']);
      expect(anyOf.courses.every((c: unknown) => c instanceof sc.CourseSchema)).toBe(true);
      expect(anyOf.more).toBeUndefined();
      expect((await op(normal.course, 'getCourses', { tags: ['sport'] })).courses.map((c: any) => c.id)).toEqual(['oc-read']);

      const byTitle = await op(normal.course, 'getCourses', { filter: 'client users', filterBy: 'course_title' });
      expect(byTitle.courses.map((c: any) => c.title)).toEqual(['Golf for client users']);
      const byId = await invoke(normal.course, 'getCourses', { filter: 'oc-', filterBy: 'course_id', orderBy: 'created_asc', includeTotalCount: true, includeCourseMetadata: true, includeRegistrationCount: true });
      const ids = byId.data.courses.map((c: any) => c.id);
      expect(byId.response.headers['x-total-count']).toBe(String(ids.length));
      expect(ids).toEqual(expect.arrayContaining(['oc-golf', 'oc-read', 'oc-other', 'oc-cmi5']));
      expect(ids.indexOf('oc-golf')).toBeLessThan(ids.indexOf('oc-read'));
      expect(byId.data.courses[0].metadata).toBeInstanceOf(sc.MetadataSchema);
      expect(byId.data.courses[0].registrationCount).toBe(0);
      const desc = await op(normal.course, 'getCourses', { filter: 'oc-', orderBy: 'created_desc' });
      expect(desc.courses.map((c: any) => c.id)).toEqual([...ids].reverse());
      const byTitleAsc = await op(normal.course, 'getCourses', { filter: 'oc-', orderBy: 'title_asc' });
      const titles = byTitleAsc.courses.map((c: any) => c.title);
      expect(titles).toEqual([...titles].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)));

      // since / until are Dates, sent as toISOString().
      expect((await op(normal.course, 'getCourses', { since: new Date(Date.now() + 60_000), datetimeFilter: 'created' })).courses).toEqual([]);
      expect((await op(normal.course, 'getCourses', { until: new Date(Date.now() - 3600_000), datetimeFilter: 'updated' })).courses).toEqual([]);

      const badOrder = await failure(normal.course, 'getCourses', { orderBy: 'sideways' });
      expect(badOrder.status).toBe(400);
      expect(badOrder.response?.body.message).toMatch(/orderBy/);
    });

    it('pages getCourses with the more token and reports X-Total-Count on the first page only', async () => {
      // 105 courses straight into the tables of a fresh application, created a second apart.
      const other = await otherApplication('courses-paging');
      const ds = s.app.get(DataSource);
      const now = Date.now();
      for (let i = 0; i < 105; i++) {
        const id = `page-${String(i).padStart(3, '0')}`;
        const at = dbDate(ds, new Date(now - 1000 * (200 - i)));
        await ds.query('INSERT INTO course (app_id, id, title, title_key, latest_version, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)', [other.id, id, `Page ${i}`, `Page ${i}`, at, at]);
        await ds.query(
          'INSERT INTO course_version (app_id, course_id, version, title, learning_standard, metadata, root_activity, package, content_prefix, size_bytes, created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, 0, ?, ?)',
          [other.id, id, `Page ${i}`, 'SCORM12', '{}', '{"externalIdentifier":"x","itemIdentifier":"x","activityType":"SCO","title":"x","children":[]}', '{"launchables":[]}', `apps/x/${id}/`, at, at],
        );
      }
      const expected = Array.from({ length: 105 }, (_, i) => `page-${String(i).padStart(3, '0')}`);

      const first = await invoke(other.course, 'getCourses', { orderBy: 'created_asc', includeTotalCount: true });
      expect(first.response.headers['x-total-count']).toBe('105');
      expect(first.data.courses).toHaveLength(100);
      expect(first.data.courses.map((c: any) => c.id)).toEqual(expected.slice(0, 100));
      expect(first.data.courses[0].created.toISOString()).toBe(new Date(now - 200_000).toISOString());
      expect(first.data.more).toEqual(expect.any(String));

      const second = await invoke(other.course, 'getCourses', { more: first.data.more });
      expect(second.response.headers['x-total-count']).toBeUndefined();
      expect(second.data.courses.map((c: any) => c.id)).toEqual(expected.slice(100));
      expect(second.data.more).toBeUndefined();

      const old = await op(other.course, 'getCourses', { until: new Date(now - 1000 * 150), datetimeFilter: 'created' });
      expect(old.courses).toHaveLength(51);
    });
  });

  describe('configuration', () => {
    beforeAll(async () => {
      await importPackage('oc-config', GOLF12);
      await importPackage('oc-config', GOLF2004, { mayCreateNewVersion: true });
    });

    it('reads, sets and deletes application configuration (ApplicationManagementApi with APP_NORMAL credentials)', async () => {
      const set = await invoke(normal.mgmt, 'setApplicationConfiguration', settings(['PlayerDesiredWidth', '900']), {});
      expect(set.response.status).toBe(204);
      expect(set.data).toBeNull();
      await op(normal.mgmt, 'setApplicationConfiguration', settings(['PlayerDesiredHeight', '700']), { learningStandard: 'SCORM12', singleSco: true });

      const list = await op(normal.mgmt, 'getApplicationConfiguration', { includeMetadata: true });
      expect(list).toBeInstanceOf(sc.SettingListSchema);
      const width = itemOf(list, 'PlayerDesiredWidth');
      expect(width).toBeInstanceOf(sc.SettingItem);
      expect(width).toMatchObject({ effectiveValue: '900', effectiveValueSource: Source().application, explicitValue: '900' });
      expect(width.metadata).toBeInstanceOf(sc.SettingMetadata);
      expect(width.metadata.dataType).toEqual(expect.stringMatching(/int/i));
      const launch = itemOf(list, 'PlayerLaunchType');
      expect(launch.metadata._default).toBe('FRAMESET');
      expect(launch.metadata.validValues[0]).toBeInstanceOf(sc.SettingValidValue);
      expect(launch.metadata.validValues.map((v: any) => v.value)).toContain('NEW_WINDOW');
      expect(Object.values(sc.SettingMetadata.LearningStandardVariantEnum)).toContain(launch.metadata.learningStandardVariant);

      const bucket = await op(normal.mgmt, 'getApplicationConfiguration', { learningStandard: 'SCORM12', singleSco: true });
      expect(itemOf(bucket, 'PlayerDesiredHeight')).toMatchObject({ effectiveValue: '700', effectiveValueSource: Source().learningStandardForApplication });
      expect(itemOf(bucket, 'PlayerDesiredHeight').metadata).toBeUndefined();

      const refused = await failure(normal.mgmt, 'setApplicationConfiguration', settings(['NotASetting', 'x']), {});
      expect(refused.status).toBe(400);
      expect(refused.response?.body.message).toMatch(/NotASetting/);
    });

    it('keeps course configuration above the application (getCourseConfiguration, setCourseConfiguration, deleteCourseConfigurationSetting)', async () => {
      const set = await invoke(normal.course, 'setCourseConfiguration', 'oc-config', settings(['PlayerLaunchType', 'new_window']));
      expect(set.response.status).toBe(204);
      expect(set.data).toBeNull();

      const list = await op(normal.course, 'getCourseConfiguration', 'oc-config', { includeMetadata: true });
      expect(list).toBeInstanceOf(sc.SettingListSchema);
      const launch = itemOf(list, 'PlayerLaunchType');
      expect(launch).toBeInstanceOf(sc.SettingItem);
      expect(launch).toMatchObject({ effectiveValue: 'NEW_WINDOW', effectiveValueSource: Source().course, explicitValue: 'NEW_WINDOW' });
      expect(launch.metadata).toBeInstanceOf(sc.SettingMetadata);
      // Inherited from the application level (set in the previous test).
      const width = itemOf(list, 'PlayerDesiredWidth');
      expect(width).toMatchObject({ effectiveValue: '900', effectiveValueSource: Source().application });
      expect(width.explicitValue).toBeUndefined();

      const bad = await failure(normal.course, 'setCourseConfiguration', 'oc-config', settings(['NoSuchSetting', '1']));
      expect(bad.status).toBe(400);
      expect(bad.response?.body.message).toMatch(/NoSuchSetting/);
      expect((await failure(normal.course, 'getCourseConfiguration', 'oc-nope', {})).status).toBe(404);

      const deleted = await invoke(normal.course, 'deleteCourseConfigurationSetting', 'oc-config', 'PlayerLaunchType');
      expect(deleted.response.status).toBe(204);
      expect(deleted.data).toBeNull();
      const after = itemOf(await op(normal.course, 'getCourseConfiguration', 'oc-config', {}), 'PlayerLaunchType');
      expect(after).toMatchObject({ effectiveValue: 'FRAMESET', effectiveValueSource: Source()._default });
      expect(after.metadata).toBeUndefined();
    });

    it('keeps version configuration above the course (getCourseVersionConfiguration, setCourseVersionConfiguration, deleteCourseVersionConfigurationSetting)', async () => {
      await op(normal.course, 'setCourseConfiguration', 'oc-config', settings(['PlayerLaunchType', 'NEW_WINDOW']));
      const set = await invoke(normal.course, 'setCourseVersionConfiguration', 'oc-config', 1, settings(['PlayerLaunchType', 'NEW_WINDOW_AFTER_CLICK']));
      expect(set.response.status).toBe(204);
      expect(set.data).toBeNull();

      const v1 = await op(normal.course, 'getCourseVersionConfiguration', 'oc-config', 1, { includeMetadata: true });
      expect(v1).toBeInstanceOf(sc.SettingListSchema);
      expect(itemOf(v1, 'PlayerLaunchType')).toMatchObject({ effectiveValue: 'NEW_WINDOW_AFTER_CLICK', effectiveValueSource: Source().course, explicitValue: 'NEW_WINDOW_AFTER_CLICK' });
      expect(itemOf(v1, 'PlayerLaunchType').metadata).toBeInstanceOf(sc.SettingMetadata);
      // Version 1 is SCORM 1.2 single-SCO: the application's SCORM12 bucket applies; version 2 (SCORM 2004) does not see it.
      expect(itemOf(v1, 'PlayerDesiredHeight')).toMatchObject({ effectiveValue: '700', effectiveValueSource: Source().learningStandardForApplication });
      const v2 = await op(normal.course, 'getCourseVersionConfiguration', 'oc-config', 2, {});
      expect(itemOf(v2, 'PlayerLaunchType')).toMatchObject({ effectiveValue: 'NEW_WINDOW', effectiveValueSource: Source().course });
      expect(itemOf(v2, 'PlayerLaunchType').explicitValue).toBeUndefined();
      expect(itemOf(v2, 'PlayerDesiredHeight').effectiveValueSource).toBe(Source()._default);
      expect(itemOf(await op(normal.course, 'getCourseConfiguration', 'oc-config', {}), 'PlayerLaunchType').effectiveValue).toBe('NEW_WINDOW');

      const deleted = await invoke(normal.course, 'deleteCourseVersionConfigurationSetting', 'oc-config', 1, 'PlayerLaunchType');
      expect(deleted.response.status).toBe(204);
      expect(deleted.data).toBeNull();
      expect(itemOf(await op(normal.course, 'getCourseVersionConfiguration', 'oc-config', 1, {}), 'PlayerLaunchType')).toMatchObject({
        effectiveValue: 'NEW_WINDOW',
        effectiveValueSource: Source().course,
      });

      expect((await failure(normal.course, 'getCourseVersionConfiguration', 'oc-config', 9, {})).status).toBe(404);
      const bad = await failure(normal.course, 'setCourseVersionConfiguration', 'oc-config', 1, settings(['PlayerLaunchType', 'POPUP']));
      expect(bad.status).toBe(400);
      expect(bad.response?.body.message).toMatch(/PlayerLaunchType/);
    });

    it('clears application values (deleteApplicationConfigurationSetting), bucket included', async () => {
      const deleted = await invoke(normal.mgmt, 'deleteApplicationConfigurationSetting', 'PlayerDesiredWidth', {});
      expect(deleted.response.status).toBe(204);
      expect(deleted.data).toBeNull();
      await op(normal.mgmt, 'deleteApplicationConfigurationSetting', 'PlayerDesiredHeight', { learningStandard: 'SCORM12', singleSco: true });
      const list = await op(normal.mgmt, 'getApplicationConfiguration', {});
      expect(itemOf(list, 'PlayerDesiredWidth').effectiveValueSource).toBe(Source()._default);
      const v1 = await op(normal.course, 'getCourseVersionConfiguration', 'oc-config', 1, {});
      expect(itemOf(v1, 'PlayerDesiredHeight').effectiveValueSource).toBe(Source()._default);
      const unknown = await failure(normal.mgmt, 'deleteApplicationConfigurationSetting', 'NoSuchSetting', {});
      expect(unknown.status).toBe(400);
      expect(unknown.response?.body.message).toMatch(/NoSuchSetting/);
    });
  });

  describe('assets, zips, previews, deletion', () => {
    let background: Buffer;

    beforeAll(async () => {
      await importPackage('oc-files', GOLF12);
      await importPackage('oc-files', GOLF2004, { mayCreateNewVersion: true });
      background = fixtureEntry(GOLF2004, 'shared/background.jpg');
    });

    it('uploads assets as file streams (uploadCourseAssetFile) under the update policies', async () => {
      const first = await invoke(normal.course, 'uploadCourseAssetFile', 'oc-files', 'extra/notes.txt', { file: createReadStream(tempFile('first.txt', 'first')) });
      expect(first.response.status).toBe(200);
      expect(first.data).toBeInstanceOf(sc.AssetFileSchema);
      expect(first.data).toMatchObject({ filename: 'notes.txt', destination: 'extra/notes.txt' });

      const rejected = await failure(normal.course, 'uploadCourseAssetFile', 'oc-files', 'extra/notes.txt', { file: createReadStream(tempFile('again.txt', 'again')), updateAssetPolicy: 'reject' });
      expect(rejected.status).toBe(400);
      expect(rejected.response?.body.message).toMatch(/reject/);
      const strictNew = await failure(normal.course, 'uploadCourseAssetFile', 'oc-files', 'extra/new.txt', { file: createReadStream(tempFile('x.txt', 'x')), updateAssetPolicy: 'strict' });
      expect(strictNew.status).toBe(400);
      expect(strictNew.response?.body.message).toMatch(/strict/);

      const strict = await op(normal.course, 'uploadCourseAssetFile', 'oc-files', 'extra/notes.txt', { file: createReadStream(tempFile('second.txt', 'second')), updateAssetPolicy: 'strict' });
      expect(strict).toMatchObject({ filename: 'notes.txt', destination: 'extra/notes.txt' });

      const escape = await failure(normal.course, 'uploadCourseAssetFile', 'oc-files', '../escape.txt', { file: createReadStream(tempFile('x.txt', 'x')) });
      expect(escape.status).toBe(400);
      expect(escape.response?.body.message).toMatch(/destination/);
      const noFile = await failure(normal.course, 'uploadCourseAssetFile', 'oc-files', 'extra/none.txt', {});
      expect(noFile.status).toBe(400);
      expect(noFile.response?.body.message).toMatch(/file/);
    });

    // Same as the Buffer package upload: a file part without a filename is kept.
    it('accepts an asset passed to uploadCourseAssetFile / uploadCourseVersionAssetFile as a Buffer (multipart part without filename)', async () => {
      const latest = await attempt(normal.course, 'uploadCourseAssetFile', 'oc-files', 'buffer/latest.txt', { file: Buffer.from('from a buffer') });
      const v1 = await attempt(normal.course, 'uploadCourseVersionAssetFile', 'oc-files', 1, 'buffer/v1.txt', { file: Buffer.from('v1 from a buffer') });
      expect({ latest: latest.error, v1: v1.error }).toEqual({ latest: undefined, v1: undefined });
      expect(latest.data).toMatchObject({ filename: 'latest.txt', destination: 'buffer/latest.txt' });
      expect((await op(normal.course, 'getCourseAsset', 'oc-files', 'buffer/latest.txt')).toString('utf8')).toBe('from a buffer');
      expect((await op(normal.course, 'getCourseVersionAsset', 'oc-files', 1, 'buffer/v1.txt')).toString('utf8')).toBe('v1 from a buffer');
    });

    it('imports an asset from a URL (importCourseAssetFile) and reads assets back as binary (getCourseAsset)', async () => {
      const imported = await op(normal.course, 'importCourseAssetFile', 'oc-files', new sc.ImportAssetRequestSchema(`${peerUrl}/assets/fetched.txt`, 'extra/fetched.txt'), {});
      expect(imported).toBeInstanceOf(sc.AssetFileSchema);
      expect(imported).toMatchObject({ filename: 'fetched.txt', destination: 'extra/fetched.txt' });
      expect(peerRequests).toContain('GET /assets/fetched.txt');
      const exists = await failure(normal.course, 'importCourseAssetFile', 'oc-files', new sc.ImportAssetRequestSchema(`${peerUrl}/assets/fetched.txt`, 'extra/fetched.txt'), { updateAssetPolicy: 'reject' });
      expect(exists.status).toBe(400);
      const gone = await failure(normal.course, 'importCourseAssetFile', 'oc-files', new sc.ImportAssetRequestSchema(`${peerUrl}/files/nothing.zip`, 'extra/nothing.zip'), {});
      expect(gone.status).toBe(400);
      expect(gone.response?.body.message).toMatch(/fetchUrl/);

      const text = await invoke(normal.course, 'getCourseAsset', 'oc-files', 'extra/notes.txt');
      expect(Buffer.isBuffer(text.data)).toBe(true);
      expect(text.data.toString('utf8')).toBe('second');
      expect((await op(normal.course, 'getCourseAsset', 'oc-files', 'extra/fetched.txt')).toString('utf8')).toBe('fetched by the server');

      // A binary file of the package comes back byte for byte.
      const image = await invoke(normal.course, 'getCourseAsset', 'oc-files', 'shared/background.jpg');
      expect(Buffer.isBuffer(image.data)).toBe(true);
      expect(image.data.equals(background)).toBe(true);
      expect(image.response.headers['content-type']).toMatch(/^image\/jpeg|^application\/octet-stream/);

      const missing = await failure(normal.course, 'getCourseAsset', 'oc-files', 'extra/none.txt');
      expect(missing.status).toBe(404);
      expect(errorBody(missing).message).toMatch(/extra\/none\.txt/);
    });

    it('lists files (getCourseFileList) and deletes an asset (deleteCourseAsset)', async () => {
      const list = await op(normal.course, 'getCourseFileList', 'oc-files');
      expect(list).toBeInstanceOf(sc.FileListSchema);
      expect(list.files.every((f: unknown) => f instanceof sc.FileListItemSchema)).toBe(true);
      const notes = list.files.find((f: any) => f.path === 'extra/notes.txt');
      expect(notes.size).toBe(6);
      expect(notes.modified).toBeInstanceOf(Date);
      expect(Math.abs(notes.modified.getTime() - Date.now())).toBeLessThan(120_000);
      const paths = list.files.map((f: any) => f.path);
      expect(paths).toEqual(expect.arrayContaining(['imsmanifest.xml', 'shared/background.jpg', 'adlcp_v1p3.xsd', 'extra/fetched.txt']));
      expect(list.files.find((f: any) => f.path === 'shared/background.jpg').size).toBe(background.length);

      const deleted = await invoke(normal.course, 'deleteCourseAsset', 'oc-files', 'extra/notes.txt');
      expect(deleted.response.status).toBe(204);
      expect(deleted.data).toBeNull();
      expect((await failure(normal.course, 'getCourseAsset', 'oc-files', 'extra/notes.txt')).status).toBe(404);
      expect((await op(normal.course, 'getCourseFileList', 'oc-files')).files.map((f: any) => f.path)).not.toContain('extra/notes.txt');
      const again = await failure(normal.course, 'deleteCourseAsset', 'oc-files', 'extra/notes.txt');
      expect(again.status).toBe(404);
    });

    it('works on one version with the version variants of the asset operations', async () => {
      const uploaded = await op(normal.course, 'uploadCourseVersionAssetFile', 'oc-files', 1, 'v1/only.txt', { file: createReadStream(tempFile('only.txt', 'version one')) });
      expect(uploaded).toBeInstanceOf(sc.AssetFileSchema);
      expect(uploaded).toMatchObject({ filename: 'only.txt', destination: 'v1/only.txt' });
      const imported = await op(normal.course, 'importCourseVersionAssetFile', 'oc-files', 1, new sc.ImportAssetRequestSchema(`${peerUrl}/assets/fetched.txt`, 'v1/fetched.txt'), {});
      expect(imported).toMatchObject({ filename: 'fetched.txt', destination: 'v1/fetched.txt' });

      const v1 = await op(normal.course, 'getCourseVersionFileList', 'oc-files', 1);
      expect(v1).toBeInstanceOf(sc.FileListSchema);
      const v1Paths = v1.files.map((f: any) => f.path);
      expect(v1Paths).toEqual(expect.arrayContaining(['v1/only.txt', 'v1/fetched.txt', 'adlcp_rootv1p2.xsd', 'imsmanifest.xml']));
      expect(v1Paths).not.toContain('adlcp_v1p3.xsd');
      const latestPaths = (await op(normal.course, 'getCourseFileList', 'oc-files')).files.map((f: any) => f.path);
      expect(latestPaths).not.toContain('v1/only.txt');

      const asset = await op(normal.course, 'getCourseVersionAsset', 'oc-files', 1, 'v1/only.txt');
      expect(Buffer.isBuffer(asset)).toBe(true);
      expect(asset.toString('utf8')).toBe('version one');
      expect((await failure(normal.course, 'getCourseAsset', 'oc-files', 'v1/only.txt')).status).toBe(404);

      const deleted = await invoke(normal.course, 'deleteCourseVersionAsset', 'oc-files', 1, 'v1/only.txt');
      expect(deleted.response.status).toBe(204);
      expect((await failure(normal.course, 'getCourseVersionAsset', 'oc-files', 1, 'v1/only.txt')).status).toBe(404);
      expect((await failure(normal.course, 'getCourseVersionFileList', 'oc-files', 5)).status).toBe(404);
    });

    it('refuses asset uploads and imports with a bearer token (basic credentials only), but lets it read', async () => {
      const token = await op(normal.auth, 'getAppToken', 'read:course write:course', { expiration: 300 });
      const viaToken = createClients(s.api, { bearer: token.accessToken });
      const upload = await failure(viaToken.course, 'uploadCourseAssetFile', 'oc-files', 'extra/token.txt', { file: createReadStream(tempFile('token.txt', 'x')) });
      expect(upload.status).toBe(403);
      expect(upload.response?.body.message).toEqual(expect.any(String));
      const importAsset = await failure(viaToken.course, 'importCourseAssetFile', 'oc-files', new sc.ImportAssetRequestSchema(`${peerUrl}/assets/fetched.txt`, 'extra/token.txt'), {});
      expect(importAsset.status).toBe(403);
      expect((await failure(viaToken.course, 'uploadCourseVersionAssetFile', 'oc-files', 1, 'extra/token.txt', { file: createReadStream(tempFile('token.txt', 'x')) })).status).toBe(403);
      expect((await failure(viaToken.course, 'importCourseVersionAssetFile', 'oc-files', 1, new sc.ImportAssetRequestSchema(`${peerUrl}/assets/fetched.txt`, 'x.txt'), {})).status).toBe(403);
      expect((await op(viaToken.course, 'getCourseAsset', 'oc-files', 'extra/fetched.txt')).toString('utf8')).toBe('fetched by the server');
    });

    it('downloads the course and a version as zips (getCourseZip, getVersionedCourseZip)', async () => {
      const latest = await invoke(normal.course, 'getCourseZip', 'oc-files');
      expect(latest.response.status).toBe(200);
      expect(latest.response.headers['content-type']).toBe('application/zip');
      expect(latest.response.headers['content-disposition']).toMatch(/attachment; filename="oc-files-v2\.zip"/);
      expect(Buffer.isBuffer(latest.data)).toBe(true);
      expect(latest.data.subarray(0, 4).toString('binary')).toBe('PK\x03\x04');
      const latestEntries = zipEntries(latest.data);
      expect(latestEntries).toEqual(expect.arrayContaining(['imsmanifest.xml', 'adlcp_v1p3.xsd', 'shared/background.jpg', 'extra/fetched.txt']));
      expect(latestEntries).not.toContain('adlcp_rootv1p2.xsd');

      const v1 = await invoke(normal.course, 'getVersionedCourseZip', 'oc-files', 1);
      expect(v1.response.headers['content-type']).toBe('application/zip');
      expect(v1.response.headers['content-disposition']).toMatch(/oc-files-v1\.zip/);
      expect(v1.data.subarray(0, 2).toString('binary')).toBe('PK');
      const v1Entries = zipEntries(v1.data);
      expect(v1Entries).toEqual(expect.arrayContaining(['imsmanifest.xml', 'adlcp_rootv1p2.xsd', 'v1/fetched.txt']));
      expect(v1Entries).not.toContain('adlcp_v1p3.xsd');

      const missing = await failure(normal.course, 'getVersionedCourseZip', 'oc-files', 9);
      expect(missing.status).toBe(404);
      expect(errorBody(missing).message).toEqual(expect.any(String));
      expect((await failure(normal.course, 'getCourseZip', 'oc-nope')).status).toBe(404);
    });

    it('builds preview launch links and reads course statements', async () => {
      const request = new sc.LaunchLinkRequestSchema('https://example.com/done');
      const preview = await op(normal.course, 'buildCoursePreviewLaunchLink', 'oc-files', request);
      expect(preview.launchLink).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/player\/launch\//);
      const versionPreview = await op(normal.course, 'buildCoursePreviewLaunchLinkWithVersion', 'oc-files', 1, request);
      expect(versionPreview.launchLink).toMatch(/\/player\/launch\//);

      // No registrations, no statements (test/e2e/course-statements.e2e-spec.ts covers them with statements).
      const statements = await op(normal.course, 'getCourseStatements', 'oc-files', { since: new Date(0) });
      expect(statements).toBeInstanceOf(sc.XapiStatementResult);
      expect(statements.statements).toEqual([]);
      expect((await op(normal.course, 'getCourseVersionStatements', 'oc-files', 2, {})).statements).toEqual([]);
      expect((await failure(normal.course, 'getCourseVersionStatements', 'oc-files', 9, {})).status).toBe(404);

      // An unknown course is still a 404.
      expect((await failure(normal.course, 'buildCoursePreviewLaunchLink', 'oc-nope', request)).status).toBe(404);
    });

    it('deletes a version (deleteCourseVersion), then the course (deleteCourse)', async () => {
      const job = await importPackage('oc-delete', GOLF12);
      await importPackage('oc-delete', GOLF2004, { mayCreateNewVersion: true });

      const deleted = await invoke(normal.course, 'deleteCourseVersion', 'oc-delete', 2);
      expect(deleted.response.status).toBe(204);
      expect(deleted.data).toBeNull();
      expect(await op(normal.course, 'getCourse', 'oc-delete', {})).toMatchObject({ version: 1, courseLearningStandard: Standard().sCORM12 });
      expect((await failure(normal.course, 'getCourseVersionInfo', 'oc-delete', 2, {})).status).toBe(404);
      expect((await op(normal.course, 'getCourseVersions', 'oc-delete', {})).courses.map((c: any) => c.version)).toEqual([1]);
      expect((await failure(normal.course, 'deleteCourseVersion', 'oc-delete', 2)).status).toBe(404);

      const course = await invoke(normal.course, 'deleteCourse', 'oc-delete');
      expect(course.response.status).toBe(204);
      expect(course.data).toBeNull();
      const gone = await failure(normal.course, 'getCourse', 'oc-delete', {});
      expect(gone.status).toBe(404);
      expect(gone.response?.body.message).toMatch(/oc-delete/);
      expect((await failure(normal.course, 'deleteCourse', 'oc-delete')).status).toBe(404);
      expect((await failure(normal.course, 'getCourseFileList', 'oc-delete')).status).toBe(404);

      // The job still reports COMPLETE, without the course that no longer exists.
      const status = await op(normal.course, 'getImportJobStatus', job.jobId);
      expect(status.status).toBe(Status().COMPLETE);
      expect(status.importResult).toBeInstanceOf(sc.ImportResultSchema);
      expect(status.importResult.course).toBeUndefined();

      // Deleting the last remaining version deletes the course.
      await importPackage('oc-last', GOLF12);
      expect((await invoke(normal.course, 'deleteCourseVersion', 'oc-last', 1)).response.status).toBe(204);
      expect((await failure(normal.course, 'getCourse', 'oc-last', {})).status).toBe(404);
      expect((await op(normal.course, 'getCourses', { filter: 'oc-last' })).courses).toEqual([]);
    });
  });
});
