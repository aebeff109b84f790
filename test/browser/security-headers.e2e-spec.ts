import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { importCourse } from '../support/courses';
import { playerTestBed, scoPackage, waitFor } from '../support/player';
import { call, type TestServer } from '../support/test-server';

/**
 * #22 point 10: the pages LCDS serves send a Content-Security-Policy that their own scripts live with (no violation
 * while a learner takes a course), the player may be framed by another site (an LMS, a dispatch package) while the
 * console may not, and API answers are not stored by caches.
 */
describe('security headers: page policies, framing rules, no-store API answers', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  let other: Server;
  let otherOrigin = '';
  const learner = { id: 'sec-learner', firstName: 'Grace', lastName: 'Hopper' };
  const otherPages = new Map<string, string>();

  const { createReg, link, progress } = playerTestBed(
    learner,
    (bed) => ({ s, app, context } = bed),
    async () => {
      const sco = await scoPackage(
        '2004',
        `API.Initialize('');
         window.finish = function () { API.SetValue('cmi.completion_status', 'completed'); API.SetValue('cmi.success_status', 'passed'); API.Commit(''); API.Terminate(''); };`,
      );
      await importCourse(s.api, app, 'sec2004', { name: 'sec.zip', data: sco, type: 'application/zip' });
      other = createServer((req, res) => {
        if (req.url === '/player.css') {
          res.writeHead(200, { 'content-type': 'text/css', 'access-control-allow-origin': '*' });
          res.end('#lcds-sco { outline: 3px solid rgb(1, 2, 3); }');
          return;
        }
        const html = otherPages.get(req.url ?? '');
        res.writeHead(html ? 200 : 404, { 'content-type': 'text/html' });
        res.end(html ?? 'not found');
      });
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.2', resolve));
      otherOrigin = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
    },
    { teardown: () => other?.close() },
  );

  /** Collects CSP violations of the page and its frames (reported by chromium as console errors). */
  function violations(page: Page): string[] {
    const seen: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) seen.push(m.text());
    });
    return seen;
  }

  it('the player page keeps to its policy while a learner takes a course framed by another site, with a cssUrl stylesheet', async () => {
    await createReg('sec-r1', 'sec2004');
    const launch = await link('sec-r1', { cssUrl: `${otherOrigin}/player.css` });
    const direct = await fetch(launch, { redirect: 'follow' });
    const csp = direct.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain('frame-ancestors *');
    expect(csp).toContain(`style-src 'self' 'unsafe-inline' ${otherOrigin}`);
    expect(direct.headers.get('x-frame-options')).toBeNull();
    expect(direct.headers.get('referrer-policy')).toBe('no-referrer');
    expect(direct.headers.get('x-content-type-options')).toBe('nosniff');

    // A fresh link: the first one's session was opened by the fetch above.
    const framed = await link('sec-r1', { cssUrl: `${otherOrigin}/player.css` });
    otherPages.set('/lms.html', `<!doctype html><title>LMS</title><iframe id="player" src="${framed}" style="width:900px;height:600px"></iframe>`);
    const page = await context.newPage();
    const seen = violations(page);
    await page.goto(`${otherOrigin}/lms.html`);
    const player = (await waitFor(
      () => Promise.resolve(page.frames().find((f) => f.url().startsWith(`${s.baseUrl}/player/s/`))),
      (f) => f !== undefined,
    )) as Frame;
    const sco = player.frameLocator('#lcds-sco');
    await sco.locator('#state').filter({ hasText: 'ready' }).waitFor();
    // The launch link's stylesheet from another origin applied.
    expect(await player.locator('#lcds-sco').evaluate((el) => getComputedStyle(el).outlineColor)).toBe('rgb(1, 2, 3)');
    await sco.locator('#finish').evaluate((b: HTMLButtonElement) => b.click());
    const p = await waitFor(() => progress('sec-r1'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p.registrationSuccess).toBe('PASSED');
    expect(seen).toEqual([]);
    await page.close();
  }, 60_000);

  it('the console refuses to be framed by another site; the report viewer by any but LCDS', async () => {
    const consolePage = await fetch(`${s.baseUrl}/console/`);
    expect(consolePage.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(consolePage.headers.get('x-frame-options')).toBe('DENY');
    const viewer = await fetch(`${s.baseUrl}/reports/`);
    expect(viewer.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    expect(viewer.headers.get('x-frame-options')).toBe('SAMEORIGIN');

    otherPages.set('/frame-console.html', `<!doctype html><title>evil</title><iframe id="c" src="${s.baseUrl}/console/"></iframe>`);
    const page = await context.newPage();
    const seen = violations(page);
    await page.goto(`${otherOrigin}/frame-console.html`);
    await waitFor(() => Promise.resolve(seen.length), (n) => n > 0);
    expect(seen.join('\n')).toMatch(/frame-ancestors/);
    // Nothing of the console rendered inside the frame.
    const consoleFrame = page.frames().find((f) => f.url().startsWith(`${s.baseUrl}/console`));
    const rendered = consoleFrame ? await consoleFrame.evaluate(() => document.body?.innerText ?? '').catch(() => '') : '';
    expect(rendered).toBe('');
    await page.close();
  }, 60_000);

  it('API and LRS answers carry no-store and nosniff; content keeps its own caching', async () => {
    const ping = await call(`${s.api}/ping`, { auth: app });
    expect(ping.status).toBe(200);
    expect(ping.headers.get('cache-control')).toBe('no-store');
    expect(ping.headers.get('x-content-type-options')).toBe('nosniff');
    const keys = await call(`${s.api}/appManagement/${s.firstStart.application.appId}/credentials`, {
      auth: `Basic ${Buffer.from(`${s.firstStart.management.appId}:${s.firstStart.management.secretKey}`).toString('base64')}`,
    });
    expect(keys.status).toBe(200);
    expect(keys.headers.get('cache-control')).toBe('no-store');
    const unauthorised = await call(`${s.api}/registrations`);
    expect(unauthorised.status).toBe(401);
    expect(unauthorised.headers.get('cache-control')).toBe('no-store');
    const lrs = await call(`${s.baseUrl}/lrs/${s.firstStart.application.appId}/about`);
    expect(lrs.headers.get('cache-control')).toBe('no-store');
  });
});
