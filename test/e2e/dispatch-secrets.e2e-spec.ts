import { createHmac, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DispatchesService } from '../../src/modules/dispatch/dispatches.service';
import { fixture, importCourse } from '../support/courses';
import { unzip } from '../support/dispatch-lms';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * #20: a dispatch's secret (the packages' signing key, the LTI 1.1 shared secret) is stored sealed with the KeyRing;
 * a secret stored in clear by an earlier version still works and is sealed at the next start.
 */
describe('dispatch secrets are stored sealed', () => {
  let s: TestServer;
  let app: string;
  let db: DataSource;

  const stored = async (id: string) => (await db.query<Array<{ v: string }>>('SELECT secret AS v FROM dispatch WHERE id = ?', [id]))[0].v;
  const lti = async (id: string) => (await call(`${s.api}/dispatch/dispatches/${id}/lti`, { auth: app })).body as { consumerKey: string; sharedSecret: string };
  /** A package launch token as the package's page makes it, signed with `secret`. */
  const launchWith = async (key: string, secret: string) => {
    const payload = Buffer.from(JSON.stringify({ k: key, l: `learner-${randomBytes(3).toString('hex')}`, n: 'Doe, Jo', o: 'http://lms.example.test', t: Math.floor(Date.now() / 1000), r: randomBytes(12).toString('base64url') })).toString('base64url');
    const token = `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url')}`;
    return (await call(`${s.baseUrl}/dispatch/launch?token=${encodeURIComponent(token)}`)).status;
  };

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    db = s.app.get(DataSource);
    await importCourse(s.api, app, 'golf', fixture('scorm12-golf-runtime-basic.zip'));
    expect((await call(`${s.api}/dispatch/destinations`, { method: 'POST', auth: app, json: { destinations: [{ id: 'lms', data: { name: 'LMS' } }] } })).status).toBe(204);
    const dispatches = ['d1', 'd2'].map((id) => ({ id, data: { destinationId: 'lms', courseId: 'golf' } }));
    expect((await call(`${s.api}/dispatch/dispatches`, { method: 'POST', auth: app, json: { dispatches } })).status).toBe(204);
  });
  afterAll(async () => s?.close());

  it('the row holds the secret sealed, not in clear; the package and GetLtiDispatch give it in clear; launches work', async () => {
    const { consumerKey, sharedSecret } = await lti('d1');
    expect(sharedSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = await stored('d1');
    expect(row).toMatch(/^v1\./);
    expect(row).not.toContain(sharedSecret);
    const zip = await unzip(Buffer.from(await (await fetch(`${s.api}/dispatch/dispatches/d1/zip`, { headers: { authorization: app } })).arrayBuffer()));
    expect(zip.get('index.html')!.toString()).toContain(`"secret":"${sharedSecret}"`);
    expect(await launchWith(consumerKey, sharedSecret)).toBe(200);
    expect(await launchWith(consumerKey, row)).toBe(400);
  });

  it('a secret stored in clear (before secrets were sealed) still launches, and the start seals it', async () => {
    const { consumerKey } = await lti('d2');
    const plain = randomBytes(32).toString('base64url');
    await db.query('UPDATE dispatch SET secret = ? WHERE id = ?', [plain, 'd2']);
    expect((await lti('d2')).sharedSecret).toBe(plain);
    expect(await launchWith(consumerKey, plain)).toBe(200);

    expect(await s.app.get(DispatchesService).sealPlainSecrets()).toBe(1);
    expect(await s.app.get(DispatchesService).sealPlainSecrets()).toBe(0);
    const row = await stored('d2');
    expect(row).toMatch(/^v1\./);
    expect(row).not.toContain(plain);
    expect((await lti('d2')).sharedSecret).toBe(plain);
    expect(await launchWith(consumerKey, plain)).toBe(200);
  });
});
