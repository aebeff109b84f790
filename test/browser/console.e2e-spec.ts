import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { FIXTURES } from '../support/courses';
import { launchBrowser } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';
import { ensureWebBuilt, screenshot, tableRows } from '../support/web';

/**
 * The console in chromium, signed in with the first application's key: a course uploaded with the upload's and
 * the import's progress, the settings editor showing an inherited value with the level it comes from (and
 * changing it at the course level), registrations with their actions, at 1280 and 390 px.
 */
describe('console (chromium)', () => {
  let s: TestServer;
  let auth: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  beforeAll(async () => {
    ensureWebBuilt();
    s = await startTestServer();
    auth = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${s.baseUrl}/`);
    await page.getByLabel('Application id').fill(s.firstStart.application.appId);
    await page.getByLabel('Secret key').fill(s.firstStart.application.secretKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('a wrong key is refused with a message', async () => {
    const other = await browser.context.newPage();
    await other.goto(`${s.baseUrl}/console/`);
    await other.evaluate(() => sessionStorage.clear());
    await other.reload();
    await other.getByLabel('Application id').fill(s.firstStart.application.appId);
    await other.getByLabel('Secret key').fill('not-the-key');
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.getByText('The application id or secret key is not right.').waitFor();
    await other.close();
  });

  it('uploads a course with the upload and import progress, then lists it', async () => {
    await page.getByRole('link', { name: 'Courses' }).click();
    await page.getByRole('heading', { level: 1, name: 'Courses' }).waitFor();
    await page.getByLabel('Course id').fill('golf');
    await page.getByLabel('Package (.zip, or a PDF/media file)').setInputFiles(join(FIXTURES, 'packages', 'scorm2004-3rd-golf-runtime-basic.zip'));
    await page.getByRole('button', { name: 'Upload and import' }).click();
    await page.getByText('Course golf is imported.').waitFor({ timeout: 30_000 });
    expect(await page.locator('#upload-progress').getAttribute('value')).toBe('100');
    expect(await page.locator('#import-progress').getAttribute('value')).toBe('100');
    expect(await page.getByText('Import: complete').count()).toBe(1);
    await page.getByRole('cell', { name: 'golf', exact: true }).waitFor();
    const rows = await tableRows(page, 'Courses');
    expect(rows[0].slice(1, 5)).toEqual(['golf', 'SCORM20043RDEDITION', '1', '0']);
    await screenshot(page, 'console-courses-1280');
    expect((await call(`${s.api}/courses/golf`, { auth })).status).toBe(200);
  });

  it("the settings editor shows a course's inherited value and its level, and sets it at the course level", async () => {
    expect((await call(`${s.api}/appManagement/configuration`, { method: 'POST', auth, json: { settings: [{ settingId: 'PlayerLaunchType', value: 'NEW_WINDOW' }] } })).status).toBe(204);
    await page.getByRole('link', { name: 'Settings', exact: true }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await page.getByLabel('Level', { exact: true }).selectOption('course');
    await page.getByLabel('Course id', { exact: true }).fill('golf');
    await page.getByLabel('Setting name contains').fill('PlayerLaunchType');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.waitForURL(/level=course&id=golf&filter=PlayerLaunchType/);
    await page.getByRole('cell', { name: 'PlayerLaunchType', exact: true }).waitFor();
    let rows = await tableRows(page, 'Settings at the course level');
    expect(rows.map((r) => r.slice(0, 3))).toEqual([['PlayerLaunchType', 'NEW_WINDOW', 'application']]);
    await screenshot(page, 'console-settings-1280');

    await page.getByLabel('Value of PlayerLaunchType at the course level', { exact: true }).fill('FRAMESET');
    await page.getByRole('button', { name: 'Save PlayerLaunchType', exact: true }).click();
    await page.getByText('PlayerLaunchType is set to FRAMESET at the course level.').waitFor();
    rows = await tableRows(page, 'Settings at the course level');
    expect(rows.map((r) => r.slice(0, 3))).toEqual([['PlayerLaunchType', 'FRAMESET', 'course']]);
    const items = (await call(`${s.api}/courses/golf/configuration`, { auth })).body.settingItems as Array<{ id: string; effectiveValue: string; effectiveValueSource: string }>;
    expect(items.find((i) => i.id === 'PlayerLaunchType')).toMatchObject({ effectiveValue: 'FRAMESET', effectiveValueSource: 'course' });

    // A value the setting does not take: the service's message, on the page.
    await page.getByLabel('Value of PlayerLaunchType at the course level', { exact: true }).fill('SIDEWAYS');
    await page.getByRole('button', { name: 'Save PlayerLaunchType', exact: true }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/PlayerLaunchType/);
  });

  it('registrations: search, launch link, reset, delete; links into the report viewer', async () => {
    for (const [id, learner] of [['r-1', 'pat'], ['r-2', 'sam']]) {
      expect((await call(`${s.api}/registrations`, { method: 'POST', auth, json: { registrationId: id, courseId: 'golf', learner: { id: learner } } })).status).toBe(204);
    }
    await page.getByRole('link', { name: 'Registrations', exact: true }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Registrations' }).waitFor();
    await page.getByLabel('Learner id').fill('sam');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/learnerId=sam/);
    // The unfiltered list had r-2 too: the filtered one is there once r-1 is gone.
    await page.getByRole('link', { name: 'r-1', exact: true }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'r-2' }).waitFor();
    expect((await tableRows(page, 'Registrations')).map((r) => r[0])).toEqual(['r-2']);
    expect(await page.getByRole('link', { name: 'r-2' }).getAttribute('href')).toBe('/console/../reports/registrations/r-2');

    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Launch r-2 as the learner' }).click()]);
    await popup.waitForLoadState();
    expect(popup.url()).toContain('/player/');
    await popup.close();
    await screenshot(page, 'console-registrations-1280');

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete r-2' }).click();
    await page.getByText('Registration r-2 deleted.').waitFor();
    expect((await call(`${s.api}/registrations/r-2`, { auth })).status).toBe(404);

    // The report link opens the viewer with the console's session.
    await page.goto(`${s.baseUrl}/reports/registrations/r-1`);
    await page.getByRole('heading', { level: 1, name: 'Registration r-1' }).waitFor();
  });

  it("a management application sets an application's registration limit, which GetAccountInfo then reports", async () => {
    const mgmt = await browser.context.newPage();
    await mgmt.goto(`${s.baseUrl}/console/`);
    await mgmt.getByLabel('Application id').fill(s.firstStart.management.appId);
    await mgmt.getByLabel('Secret key').fill(s.firstStart.management.secretKey);
    await mgmt.getByRole('button', { name: 'Sign in' }).click();
    await mgmt.getByRole('heading', { name: 'Registration limit and contact of an application' }).waitFor();
    await mgmt.getByLabel('Application id').fill(s.firstStart.application.appId);
    await mgmt.getByRole('button', { name: 'Load' }).click();
    await mgmt.getByLabel('Registrations per month (empty: no limit)').fill('50');
    await mgmt.getByLabel('Refuse registrations past the limit').check();
    await mgmt.getByLabel('Contact e-mail').fill('ops@example.com');
    await mgmt.getByRole('button', { name: 'Save', exact: true }).click();
    await mgmt.getByText(`Account of ${s.firstStart.application.appId} saved.`).waitFor();
    expect((await call(`${s.api}/reporting/accountInfo`, { auth })).body).toMatchObject({ regLimit: 50, strictLimit: true, email: 'ops@example.com' });
    await screenshot(mgmt, 'console-management-1280');
    await mgmt.close();
    // The application's own overview shows it.
    await page.goto(`${s.baseUrl}/console/`);
    await page.getByText('Registration limit: 50 per month; past it, new registrations are refused.').waitFor();
  });

  it('a management application creates, renames and deletes an application and manages its keys', async () => {
    const mgmt = await browser.context.newPage();
    await mgmt.setViewportSize({ width: 1280, height: 900 });
    await mgmt.goto(`${s.baseUrl}/console/`);
    await mgmt.getByLabel('Application id').fill(s.firstStart.management.appId);
    await mgmt.getByLabel('Secret key').fill(s.firstStart.management.secretKey);
    await mgmt.getByRole('button', { name: 'Sign in' }).click();
    await mgmt.getByRole('link', { name: 'Applications' }).click();
    await mgmt.getByRole('heading', { level: 1, name: 'Applications' }).waitFor();
    await mgmt.getByLabel("New application's name").fill('Sales academy');
    await mgmt.getByRole('button', { name: 'Create', exact: true }).click();
    const created = await mgmt.getByText(/Application Sales academy created \((\w+)\)\./).textContent();
    const appId = /\((\w+)\)/.exec(created!)![1];
    await mgmt.getByLabel('New name of Sales academy').fill('Sales school');
    await mgmt.getByRole('button', { name: 'Rename Sales academy' }).click();
    await mgmt.getByText(`Application ${appId} renamed.`).waitFor();
    expect((await call(`${s.api}/appManagement/applications/${appId}`, { auth: basic(s.firstStart.management.appId, s.firstStart.management.secretKey) })).body.name).toBe('Sales school');

    await mgmt.locator('tr', { hasText: appId }).getByRole('link', { name: 'Keys' }).click();
    await mgmt.getByRole('heading', { name: `Secret keys of ${appId}` }).waitFor();
    await mgmt.getByLabel("New key's name").fill('CI');
    await mgmt.getByRole('button', { name: 'Create key' }).click();
    const keyText = await mgmt.getByText(/Key CI created: /).textContent();
    const secret = keyText!.replace(/^.*created: /, '').trim();
    expect((await call(`${s.api}/ping`, { auth: basic(appId, secret) })).status).toBe(200);
    await mgmt.getByRole('button', { name: 'Disable CI' }).click();
    await mgmt.getByText('Key CI disabled.').waitFor();
    expect((await call(`${s.api}/ping`, { auth: basic(appId, secret) })).status).toBe(401);
    await screenshot(mgmt, 'console-applications-1280');

    mgmt.once('dialog', (d) => void d.accept());
    await mgmt.getByRole('button', { name: 'Delete Sales school' }).click();
    await mgmt.getByText(`Application ${appId} deleted.`).waitFor();
    expect((await call(`${s.api}/appManagement/applications/${appId}`, { auth: basic(s.firstStart.management.appId, s.firstStart.management.secretKey) })).status).toBe(404);
    await mgmt.close();
  });

  it('works at 390 px without the page scrolling sideways', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const section of ['', 'courses', 'settings?level=course&id=golf&filter=Player', 'registrations']) {
      await page.goto(`${s.baseUrl}/console/${section}`);
      await page.locator('h1').waitFor();
      await page.waitForTimeout(300);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect({ section, overflow }).toEqual({ section, overflow: 0 });
    }
    await screenshot(page, 'console-settings-390');
  });
});
