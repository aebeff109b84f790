import { importCourse } from '../support/courses';
import { launchBrowser, learnerRegistrations, openPage, scoPackage, waitFor } from '../support/player';
import { basic, startTestServer, TestServer } from '../support/test-server';

/**
 * launchAuth of BuildRegistrationLaunchLink: the cookie of `cookies` ties the session to the browser that claimed the
 * link (a second browser replaying the session URL is refused); ipAddress, fingerprint, expiry and slidingExpiry end
 * or refuse the session as documented in docs/launch-auth.md. The test server trusts X-Forwarded-For (LCDS_TRUST_PROXY).
 */
describe('player: launchAuth binds the player session (cookie, address, fingerprint, expiry)', () => {
  let s: TestServer;
  let app = '';
  let a: Awaited<ReturnType<typeof launchBrowser>>;
  let b: Awaited<ReturnType<typeof launchBrowser>>;
  const regs = learnerRegistrations(() => s, () => app, { id: 'la-learner', firstName: 'Ada' });
  let n = 0;
  /** A fresh registration of the course and a launch link with these extra fields. */
  const link = async (extra: Record<string, unknown>) => {
    const id = `la-${++n}`;
    await regs.createReg(id, 'la12');
    return { id, link: await regs.link(id, extra) };
  };
  /** Claims a link over HTTP with these headers: the session URL and the Set-Cookie header. */
  const claim = async (launchLink: string, headers: Record<string, string> = {}) => {
    const r = await fetch(launchLink, { redirect: 'manual', headers });
    expect(r.status).toBe(303);
    return { page: new URL(r.headers.get('location')!, s.baseUrl).href, setCookie: r.headers.get('set-cookie') };
  };
  const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers }).then(async (r) => ({ status: r.status, text: await r.text() }));
  const commit = (page: string, headers: Record<string, string> = {}) =>
    fetch(`${page}commit`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ seq: 1, activityId: 'sco-1', cmi: { 'cmi.core.lesson_status': 'incomplete' } }) }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { result: boolean; message?: string },
    }));

  beforeAll(async () => {
    s = await startTestServer({ LCDS_TRUST_PROXY: 'true' });
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    [a, b] = await Promise.all([launchBrowser(), launchBrowser()]);
    const sco = await scoPackage('1.2', `API.LMSInitialize(''); API.LMSSetValue('cmi.core.lesson_location', 'p7'); API.LMSSetValue('cmi.core.lesson_status', 'incomplete'); API.LMSCommit('');`);
    await importCourse(s.api, app, 'la12', { name: 'la12.zip', data: sco, type: 'application/zip' });
  }, 120_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await s?.close();
  });

  it('cookies: the session works in the browser that launched it; the same session URL in a second browser is refused', async () => {
    const { id, link: url } = await link({ launchAuth: { type: 'cookies' } });
    const page = await openPage(a.context, url);
    await page.frameLocator('#lcds-sco').locator('#state').filter({ hasText: 'ready' }).waitFor();
    const p = await waitFor(() => regs.progress(id), (x) => x.activityDetails?.children?.[0]?.runtime?.location === 'p7');
    expect(p.activityDetails.children[0].runtime.location).toBe('p7');
    const cookies = await a.context.cookies(page.url());
    const cookie = cookies.find((c) => c.name.startsWith('lcds_la_'));
    expect(cookie).toMatchObject({ httpOnly: true, path: '/player/', sameSite: 'Lax', secure: false });
    // The same session URL in another browser (no cookie): a plain page saying so, and its requests refused.
    const replay = await b.context.newPage();
    const res = await replay.goto(page.url());
    expect(res!.status()).toBe(403);
    expect(await replay.locator('h1').textContent()).toBe('This session belongs to another browser');
    await replay.close();
    expect(await commit(page.url())).toMatchObject({ status: 403, body: { result: false, message: expect.stringMatching(/another browser/) } });
    expect((await get(`${page.url()}content/sco/index.html`)).status).toBe(403);
    const nav = await fetch(`${page.url()}activity`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"activityId":"sco-1"}' });
    expect(nav.status).toBe(403);
    // A forged cookie does not pass either; the right one does.
    expect((await get(page.url(), { cookie: `${cookie!.name}=forged` })).status).toBe(403);
    expect((await get(page.url(), { cookie: `${cookie!.name}=${cookie!.value}` })).status).toBe(200);
    await page.close();
  });

  it('cookies: the Set-Cookie of the claim is HttpOnly, scoped to /player/, Lax over http; without launchAuth no cookie and the URL works anywhere', async () => {
    const bound = await claim((await link({ launchAuth: {} })).link);
    expect(bound.setCookie).toMatch(/^lcds_la_[0-9a-f]{32}=[\w-]{43}; Path=\/player\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    expect((await get(bound.page)).status).toBe(403);
    const free = await claim((await link({})).link);
    expect(free.setCookie).toBeNull();
    expect((await get(free.page)).status).toBe(200);
    expect((await commit(free.page)).status).toBe(200);
  });

  it('vault: no cookie (cookieless); the session URL works without one, its options still apply', async () => {
    const vault = await claim((await link({ launchAuth: { type: 'vault' } })).link);
    expect(vault.setCookie).toBeNull();
    expect((await get(vault.page)).status).toBe(200);
    const bound = await claim((await link({ launchAuth: { type: 'vault', options: { ipAddress: true } } })).link, { 'x-forwarded-for': '198.51.100.7' });
    expect((await get(bound.page, { 'x-forwarded-for': '198.51.100.7' })).status).toBe(200);
    expect((await get(bound.page, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(403);
  });

  it('LaunchAuthType: a launchAuth that names no type takes the setting (vault: no cookie); a named type wins over it', async () => {
    const { id } = await link({});
    const configured = await fetch(`${s.api}/registrations/${id}/configuration`, {
      method: 'POST',
      headers: { authorization: app, 'content-type': 'application/json' },
      body: JSON.stringify({ settings: [{ settingId: 'LaunchAuthType', value: 'vault' }] }),
    });
    expect(configured.status).toBe(204);
    const untyped = await claim(await regs.link(id, { launchAuth: { options: { expiry: 600 } } }));
    expect(untyped.setCookie).toBeNull();
    expect((await get(untyped.page)).status).toBe(200);
    const typed = await claim(await regs.link(id, { launchAuth: { type: 'cookies' } }));
    expect(typed.setCookie).toMatch(/^lcds_la_/);
    expect((await get(typed.page)).status).toBe(403);
    // Another registration, not configured: the default (cookies).
    expect((await claim((await link({ launchAuth: { options: { expiry: 600 } } })).link)).setCookie).toMatch(/^lcds_la_/);
  });

  it('ipAddress: requests from another client address (X-Forwarded-For, trusted) are refused, page, commits and content', async () => {
    const { page, setCookie } = await claim((await link({ launchAuth: { options: { ipAddress: true } } })).link, { 'x-forwarded-for': '198.51.100.7, 10.0.0.1' });
    const cookie = setCookie!.split(';')[0];
    expect((await get(page, { cookie, 'x-forwarded-for': '198.51.100.7' })).status).toBe(200);
    expect(await commit(page, { cookie, 'x-forwarded-for': '198.51.100.7' })).toMatchObject({ status: 200, body: { result: true } });
    const other = await get(page, { cookie, 'x-forwarded-for': '203.0.113.9' });
    expect(other).toMatchObject({ status: 403, text: expect.stringContaining('another network address') });
    expect(await commit(page, { cookie, 'x-forwarded-for': '203.0.113.9' })).toMatchObject({ status: 403, body: { result: false } });
    expect((await get(`${page}content/sco/index.html`, { cookie, 'x-forwarded-for': '203.0.113.9' })).status).toBe(403);
  });

  it('fingerprint: another User-Agent or Accept-Language is refused', async () => {
    const headers = { 'user-agent': 'Browser/1.0', 'accept-language': 'fr-FR' };
    const { page } = await claim((await link({ launchAuth: { type: 'vault', options: { fingerprint: true } } })).link, headers);
    expect((await get(page, headers)).status).toBe(200);
    expect((await get(page, { ...headers, 'accept-language': 'en-US' })).status).toBe(403);
    expect((await get(page, { ...headers, 'user-agent': 'Other/2.0' })).status).toBe(403);
  });

  it('expiry: the session ends that many seconds after the launch', async () => {
    const { page, setCookie } = await claim((await link({ launchAuth: { options: { expiry: 2 } } })).link);
    const cookie = setCookie!.split(';')[0];
    expect(setCookie).toMatch(/Max-Age=[12];/);
    expect((await get(page, { cookie })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2200));
    const ended = await get(page, { cookie });
    expect(ended).toMatchObject({ status: 410, text: expect.stringContaining('This session has ended') });
    expect((await commit(page, { cookie })).status).toBe(410);
  });

  it('slidingExpiry: the session lives on while used, and ends after that long without a request', async () => {
    const { page } = await claim((await link({ launchAuth: { type: 'vault', options: { slidingExpiry: 2 } } })).link);
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      expect((await commit(page)).status).toBe(200);
    }
    await new Promise((r) => setTimeout(r, 2300));
    expect(await get(page)).toMatchObject({ status: 410, text: expect.stringContaining('without activity') });
  }, 20_000);
});
