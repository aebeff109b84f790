import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { importCourse } from '../support/courses';
import { launchBrowser, learnerRegistrations, openPage, scoPackage, waitFor } from '../support/player';
import { basic, startTestServer, TestServer } from '../support/test-server';
import { startTlsProxy, type TlsProxy } from '../support/tls-proxy';

/**
 * launchAuth `cookies` over https, as LCDS runs in production (behind a TLS proxy; PUBLIC_URL https): the session
 * cookie is Secure, SameSite=None and Partitioned, so the player keeps working when an LMS on another site frames it
 * (a Lax cookie would not be sent from that frame), and it still binds the session to the browser that claimed it.
 */
describe('player: launchAuth cookies over https (Secure, SameSite=None, Partitioned), top level and framed by another site', () => {
  let proxy: TlsProxy;
  let s: TestServer;
  let app = '';
  let lms: Server;
  let lmsUrl = '';
  let a: Awaited<ReturnType<typeof launchBrowser>>;
  let b: Awaited<ReturnType<typeof launchBrowser>>;
  const regs = learnerRegistrations(() => s, () => app, { id: 'https-learner', firstName: 'Grace' });
  let n = 0;
  const link = async () => {
    const id = `https-${++n}`;
    await regs.createReg(id, 'https12');
    return { id, link: await regs.link(id, { launchAuth: { type: 'cookies' } }) };
  };
  const located = (id: string) => waitFor(() => regs.progress(id), (x) => x.activityDetails?.children?.[0]?.runtime?.location === 'p9');

  beforeAll(async () => {
    proxy = await startTlsProxy();
    s = await startTestServer({ PUBLIC_URL: proxy.baseUrl, LCDS_TRUST_PROXY: 'true' });
    proxy.setUpstream(Number(new URL(s.baseUrl).port));
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    // The LMS: a page on another site (http://localhost, not 127.0.0.1) that frames the launch link it is given.
    lms = createServer((req, res) => {
      const target = new URL(req.url ?? '/', 'http://localhost').searchParams.get('launch') ?? '';
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>LMS</title><iframe id="course" style="width:900px;height:600px" src="${target.replace(/"/g, '&quot;')}"></iframe>`);
    });
    await new Promise<void>((resolve) => lms.listen(0, '127.0.0.1', resolve));
    lmsUrl = `http://localhost:${(lms.address() as AddressInfo).port}/lms`;
    [a, b] = await Promise.all([launchBrowser({ ignoreHTTPSErrors: true }), launchBrowser({ ignoreHTTPSErrors: true })]);
    const sco = await scoPackage('1.2', `API.LMSInitialize(''); API.LMSSetValue('cmi.core.lesson_location', 'p9'); API.LMSSetValue('cmi.core.lesson_status', 'incomplete'); API.LMSCommit('');`);
    await importCourse(s.api, app, 'https12', { name: 'https12.zip', data: sco, type: 'application/zip' });
  }, 120_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await s?.close();
    await proxy?.close();
    await new Promise((resolve) => lms?.close(resolve));
  });

  it('a top-level launch over https sets a Secure, SameSite=None, Partitioned HttpOnly cookie; the session URL in another browser is refused', async () => {
    const { id, link: url } = await link();
    expect(url.startsWith(`${proxy.baseUrl}/player/launch/`)).toBe(true);
    const claim = await fetch(url.replace(proxy.baseUrl, s.baseUrl), { redirect: 'manual' });
    expect(claim.headers.get('set-cookie')).toMatch(/^lcds_la_[0-9a-f]{32}=[\w-]{43}; Path=\/player\/; Max-Age=\d+; HttpOnly; Secure; SameSite=None; Partitioned$/);

    const { id: id2, link: url2 } = await link();
    const page = await openPage(a.context, url2);
    expect(page.url().startsWith(`${proxy.baseUrl}/player/s/`)).toBe(true);
    await page.frameLocator('#lcds-sco').locator('#state').filter({ hasText: 'ready' }).waitFor();
    expect((await located(id2)).activityDetails.children[0].runtime.location).toBe('p9');
    const cookie = (await a.context.cookies(page.url())).find((c) => c.name.startsWith('lcds_la_'));
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'None', path: '/player/' });
    const replay = await b.context.newPage();
    const res = await replay.goto(page.url());
    expect(res!.status()).toBe(403);
    expect(await replay.locator('h1').textContent()).toBe('This session belongs to another browser');
    await replay.close();
    await page.close();
    expect(id).not.toBe(id2);
  });

  it('framed by an LMS on another site, the player runs and commits with its partitioned cookie; the same session URL elsewhere is refused', async () => {
    const { id, link: url } = await link();
    const lmsPage = await openPage(a.context, `${lmsUrl}?launch=${encodeURIComponent(url)}`);
    const player = lmsPage.frameLocator('#course');
    await player.frameLocator('#lcds-sco').locator('#state').filter({ hasText: 'ready' }).waitFor();
    // The SCO's commit went through the cookie check: the registration has its location.
    expect((await located(id)).activityDetails.children[0].runtime.location).toBe('p9');
    const frame = lmsPage.frames().find((f) => f.url().startsWith(`${proxy.baseUrl}/player/s/`));
    expect(frame).toBeDefined();
    // The cookie lives in the LMS site's partition, not as a first-party cookie of LCDS's site.
    const cookies = await a.context.cookies(frame!.url());
    const partitioned = cookies.filter((c) => c.name.startsWith('lcds_la_') && c.partitionKey);
    expect(partitioned.length).toBeGreaterThanOrEqual(1);
    expect(partitioned.every((c) => c.secure && c.sameSite === 'None')).toBe(true);
    const replay = await b.context.newPage();
    expect((await replay.goto(frame!.url()))!.status()).toBe(403);
    await replay.close();
    await lmsPage.close();
  });
});
