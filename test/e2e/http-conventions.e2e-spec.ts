import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

describe('HTTP conventions: errors, limits, request ids, health, OpenAPI', () => {
  let s: TestServer;
  let mgmt: string;

  beforeAll(async () => {
    s = await startTestServer({ LCDS_JSON_BODY_LIMIT: '65536', LCDS_MAX_PACKAGE_BYTES: '100000' });
    mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
  });
  afterAll(async () => s?.close());

  it('answers malformed JSON with 400 and a message', async () => {
    const r = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, body: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/Malformed JSON/);
  });

  it('answers JSON nested too deep with 400 (validation walks it recursively), and accepts ordinary depth', async () => {
    const deep = `{"name":"a","x":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const r = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, body: deep, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/nested deeper than 100 levels/);
    const arrays = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, body: `[${'['.repeat(3000)}${']'.repeat(3000)}]`, headers: { 'content-type': 'application/json' } });
    expect(arrays.status).toBe(400);
    // Fifty levels are no problem: the request is refused for its unknown field, not for its depth.
    const fifty = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, body: `{"name":"a","x":${'['.repeat(50)}${']'.repeat(50)}}`, headers: { 'content-type': 'application/json' } });
    expect(fifty.status).toBe(400);
    expect(fifty.body.message).toMatch(/\bx\b/);
  });

  it('answers a body that is not what its Content-Encoding says with 400', async () => {
    for (const encoding of ['gzip', 'deflate']) {
      const r = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, body: '{"name":"a"}', headers: { 'content-type': 'application/json', 'content-encoding': encoding } });
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/could not be read/);
    }
    const gzipped = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, body: new Uint8Array(gzipSync('{"name":"zipped"}')), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect(gzipped.status).toBe(200);
  });

  it('names the bad field for wrong types, missing and unknown fields', async () => {
    const wrong = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 42 } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/^name/);
    const missing = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/name/);
    const extra = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'a', colour: 'red' } });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toMatch(/colour/);
    const notObject = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: ['a'] });
    expect(notObject.status).toBe(400);
  });

  it('refuses an oversized body with 413 and loses nothing', async () => {
    const before = await call(`${s.api}/appManagement/applications`, { auth: mgmt });
    const r = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'x'.repeat(70_000) } });
    expect(r.status).toBe(413);
    expect(r.body.message).toMatch(/65536/);
    const after = await call(`${s.api}/appManagement/applications`, { auth: mgmt });
    expect(after.body.applications).toHaveLength(before.body.applications.length);
  });

  it('refuses an oversized upload with 413 and keeps no partial file', async () => {
    const app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(300_000, 1)]), 'big.zip');
    const res = await fetch(`${s.api}/courses/importJobs/upload?courseId=big`, { method: 'POST', headers: { authorization: app }, body: form });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { message: string }).message).toMatch(/100000/);
    await new Promise((r) => setTimeout(r, 100));
    const dir = join(s.config.dataDir, 'tmp', 'uploads');
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    const garbled = await fetch(`${s.api}/courses/importJobs/upload?courseId=big`, {
      method: 'POST',
      headers: { authorization: app, 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\nabc',
    });
    expect(garbled.status).toBe(400);
  });

  it('answers unknown routes with 404 MessageSchema', async () => {
    const r = await call(`${s.api}/nothing/here`, { auth: mgmt });
    expect(r.status).toBe(404);
    expect(r.body.message).toMatch(/nothing/);
  });

  it('echoes a well-formed request id and makes one otherwise', async () => {
    const given = await call(`${s.api}/ping`, { auth: mgmt, headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await call(`${s.api}/ping`, { auth: mgmt, headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports liveness and readiness without credentials', async () => {
    expect((await call(`${s.baseUrl}/health/live`)).body).toEqual({ status: 'ok' });
    const ready = await call(`${s.baseUrl}/health/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body.info.database.status).toBe('up');
    if (s.config.redis) expect(ready.body.info.redis.status).toBe('up');
  });

  it('serves an OpenAPI document with the real operationIds', async () => {
    const doc = await call(`${s.api}/openapi.json`);
    expect(doc.status).toBe(200);
    const ids = Object.values(doc.body.paths as Record<string, Record<string, { operationId: string }>>).flatMap((p) => Object.values(p).map((o) => o.operationId));
    for (const id of ['PingAppId', 'GetAbout', 'GetApplications', 'GetApplicationList', 'CreateApplication', 'GetApplicationInfo', 'UpdateApplication', 'DeleteApplication', 'GetCredentials', 'CreateCredential', 'UpdateCredential', 'DeleteCredential', 'CreateToken', 'GetAppToken']) {
      expect(ids).toContain(id);
    }
    expect(doc.body.paths['/api/v2/ping'].get.operationId).toBe('PingAppId');
  });
});
