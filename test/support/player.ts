import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, chromium, Frame, Page } from 'playwright-core';
import { ZipFile } from 'yazl';
import { basic, call, startTestServer, TestServer } from './test-server';

/** Debian's chromium with a fresh profile, never a downloaded browser. */
/** ignoreHTTPSErrors: accept the self-signed certificate of a test's TLS proxy (test/support/tls-proxy). */
export async function launchBrowser(options: { ignoreHTTPSErrors?: boolean } = {}): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const userDir = mkdtempSync(join(tmpdir(), 'lcds-chromium-'));
  const context = await chromium.launchPersistentContext(userDir, {
    executablePath: '/usr/bin/chromium',
    ...(options.ignoreHTTPSErrors ? { ignoreHTTPSErrors: true } : {}),
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDir, { recursive: true, force: true });
    },
  };
}

/** A zip of the given files, built in memory (test packages). */
export async function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Opens a page; LCDS_TEST_BROWSER_LOG=1 echoes the browser console. */
export async function openPage(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  page.on('dialog', (d) => void d.accept());
  const close = page.close.bind(page);
  page.close = (options) => closePage(page, () => close(options));
  if (process.env.LCDS_TEST_BROWSER_LOG) page.on('console', (m) => console.log('browser:', m.text())).on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.goto(url);
  return page;
}

/**
 * Closes a page, never waiting forever: headless chromium (156) now and then never reports the close of a page that
 * navigated from the player to an exit page (a few launches in a hundred), and Playwright's close has no timeout. The
 * page is then blanked and closed through CDP. openPage's pages close this way.
 */
export async function closePage(page: Page, close: () => Promise<void> = () => page.close()): Promise<void> {
  const pause = (ms: number) => new Promise<false>((r) => setTimeout(() => r(false), ms));
  const closed = close().then(() => true as const);
  if (await Promise.race([closed, pause(5000)])) return;
  await page.goto('about:blank', { timeout: 5000 }).catch(() => undefined);
  const cdp = await page.context().newCDPSession(page).catch(() => null);
  await cdp?.send('Page.close').catch(() => undefined);
  if (!(await Promise.race([closed, pause(10_000)]))) throw new Error(`the page (${page.url()}) did not close`);
}

/** Polls until `ok` holds (or the time is up) and returns the last value read. */
export async function waitFor<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Follows a launch link (its 303) to the player page; returns the page's URL and HTML. */
export async function followLaunch(baseUrl: string, launchLink: string): Promise<{ page: URL; html: string }> {
  const launched = await fetch(launchLink, { redirect: 'manual' });
  expect(launched.status).toBe(303);
  const page = new URL(launched.headers.get('location')!, baseUrl);
  return { page, html: await (await fetch(page)).text() };
}

/** What the tests of a browser test file share: the test server, the first application's basic auth, chromium. */
export interface PlayerBed {
  s: TestServer;
  app: string;
  context: BrowserContext;
}

/**
 * The set-up of a browser test file, before all its tests: a test server, the first application's credentials and
 * chromium, handed to `ready` (the file's own variables), then `setUp` (courses to import, routes to stub); after
 * all tests, `teardown`, then both are closed. Returns the registration calls of `learnerRegistrations`.
 */
export function playerTestBed(
  learner: { id: string; firstName?: string; lastName?: string },
  ready: (bed: PlayerBed) => void,
  setUp: () => Promise<void> = () => Promise.resolve(),
  options: { teardown?: () => void } = {},
) {
  let server: TestServer | undefined;
  let app = '';
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  beforeAll(async () => {
    server = await startTestServer();
    app = basic(server.firstStart.application.appId, server.firstStart.application.secretKey);
    browser = await launchBrowser();
    ready({ s: server, app, context: browser.context });
    await setUp();
  }, 120_000);
  afterAll(async () => {
    options.teardown?.();
    await browser?.close();
    await server?.close();
  });
  return learnerRegistrations(() => server!, () => app, learner);
}

/** Registration calls the player tests make; the server and credentials are read when called. */
export function learnerRegistrations(server: () => TestServer, auth: () => string, learner: { id: string; firstName?: string; lastName?: string }) {
  return {
    createReg: async (registrationId: string, courseId: string) =>
      expect((await call(`${server().api}/registrations`, { method: 'POST', auth: auth(), json: { registrationId, courseId, learner } })).status).toBe(204),
    link: async (registrationId: string, extra: Record<string, unknown> = {}) => {
      const r = await call(`${server().api}/registrations/${registrationId}/launchLink`, { method: 'POST', auth: auth(), json: { redirectOnExitUrl: 'message', ...extra } });
      expect(r.status).toBe(200);
      return r.body.launchLink as string;
    },
    progress: async (registrationId: string) =>
      (await call(`${server().api}/registrations/${registrationId}?includeRuntime=true&includeChildResults=true`, { auth: auth() })).body,
  };
}

/** A one-SCO package whose page runs `script` once it has found the API (in its parents, or its opener's). */
export async function scoPackage(version: '1.2' | '2004', script: string): Promise<Buffer> {
  const manifest =
    version === '1.2'
      ? `<?xml version="1.0"?><manifest identifier="gen12" version="1" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
<metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
<organizations default="org"><organization identifier="org"><title>Generated 1.2</title><item identifier="sco-1" identifierref="res-1"><title>The SCO</title></item></organization></organizations>
<resources><resource identifier="res-1" type="webcontent" adlcp:scormtype="sco" href="sco/index.html"><file href="sco/index.html"/></resource></resources></manifest>`
      : `<?xml version="1.0"?><manifest identifier="gen2004" version="1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3">
<metadata><schema>ADL SCORM</schema><schemaversion>2004 3rd Edition</schemaversion></metadata>
<organizations default="org"><organization identifier="org"><title>Generated 2004</title><item identifier="sco-1" identifierref="res-1"><title>The SCO</title></item></organization></organizations>
<resources><resource identifier="res-1" type="webcontent" adlcp:scormType="sco" href="sco/index.html"><file href="sco/index.html"/></resource></resources></manifest>`;
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>SCO</title><script>
function findAPI(w, name) { for (var i = 0; w && i < 10; i++) { if (w[name]) return w[name]; if (w.parent === w) break; w = w.parent; } return null; }
var API = findAPI(window, ${JSON.stringify(version === '1.2' ? 'API' : 'API_1484_11')}) || (window.opener ? findAPI(window.opener, ${JSON.stringify(version === '1.2' ? 'API' : 'API_1484_11')}) : null);
window.onload = function () { ${script} document.getElementById('state').textContent = 'ready'; };
</script></head><body><p id="state">loading</p><button id="finish" onclick="window.finish()">Finish</button></body></html>`;
  return zipOf({ 'imsmanifest.xml': manifest, 'sco/index.html': page });
}

/** What the player's navigation UI offers now: the selectable table-of-contents items, the visible enabled buttons. */
export function navUi(page: Page): Promise<{ choice: Array<string | undefined>; buttons: Array<string | null> }> {
  return page.evaluate(() => ({
    choice: Array.from(document.querySelectorAll<HTMLButtonElement>('#lcds-toc .lcds-item:not([disabled])')).map((b) => b.dataset.id),
    buttons: Array.from(document.querySelectorAll<HTMLButtonElement>('#lcds-bar button:not([hidden]):not([disabled])')).map((b) => b.textContent),
  }));
}

/** Waits until the navigation UI offers `expected` (it refreshes after each navigation and commit), then asserts it. */
export async function expectNavUi(page: Page, expected: { choice: string[]; buttons: string[] }): Promise<void> {
  const got = await waitFor(() => navUi(page), (v) => JSON.stringify(v) === JSON.stringify(expected));
  expect(got).toEqual(expected);
}

/** An activity of a registration's activityDetails, as the tests read it. */
export interface ActivityNode {
  id: string;
  attempts: number;
  activityCompletion: string;
  activitySuccess: string;
  score?: { scaled?: number };
  children?: ActivityNode[];
}

/**
 * id → "attempts completion success [score]" of the activities of a registration's progress: every activity, the
 * root included, or (`leavesOnly`) the SCOs.
 */
export function activityLines(p: { activityDetails: ActivityNode }, leavesOnly = false): Record<string, string> {
  const walk = (n: ActivityNode): ActivityNode[] => {
    const below = (n.children ?? []).flatMap(walk);
    return leavesOnly && n.children?.length ? below : [n, ...below];
  };
  return Object.fromEntries(walk(p.activityDetails).map((l) => [l.id, `${l.attempts} ${l.activityCompletion} ${l.activitySuccess}${l.score?.scaled !== undefined ? ` ${l.score.scaled}` : ''}`]));
}

/** The SCO frame of the player once it runs item `id` (its URL ends with `?id=<id>`) and the SCO set `window.ready`. */
export async function deliveredFrame(page: Page, id: string): Promise<Frame> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const f = (await (await page.$('#lcds-sco'))?.contentFrame()) ?? null;
    if (f && new RegExp(`[?&]id=${id}$`).test(f.url()) && (await f.evaluate('window.ready === true').catch(() => false))) return f;
    if (Date.now() > deadline) throw new Error(`the player never delivered ${id} (it shows ${f?.url()})`);
    await page.waitForTimeout(50);
  }
}

/** Sets data model elements of the running SCORM 2004 SCO (its `API`) and commits; resolves once the player sent it. */
export async function reportData(page: Page, frame: Frame, values: Record<string, string>): Promise<void> {
  await frame.evaluate((v) => {
    const api = (window as unknown as { API: { SetValue(k: string, x: string): string; Commit(x: string): string } }).API;
    for (const [k, x] of Object.entries(v)) api.SetValue(k, x);
    api.Commit('');
  }, values);
  await waitFor(() => page.evaluate<{ pending: boolean; sending: boolean }>('window.lcdsPlayer.state()'), (st) => !st.pending && !st.sending);
}
