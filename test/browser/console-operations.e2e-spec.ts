import type { Page } from 'playwright-core';
import { defineQueue, JobQueue, UnrecoverableJobError } from '../../src/platform/queue/job-queue';
import { fixture, importCourse } from '../support/courses';
import { launchBrowser } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';
import { ensureWebBuilt, screenshot, tableRows } from '../support/web';

/** Reads until `ok` holds or the time is up; returns the last value read (the test's expect says what was wanted). */
async function poll<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const FLAKY_IMPORT = defineQueue<{ what: string }>({ name: 'test.console-flaky', maxAttempts: 1 });

/**
 * The console's pages for the people who run LCDS, in chromium: the audit log (no secret on screen), the job queues
 * (a failed job with its error, retried), xAPI credentials and statement pipes with their state, invitations, a
 * course's versions, a registration's progress tree, and (management) an application's administrators; by keyboard,
 * and at 1280 and 390 px.
 */
describe('console: operations pages (chromium)', () => {
  let s: TestServer;
  let auth: string;
  let mgmtAuth: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const xapiSecret = 'console-xapi-secret-not-shown';

  const signIn = async (p: Page, appId: string, key: string) => {
    await p.goto(`${s.baseUrl}/console/`);
    await p.getByLabel('Application id').fill(appId);
    await p.getByLabel('Secret key').fill(key);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  };
  const open = async (p: Page, link: string, heading = link) => {
    await p.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: link, exact: true }).click();
    await p.getByRole('heading', { level: 1, name: heading }).waitFor();
  };

  beforeAll(async () => {
    ensureWebBuilt();
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true', LCDS_XAPI_PIPE_INTERVAL_MS: '300', LCDS_XAPI_PIPE_BACKOFF_MS: '60000' });
    auth = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    mgmtAuth = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    await importCourse(s.api, auth, 'golf', fixture('scorm2004-3rd-golf-runtime-basic.zip'));
    await importCourse(s.api, auth, 'golf', fixture('scorm2004-3rd-golf-runtime-basic.zip'), { mayCreateNewVersion: 'true' });
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth, json: { registrationId: 'reg-golf', courseId: 'golf', learner: { id: 'sam' } } })).status).toBe(204);
    await importCourse(s.api, auth, 'golf-seq', fixture('scorm2004-3rd-golf-seq-forced-sequential.zip'));
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth, json: { registrationId: 'reg-tree', courseId: 'golf-seq', learner: { id: 'pat' } } })).status).toBe(204);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await signIn(page, s.firstStart.application.appId, s.firstStart.application.secretKey);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('xAPI: creates a credential, disables it; creates a statement pipe and shows its state', async () => {
    await open(page, 'xAPI');
    await page.getByLabel('Name', { exact: true }).fill('Authoring tool');
    await page.getByLabel('Permissions').selectOption('ROOT');
    await page.getByRole('button', { name: 'Create credential' }).click();
    const created = await page.getByText(/Credential Authoring tool created\. User name: /).textContent();
    const userName = /User name: (\S+);/.exec(created!)![1];
    let rows = await tableRows(page, 'xAPI credentials');
    expect(rows.map((r) => r.slice(0, 5))).toEqual([['Authoring tool', userName, 'ROOT', 'BASICAUTH', 'Enabled']]);
    await page.getByRole('button', { name: 'Disable xAPI credential Authoring tool' }).click();
    await page.getByText('xAPI credential Authoring tool disabled.').waitFor();
    rows = await tableRows(page, 'xAPI credentials');
    expect(rows[0][4]).toBe('Disabled');
    expect((await call(`${s.api}/xapi/credentials/${userName}`, { auth })).body.isEnabled).toBe(false);

    // A statement in the application's LRS gives the pipe something to forward.
    const stored = await call(`${s.baseUrl}/lrs/${s.firstStart.application.appId}/statements`, {
      method: 'POST',
      auth,
      headers: { 'x-experience-api-version': '1.0.3' },
      json: { actor: { mbox: 'mailto:pat@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' }, object: { id: 'http://example.com/a' } },
    });
    expect(stored.status).toBe(200);
    await page.getByLabel('Target LRS endpoint').fill('http://127.0.0.1:9/xapi/');
    await page.getByLabel('Target user name').fill('forwarder');
    await page.getByLabel('Target password').fill('pipe-password-not-shown');
    await page.getByRole('button', { name: 'Create pipe' }).click();
    await page.getByText(/Statement pipe \S+ created: this application's statements go to http:\/\/127\.0\.0\.1:9\/xapi\/\./).waitFor();
    rows = await tableRows(page, 'Statement pipes');
    expect(rows).toHaveLength(1);
    expect(rows[0][1]).toBe(`${s.baseUrl}/lrs/${s.firstStart.application.appId}/statements`);
    expect(rows[0][2]).toBe('http://127.0.0.1:9/xapi/');
    expect(rows[0][3]).toMatch(/^(Up to date|Waiting until .*|Failing: \d+ failed attempts?, next try .*)$/);
    // The pipe cannot reach its target: after its first run the page says it is failing.
    const failing = await poll(
      async () => {
        await page.reload();
        await page.getByRole('heading', { level: 1, name: 'xAPI' }).waitFor();
        await page.getByRole('cell', { name: 'http://127.0.0.1:9/xapi/' }).waitFor();
        return (await tableRows(page, 'Statement pipes'))[0][3];
      },
      (state) => state.startsWith('Failing'),
      20_000,
    );
    expect(failing).toMatch(/^Failing: 1 failed attempt, next try /);
    expect(await page.locator('body').textContent()).not.toContain('pipe-password-not-shown');
    await screenshot(page, 'console-xapi-1280');
  }, 60_000);

  it('invitations: creates a public invitation, stops its launches', async () => {
    await open(page, 'Invitations');
    await page.getByLabel('Course id').fill('golf');
    await page.getByLabel('Your e-mail address').fill('owner@example.com');
    await page.getByRole('button', { name: 'Create public invitation' }).click();
    const text = await page.getByText(/Public invitation \S+ created for golf\./).textContent();
    const id = /invitation (\S+) created/.exec(text!)![1];
    let rows = await tableRows(page, 'Public invitations');
    expect(rows.map((r) => [r[0], r[1], r[2], r[3], r[4]])).toEqual([[id, 'golf', 'Open the invitation page', '0', 'Open']]);
    expect(await page.getByRole('link', { name: 'Open the invitation page' }).getAttribute('href')).toContain('/invite/');
    await page.getByRole('button', { name: `Stop launches of invitation ${id}` }).click();
    await page.getByText(`Invitation ${id}: launches stopped.`).waitFor();
    rows = await tableRows(page, 'Public invitations');
    expect(rows[0][4]).toBe('Launches stopped');
    expect((await tableRows(page, 'Private invitations'))[0]).toEqual(['No private invitation.']);
    await screenshot(page, 'console-invitations-1280');
  });

  it("courses: a course's versions; registrations: a registration's progress tree", async () => {
    await open(page, 'Courses');
    await page.getByRole('link', { name: 'Versions of golf', exact: true }).click();
    await page.getByRole('heading', { level: 2, name: 'Versions of golf', exact: true }).waitFor();
    await page.waitForURL(/courses\?versions=golf/);
    const rows = await poll(() => tableRows(page, 'Versions of golf'), (r) => r.length === 2);
    expect(rows.map((r) => r.slice(0, 4))).toEqual([
      ['2', 'Golf Explained - Run-time Basic Calls', 'SCORM20043RDEDITION', '1'],
      ['1', 'Golf Explained - Run-time Basic Calls', 'SCORM20043RDEDITION', '0'],
    ]);

    await open(page, 'Registrations');
    await page.getByRole('button', { name: 'Progress of reg-tree', exact: true }).click();
    await page.getByRole('heading', { level: 2, name: 'Progress of reg-tree' }).waitFor();
    await page.waitForURL(/progress=reg-tree/);
    const tree = page.getByRole('list', { name: 'Activity tree of reg-tree' });
    await tree.waitFor();
    const text = (await tree.textContent()) ?? '';
    expect(text).toContain('Golf Explained - Sequencing Forced Order');
    for (const title of ['Playing the Game', 'Etiquette', 'Handicapping', 'Having Fun', 'Quiz']) {
      expect(await tree.locator('ul.tree li', { hasText: title }).first().locator('.node').first().textContent()).toBe(`${title}Not startedNo pass/failScore —0 attempts`);
    }
    expect(await page.getByRole('button', { name: 'Progress of reg-tree', exact: true }).getAttribute('aria-expanded')).toBe('true');
    await screenshot(page, 'console-progress-1280');
    await page.getByRole('button', { name: 'Close the progress' }).click();
    await page.waitForURL((u) => !u.search.includes('progress='));
  });

  it('jobs: counts by state, a failed job with its error, retried from the page', async () => {
    const queue = s.app.get(JobQueue);
    let fail = true;
    queue.register(FLAKY_IMPORT, (p) => (fail ? Promise.reject(new UnrecoverableJobError(`the ${p.what} answered 503`)) : Promise.resolve({})));
    const jobId = await queue.enqueue(FLAKY_IMPORT, { what: 'content server' }, { appId: s.firstStart.application.appId });
    expect(await poll(async () => (await queue.get(jobId))?.status, (v) => v === 'failed')).toBe('failed');

    await open(page, 'Jobs');
    await page.getByRole('cell', { name: jobId, exact: true }).waitFor();
    expect(await page.getByTestId('jobs-failed').locator('dd').textContent()).toBe('1');
    const queues = await tableRows(page, 'Jobs by queue and state');
    expect(queues.find((r) => r[0] === 'test.console-flaky')).toEqual(['test.console-flaky', '0', '0', '0', '1']);
    expect(queues.find((r) => r[0] === 'course-import')?.[3]).toBe('3');
    const failed = await tableRows(page, 'Failed jobs');
    expect(failed.map((r) => r.slice(0, 3).concat(r[4]))).toEqual([[jobId, 'test.console-flaky', '1 of 1', 'the content server answered 503']]);
    await screenshot(page, 'console-jobs-1280');

    fail = false;
    await page.getByRole('button', { name: `Retry job ${jobId}` }).click();
    await page.getByText(`Job ${jobId} (test.console-flaky) is queued again.`).waitFor();
    expect(await poll(async () => (await queue.get(jobId))?.status, (v) => v === 'completed')).toBe('completed');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByText('No failed job.').waitFor();
    expect((await tableRows(page, 'Jobs by queue and state')).find((r) => r[0] === 'test.console-flaky')).toEqual(['test.console-flaky', '0', '0', '1', '0']);
  }, 60_000);

  it('audit log: the changes made above, who made them and which fields, and never a secret', async () => {
    expect((await call(`${s.api}/xapi/credentials/from-api`, { method: 'PUT', auth, json: { name: 'from api', secret: xapiSecret, isEnabled: true, auth: 'BASICAUTH', permissionsLevel: 'USER' } })).status).toBe(204);
    await open(page, 'Audit log');
    const caption = `Audit log of ${s.firstStart.application.appId}`;
    await page.getByRole('cell', { name: 'SetXapiCredential' }).first().waitFor();
    const rows = await tableRows(page, caption);
    const actions = rows.map((r) => r[1]);
    expect(actions).toEqual(['SetXapiCredential', 'LcdsRetryJob', 'CreateStatementPipe', 'SetXapiCredential', 'CreateXapiCredential']);
    const first = rows[0];
    expect(first[2]).toMatch(new RegExp(`^${s.firstStart.application.appId} \\(secret key `));
    expect(first[3]).toBe('127.0.0.1');
    expect(first[4]).toBe('xapiCredentialId: from-api');
    expect(first[5]).toBe('auth, isEnabled, name, permissionsLevel, secret');
    // The console's own changes were made with a token.
    expect(rows.find((r) => r[1] === 'CreateXapiCredential')![2]).toMatch(/\(token /);
    expect(await page.locator('body').textContent()).not.toContain(xapiSecret);
    await screenshot(page, 'console-audit-1280');

    await page.getByLabel('Action').fill('CreateStatementPipe');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.waitForURL(/action=CreateStatementPipe/);
    expect(await poll(async () => (await tableRows(page, caption)).map((r) => r[1]), (v) => v.length === 1)).toEqual(['CreateStatementPipe']);
    expect((await tableRows(page, caption))[0][5]).toBe('target.password, target.url, target.userName');
  });

  it('a management application lists, adds and removes administrators of an application', async () => {
    const mgmt = await browser.context.newPage();
    await mgmt.setViewportSize({ width: 1280, height: 900 });
    await signIn(mgmt, s.firstStart.management.appId, s.firstStart.management.secretKey);
    await open(mgmt, 'Applications');
    const appId = s.firstStart.application.appId;
    await mgmt.locator('tr', { hasText: appId }).getByRole('link', { name: 'Keys and administrators' }).click();
    await mgmt.getByRole('heading', { name: `Administrators of ${appId}` }).waitFor();
    await mgmt.getByText("No administrator: no one may erase a learner's data yet.").waitFor();
    await mgmt.getByLabel("Administrator's e-mail address").fill('dpo@example.com');
    await mgmt.getByRole('button', { name: 'Add administrator' }).click();
    await mgmt.getByText(`dpo@example.com administers ${appId}.`).waitFor();
    expect((await tableRows(mgmt, `Administrators of ${appId}`)).map((r) => r[0])).toEqual(['dpo@example.com']);
    expect((await call(`${s.api}/lcds/applications/${appId}/admins`, { auth: mgmtAuth })).body.admins).toEqual([expect.objectContaining({ email: 'dpo@example.com' })]);
    await screenshot(mgmt, 'console-admins-1280');
    mgmt.once('dialog', (d) => void d.accept());
    await mgmt.getByRole('button', { name: 'Remove administrator dpo@example.com' }).click();
    await mgmt.getByText(`dpo@example.com no longer administers ${appId}.`).waitFor();
    expect((await call(`${s.api}/lcds/applications/${appId}/admins`, { auth: mgmtAuth })).body.admins).toEqual([]);
    // The audit log of that application, read by the management application, shows both changes.
    await open(mgmt, 'Audit log');
    await mgmt.getByLabel('Application id (empty: this one)').fill(appId);
    await mgmt.getByRole('button', { name: 'Show', exact: true }).click();
    const actions = await poll(async () => (await tableRows(mgmt, `Audit log of ${appId}`)).slice(0, 2).map((r) => r[1]), (v) => v[0] === 'LcdsRemoveApplicationAdmin');
    expect(actions).toEqual(['LcdsRemoveApplicationAdmin', 'LcdsAddApplicationAdmin']);
    await mgmt.close();
  });

  it('is usable by keyboard: skip link, then the sections by Tab and Enter', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${s.baseUrl}/console/`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Skip to the content');
    let reached = '';
    for (let i = 0; i < 20 && reached !== 'Jobs'; i++) {
      await page.keyboard.press('Tab');
      reached = (await page.evaluate(() => document.activeElement?.textContent?.trim())) ?? '';
    }
    expect(reached).toBe('Jobs');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Jobs' }).waitFor();
    // Every form control on the operations pages has a label.
    for (const section of ['xapi', 'invitations', 'jobs', 'audit']) {
      await page.goto(`${s.baseUrl}/console/${section}`);
      await page.locator('h1').waitFor();
      await page.waitForTimeout(300);
      const unlabelled = await page.evaluate(() =>
        Array.from(document.querySelectorAll('input, select, button'))
          .filter((el) => {
            const e = el as HTMLInputElement;
            const hasLabel = (e.labels && e.labels.length > 0) || e.getAttribute('aria-label') || (e.tagName === 'BUTTON' && e.textContent?.trim());
            return !hasLabel;
          })
          .map((el) => el.outerHTML.slice(0, 80)),
      );
      expect({ section, unlabelled }).toEqual({ section, unlabelled: [] });
    }
  });

  it('works at 390 px without the page scrolling sideways', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const section of ['xapi', 'invitations', 'jobs', 'audit', 'courses?versions=golf', 'registrations?progress=reg-tree']) {
      await page.goto(`${s.baseUrl}/console/${section}`);
      await page.locator('h1').waitFor();
      await page.waitForTimeout(400);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect({ section, overflow }).toEqual({ section, overflow: 0 });
      if (section === 'audit' || section === 'jobs' || section.startsWith('registrations')) await screenshot(page, `console-${section.replace(/\?.*/, '')}-390`);
    }
  });
});
