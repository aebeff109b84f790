import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { scoPackage, waitFor } from '../support/player';
import { importCourse } from '../support/courses';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  data: any;
}

/**
 * What an invitation's launches do beyond the page: its postBack receives the registration's data as a registration
 * postback does (a real HTTP peer, with HTTP basic auth), and WhenToRestartRegistration applies as it does to a
 * registration's launch link (no browser: the player's own commit requests).
 */
describe('invitation launches: postBack and WhenToRestartRegistration', () => {
  let s: TestServer;
  let app: string;
  let peer: Server;
  let peerUrl = '';
  const received: Received[] = [];

  beforeAll(async () => {
    peer = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        // JSON, or a form whose `data` field holds it (a postBack with no authType).
        const form = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded') ? new URLSearchParams(raw) : null;
        received.push({ path: req.url ?? '/', headers: req.headers, data: JSON.parse(form ? (form.get('data') ?? 'null') : raw) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true', LCDS_POSTBACK_BACKOFF_MS: '100' });
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'one', { name: 'one.zip', data: await scoPackage('1.2', ''), type: 'application/zip' });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await new Promise<void>((resolve) => peer.close(() => resolve()));
  });

  const createPublic = async (extra: Record<string, unknown> = {}) => {
    const r = await call(`${s.api}/invitations/public`, { method: 'POST', auth: app, json: { courseId: 'one', creatingUserEmail: 'owner@example.com', ...extra } });
    expect(r.status).toBe(200);
    return { id: r.body.id as string, url: r.body.url as string };
  };
  /** A visitor fills in the public page and follows the launch (no browser); answers the session's commit function. */
  const join = async (pageUrl: string, person: { firstName: string; lastName: string; email: string }) => {
    const form = await fetch(pageUrl, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(person).toString() });
    expect(form.status).toBe(303);
    return open(new URL(form.headers.get('location')!, s.baseUrl).toString());
  };
  const open = async (launchLink: string) => {
    const res = await fetch(launchLink, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const player = new URL(res.headers.get('location')!, s.baseUrl).toString();
    return async (seq: number, cmi: Record<string, string>, final = false) => {
      const r = await fetch(`${player}commit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seq, activityId: 'sco-1', cmi, final }) });
      expect(r.status).toBe(200);
    };
  };
  const registrationOf = async (kind: 'public' | 'private', id: string, email: string) => {
    const users = (await call(`${s.api}/invitations/${kind}/${id}/userInvitations`, { auth: app })).body.userInvitations as Array<{ email: string; registrationId?: string; url: string }>;
    return users.find((u) => u.email === email)!;
  };

  it('a public invitation postBack: the registration data reaches the peer with its basic auth once the visitor completes', async () => {
    const inv = await createPublic({ postBack: { url: `${peerUrl}/public`, authType: 'HTTPBASIC', userName: 'hook', password: 's3cret', resultsFormat: 'COURSE' } });
    const commit = await join(inv.url, { firstName: 'Grace', lastName: 'Hopper', email: 'Grace@Example.com' });
    await commit(1, { 'cmi.core.lesson_status': 'completed', 'cmi.core.session_time': '00:00:10' }, true);
    const { registrationId } = await registrationOf('public', inv.id, 'Grace@Example.com');
    const got = await waitFor(
      () => Promise.resolve(received.filter((r) => r.path === '/public')),
      (list) => list.some((r) => r.data.registrationCompletion === 'COMPLETED'),
      20_000,
    );
    const done = got.find((r) => r.data.registrationCompletion === 'COMPLETED');
    expect(done?.data).toMatchObject({ id: registrationId, course: { id: 'one' }, learner: { id: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper' } });
    for (const r of got) expect(r.headers.authorization).toBe(`Basic ${Buffer.from('hook:s3cret').toString('base64')}`);
    // The postBack is the invitation's: the registration shows it (never its password).
    expect((await call(`${s.api}/invitations/public/${inv.id}`, { auth: app })).body.postBack).toEqual({ url: `${peerUrl}/public`, authType: 'HTTPBASIC', userName: 'hook', resultsFormat: 'COURSE' });
  });

  it('a private invitation postBack: the learner following its own link (the one its e-mail carries) reaches the peer too', async () => {
    const created = await call(`${s.api}/invitations/private`, {
      method: 'POST',
      auth: app,
      json: { courseId: 'one', creatingUserEmail: 'owner@example.com', invitationEmail: { addresses: ['ada@example.com'] }, postBack: { url: `${peerUrl}/private`, resultsFormat: 'COURSE' } },
    });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    await waitFor(async () => (await call(`${s.api}/invitations/private/${id}/jobStatus`, { auth: app })).body, (st) => st.status === 'COMPLETE', 20_000);
    const user = await registrationOf('private', id, 'ada@example.com');
    const link = await fetch(user.url, { redirect: 'manual' });
    expect(link.status).toBe(303);
    const commit = await open(new URL(link.headers.get('location')!, s.baseUrl).toString());
    await commit(1, { 'cmi.core.lesson_status': 'passed' }, true);
    const got = await waitFor(
      () => Promise.resolve(received.filter((r) => r.path === '/private')),
      (list) => list.some((r) => r.data.registrationSuccess === 'PASSED'),
      20_000,
    );
    expect(got.find((r) => r.data.registrationSuccess === 'PASSED')?.data).toMatchObject({ id: user.registrationId, learner: { id: 'ada@example.com' } });
  });

  it('WhenToRestartRegistration: a visitor who completed and comes back gets a new instance when the setting says so, not otherwise', async () => {
    const instances = async (registrationId: string) =>
      ((await call(`${s.api}/registrations/${registrationId}/instances`, { auth: app })).body.registrations as Array<{ instance: number; registrationCompletion: string }>).map(
        (r) => `${r.instance}: ${r.registrationCompletion}`,
      );
    const person = (email: string) => ({ firstName: 'Re', lastName: 'Turn', email });
    // The default (complete and a newer version): no newer version, so coming back resumes the completed instance.
    const plain = await createPublic();
    await (await join(plain.url, person('stay@example.com')))(1, { 'cmi.core.lesson_status': 'completed' }, true);
    await join(plain.url, person('stay@example.com'));
    expect(await instances((await registrationOf('public', plain.id, 'stay@example.com')).registrationId!)).toEqual(['0: COMPLETED']);

    // WHEN_EXISTING_REG_IS_COMPLETE on the course: the visitor's second launch runs a new instance.
    const restarting = await createPublic();
    const r = await call(`${s.api}/courses/one/configuration`, { method: 'POST', auth: app, json: { settings: [{ settingId: 'WhenToRestartRegistration', value: 'WHEN_EXISTING_REG_IS_COMPLETE' }] } });
    expect(r.status).toBe(204);
    await join(restarting.url, person('again@example.com'));
    const registrationId = (await registrationOf('public', restarting.id, 'again@example.com')).registrationId!;
    // Not complete yet: coming back resumes instance 0 (this launch is the one that reports).
    const resumed = await join(restarting.url, person('again@example.com'));
    expect(await instances(registrationId)).toEqual(['0: UNKNOWN']);
    await resumed(1, { 'cmi.core.lesson_status': 'completed' }, true);
    const second = await join(restarting.url, person('again@example.com'));
    expect(await instances(registrationId)).toEqual(['0: COMPLETED', '1: UNKNOWN']);
    await second(1, { 'cmi.core.lesson_status': 'incomplete' }, true);
    expect((await call(`${s.api}/registrations/${registrationId}`, { auth: app })).body).toMatchObject({ instance: 1, registrationCompletion: 'INCOMPLETE' });
  });
});
