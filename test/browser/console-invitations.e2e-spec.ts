import type { Page } from 'playwright-core';
import { fixture, importCourse } from '../support/courses';
import { launchBrowser, waitFor } from '../support/player';
import { inviteLinkOf, startSmtpSink, SmtpSink } from '../support/smtp';
import { basic, call, startTestServer, TestServer } from '../support/test-server';
import { ensureWebBuilt, screenshot, tableRows } from '../support/web';

/**
 * The console's invitations in chromium: a private invitation made with the form is e-mailed (a real SMTP server in
 * the test) and its job's progress is shown; an invitation's expiry, launches and new registrations are edited, and
 * the API answers the new values.
 */
describe('console: private invitations and invitation edits (chromium)', () => {
  let s: TestServer;
  let smtp: SmtpSink;
  let auth: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  beforeAll(async () => {
    ensureWebBuilt();
    smtp = await startSmtpSink();
    s = await startTestServer({ SMTP_URL: smtp.url, MAIL_FROM: 'training@lcds.test' });
    auth = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, auth, 'golf', fixture('scorm2004-3rd-golf-runtime-basic.zip'));
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${s.baseUrl}/console/`);
    await page.getByLabel('Application id').fill(s.firstStart.application.appId);
    await page.getByLabel('Secret key').fill(s.firstStart.application.secretKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Invitations', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Invitations' }).waitFor();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await smtp?.close();
  });

  it('creates a private invitation: the e-mails arrive and the job says it is done', async () => {
    const form = page.getByRole('form', { name: 'New private invitation' });
    await form.getByLabel('Course', { exact: true }).fill('golf');
    await form.getByLabel("Creator's e-mail").fill('owner@example.com');
    await form.getByLabel("Learners' addresses").fill('ann@example.com\nbob@example.com, ann@example.com');
    await form.getByLabel('Subject (optional)').fill('Your golf course');
    await form.getByLabel('Message (optional; the link is added)').fill('Please take it this week.');
    await form.getByLabel('A learner already registered').selectOption('CREATE_NEW');
    await screenshot(page, 'console-private-invitation-form-1280');
    await form.getByRole('button', { name: 'Create private invitation' }).click();
    const text = await page.getByText(/Private invitation \S+ created for golf: 2 address\(es\)\./).textContent();
    const id = /invitation (\S+) created/.exec(text!)![1];
    await page.getByText(`E-mails of invitation ${id}: done (COMPLETE), 2 of 2 e-mails.`).waitFor({ timeout: 20_000 });

    const mails = await waitFor(() => Promise.resolve(smtp.received.filter((m) => m.parsed.subject === 'Your golf course')), (m) => m.length === 2, 15_000);
    expect(mails.flatMap((m) => m.envelopeTo).sort()).toEqual(['ann@example.com', 'bob@example.com']);
    expect(mails[0].parsed.text).toContain('Please take it this week.');
    expect(inviteLinkOf(mails[0])).toContain('/invite/u/');
    const saved = await call(`${s.api}/invitations/private/${id}`, { auth });
    expect(saved.body.invitationEmail.addresses.sort()).toEqual(['ann@example.com', 'bob@example.com']);
    expect(saved.body.invitationEmail.subject).toBe('Your golf course');
    await page.getByRole('cell', { name: id, exact: true }).waitFor();
    // Invitation, course, addresses, registrations (the list is read again once the job is done).
    const row = await waitFor(async () => (await tableRows(page, 'Private invitations'))[0], (r) => r?.[3] === '2', 10_000);
    expect(row.slice(0, 4)).toEqual([id, 'golf', '2', '2']);
    await screenshot(page, 'console-private-invitation-sent-1280');
  }, 60_000);

  it("edits a private invitation's expiry and launches, and a public one's new registrations; the API sees them", async () => {
    const priv = (await tableRows(page, 'Private invitations'))[0][0];
    await page.getByRole('button', { name: `Edit invitation ${priv}` }).click();
    let edit = page.getByRole('form', { name: `Edit invitation ${priv}` });
    expect(await edit.getByLabel('Allow new registrations').count()).toBe(0);
    await edit.getByLabel('Expiry (UTC; empty: none)').fill('2031-05-06T07:08');
    await edit.getByLabel('Allow launches').uncheck();
    await edit.getByRole('button', { name: 'Save invitation' }).click();
    await edit.getByText(`Invitation ${priv} saved: expires`).waitFor();
    let api = (await call(`${s.api}/invitations/private/${priv}`, { auth })).body;
    expect(api.expirationDate).toBe('2031-05-06T07:08:00.000Z');
    expect(api.allowLaunch).toBe(false);
    expect((await tableRows(page, 'Private invitations'))[0][4]).toBe('Launches stopped');
    await screenshot(page, 'console-invitation-edit-1280');

    const pub = await call(`${s.api}/invitations/public`, { method: 'POST', auth, json: { courseId: 'golf', creatingUserEmail: 'owner@example.com', expirationDate: '2030-01-01T00:00:00.000Z' } });
    expect(pub.status).toBe(200);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Invitations' }).waitFor();
    await page.getByRole('button', { name: `Edit invitation ${pub.body.id}` }).click();
    edit = page.getByRole('form', { name: `Edit invitation ${pub.body.id}` });
    expect(await edit.getByLabel('Expiry (UTC; empty: none)').inputValue()).toBe('2030-01-01T00:00');
    await edit.getByLabel('Allow new registrations').uncheck();
    await edit.getByLabel('Expiry (UTC; empty: none)').fill('');
    await edit.getByRole('button', { name: 'Save invitation' }).click();
    await edit.getByText(`Invitation ${pub.body.id} saved: no expiry.`).waitFor();
    api = (await call(`${s.api}/invitations/public/${pub.body.id}`, { auth })).body;
    expect(api.expirationDate).toBeUndefined();
    expect(api.allowNewRegistrations).toBe(false);
    expect(api.allowLaunch).toBe(true);
    expect((await tableRows(page, 'Public invitations'))[0][4]).toBe('Open to existing registrations only');

    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'console-invitations-390');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  }, 60_000);
});
