import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { fixture, waitForImport } from '../support/courses';
import { createClients, op, sc } from '../support/official-client';
import { startS3Server } from '../support/s3-server';
import { basic, call, otherApplication, startTestServer, TestServer } from '../support/test-server';

/**
 * Content connectors (/contentConnectors) and imports from them (connectorReferenceRequest): an S3 connector against
 * a real S3-compatible server (s3rver), an HTTP connector against a local server that demands basic auth and a header.
 */
describe('content connectors', () => {
  let s3: Awaited<ReturnType<typeof startS3Server>>;
  let http: Server;
  let httpUrl: string;
  let s: TestServer;
  let app: string;
  let otherApp: string;
  const golf = readFileSync(fixture('scorm12-golf-runtime-basic.zip'));
  const seen: Array<{ path: string; authorization?: string; token?: string }> = [];

  beforeAll(async () => {
    s3 = await startS3Server('packages');
    const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    await client.send(new PutObjectCommand({ Bucket: 'packages', Key: 'courses/team/golf.zip', Body: golf, ContentType: 'application/zip' }));
    client.destroy();
    http = createServer((req, res) => {
      seen.push({ path: req.url ?? '', authorization: req.headers.authorization, token: req.headers['x-token'] as string | undefined });
      const ok = req.headers.authorization === `Basic ${Buffer.from('lib:pw').toString('base64')}` && req.headers['x-token'] === 't0k';
      if (!ok) return void res.writeHead(401).end();
      if (req.url === '/library/team/golf.zip') return void res.writeHead(200, { 'content-type': 'application/zip', 'content-length': golf.length }).end(golf);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true' });
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    otherApp = await otherApplication(s);
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    await s3?.close();
    await new Promise((r) => http?.close(r));
  });

  const create = (json: unknown, auth = app) => call(`${s.api}/contentConnectors`, { method: 'POST', auth, json });
  const importFrom = (courseId: string, connectorId: string, connectorIdForContent: string) =>
    call(`${s.api}/courses/importJobs/noUpload?courseId=${courseId}`, { method: 'POST', auth: app, json: { connectorReferenceRequest: { connectorId, connectorIdForContent } } });

  it('creates, lists (secrets never answered), updates, deletes; 400 for bad configurations; another application’s is a 404', async () => {
    const made = await create({ contentConnectorType: 'S3', configuration: { endpoint: s3.endpoint, region: 'us-east-1', bucket: 'packages', prefix: 'courses/', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    expect(made.status).toBe(200);
    const id = made.body.result as string;
    const list = await call(`${s.api}/contentConnectors?includeAdditionalInstanceInformation=true`, { auth: app });
    expect(list.body.connectorEntries).toEqual([
      { connectorId: id, contentConnectorType: 'S3', configuration: { endpoint: s3.endpoint, region: 'us-east-1', bucket: 'packages', prefix: 'courses/', accessKeyId: 'S3RVER' }, additionalInstanceInformation: expect.any(Object), enabled: true },
    ]);
    expect(JSON.stringify(list.body)).not.toContain('secretAccessKey');
    const [stored] = await s.app.get(DataSource).query('SELECT secrets AS v FROM content_connector WHERE id = ?', [id]);
    expect(stored.v).toMatch(/^v1\./);
    expect(stored.v).not.toContain('secretAccessKey');
    expect((await call(`${s.api}/contentConnectors`, { auth: otherApp })).body).toEqual({ connectorEntries: [] });

    for (const json of [
      { contentConnectorType: 'FTP', configuration: {} },
      { contentConnectorType: 'S3', configuration: { bucket: 'b' } },
      { contentConnectorType: 'HTTP', configuration: { url: 'ftp://x' } },
      { contentConnectorType: 'HTTP', configuration: { url: 'http://x', color: 'red' } },
      { contentConnectorType: 'HTTP', configuration: { url: 'http://x', headers: { a: 1 } } },
      { contentConnectorType: 'HTTP' },
    ]) {
      const r = await create(json);
      expect({ json, status: r.status }).toEqual({ json, status: 400 });
      expect(typeof r.body.message).toBe('string');
    }
    // Secrets not given in an update keep their values (the import below still reads with them).
    expect((await call(`${s.api}/contentConnectors/${id}`, { method: 'PUT', auth: app, json: { configuration: { endpoint: s3.endpoint, bucket: 'packages', prefix: 'courses/', accessKeyId: 'S3RVER' } } })).status).toBe(204);
    expect((await call(`${s.api}/contentConnectors/${id}`, { method: 'PUT', auth: otherApp, json: { enabled: false } })).status).toBe(404);
    expect((await call(`${s.api}/contentConnectors/${id}`, { method: 'DELETE', auth: otherApp })).status).toBe(404);
    const done = await waitForImport(s.api, app, (await importFrom('from-s3', id, 'team/golf.zip')).body.result);
    expect(done).toMatchObject({ status: 'COMPLETE', importResult: { course: { id: 'from-s3' } } });

    expect((await call(`${s.api}/contentConnectors/${id}`, { method: 'PUT', auth: app, json: { enabled: false } })).status).toBe(204);
    expect((await importFrom('from-s3-2', id, 'team/golf.zip')).status).toBe(400);
    expect((await call(`${s.api}/contentConnectors/${id}`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect((await call(`${s.api}/contentConnectors`, { auth: app })).body).toEqual({ connectorEntries: [] });
  });

  it('imports from an HTTP connector with basic auth and headers; a missing object fails the job; bad references are 400', async () => {
    const id = (await create({ contentConnectorType: 'HTTP', configuration: { url: `${httpUrl}/library/`, username: 'lib', password: 'pw', headers: { 'X-Token': 't0k' } } })).body.result as string;
    const listed = (await call(`${s.api}/contentConnectors`, { auth: app })).body.connectorEntries.find((c: any) => c.connectorId === id);
    expect(listed.configuration).toEqual({ url: `${httpUrl}/library/`, username: 'lib' });
    const done = await waitForImport(s.api, app, (await importFrom('from-http', id, 'team/golf.zip')).body.result);
    expect(done).toMatchObject({ status: 'COMPLETE', importResult: { course: { id: 'from-http' } } });
    expect(seen.at(-1)).toMatchObject({ path: '/library/team/golf.zip', token: 't0k' });

    const missing = await waitForImport(s.api, app, (await importFrom('from-http-2', id, 'team/none.zip')).body.result);
    expect(missing.status).toBe('ERROR');
    expect((await importFrom('x1', id, '../secret.zip')).status).toBe(400);
    expect((await importFrom('x2', 'no-such-connector', 'a.zip')).status).toBe(400);
    const other = await call(`${s.api}/courses/importJobs/noUpload?courseId=x3`, { method: 'POST', auth: otherApp, json: { connectorReferenceRequest: { connectorId: id, connectorIdForContent: 'team/golf.zip' } } });
    expect(other.status).toBe(400);
  });

  it('the official client: CreateConnector, GetConnectorsList, UpdateConnector, an import by connectorReferenceRequest, DeleteConnector', async () => {
    const apiClient = createClients(s.api, { normal: [s.firstStart.application.appId, s.firstStart.application.secretKey] }).apiClient;
    const connectors = new sc.ContentConnectorsApi(apiClient);
    const courses = new sc.CourseApi(apiClient);
    const made = await op(connectors, 'createConnector', Object.assign(new sc.CreateConnectorSchema(), { contentConnectorType: 'HTTP', configuration: { url: `${httpUrl}/library`, username: 'lib', password: 'pw', headers: { 'X-Token': 't0k' } } }));
    const id = made.result as string;
    const list = await op(connectors, 'getConnectorsList', { includeAdditionalInstanceInformation: true });
    expect(list).toBeInstanceOf(sc.ConnectorListSchema);
    expect(list.connectorEntries.find((c: any) => c.connectorId === id)).toMatchObject({ contentConnectorType: 'HTTP', enabled: true, configuration: { url: `${httpUrl}/library`, username: 'lib' } });
    await op(connectors, 'updateConnector', id, Object.assign(new sc.UpdateConnectorSchema(), { enabled: true, configuration: { url: `${httpUrl}/library`, username: 'lib' } }));
    const request = Object.assign(new sc.ImportRequestSchema(), { connectorReferenceRequest: Object.assign(new sc.ImportConnectorRequestSchema(), { connectorId: id, connectorIdForContent: 'team/golf.zip' }) });
    const job = await op(courses, 'createNoUploadAndImportCourseJob', 'from-client', request, {});
    expect(await waitForImport(s.api, app, job.result)).toMatchObject({ status: 'COMPLETE' });
    await op(connectors, 'deleteConnector', id);
    expect((await op(connectors, 'getConnectorsList', {})).connectorEntries.some((c: any) => c.connectorId === id)).toBe(false);
  });
});

describe('content connectors under the outbound policy (private addresses refused)', () => {
  let s3: Awaited<ReturnType<typeof startS3Server>>;
  let s: TestServer;
  let app: string;

  beforeAll(async () => {
    s3 = await startS3Server('private');
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    await s3?.close();
  });

  it('an S3 endpoint or HTTP url at a loopback address (literal or by name) fails the import, saying why', async () => {
    const port = new URL(s3.endpoint).port;
    const configs = [
      { contentConnectorType: 'S3', configuration: { endpoint: `http://127.0.0.1:${port}`, bucket: 'private', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } },
      { contentConnectorType: 'S3', configuration: { endpoint: `http://localhost:${port}`, bucket: 'private', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } },
      { contentConnectorType: 'HTTP', configuration: { url: `http://localhost:${port}/private` } },
    ];
    for (const json of configs) {
      const id = (await call(`${s.api}/contentConnectors`, { method: 'POST', auth: app, json })).body.result as string;
      const started = await call(`${s.api}/courses/importJobs/noUpload?courseId=private-${id}`, { method: 'POST', auth: app, json: { connectorReferenceRequest: { connectorId: id, connectorIdForContent: 'golf.zip' } } });
      const done = await waitForImport(s.api, app, started.body.result);
      expect({ json, status: done.status, message: done.message }).toEqual({ json, status: 'ERROR', message: expect.stringMatching(/private or local network/) });
    }
  });
});
