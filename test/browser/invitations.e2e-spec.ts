import { Page } from 'playwright-core';
import { importCourse } from '../support/courses';
import { launchBrowser, scoPackage, waitFor } from '../support/player';
import { inviteLinkOf, startSmtpSink, SmtpSink } from '../support/smtp';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

const SHOTS = process.env.LCDS_TEST_SCREENSHOTS ?? '';

/** A one-SCO course whose Finish button marks it completed. */
const FINISH = `API.LMSInitialize(''); window.finish = function () { API.LMSSetValue('cmi.core.lesson_status', 'completed'); API.LMSCommit(''); API.LMSFinish(''); };`;

/**
 * Invitations as a person meets them, in Debian's chromium: an invited learner follows the link read from the e-mail
 * the SMTP server received and completes the course; a visitor joins a public invitation on a phone-sized screen and
 * completes it, comes back with the same address to the same registration; the cap, expiry and allowLaunch pages.
 */
describe('invitations in the browser', () => {
  let s: TestServer;
  let smtp: SmtpSink;
  let app: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    s = await startTestServer({ SMTP_URL: smtp.url, MAIL_FROM: 'training@lcds.test' });
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'finish12', { name: 'finish12.zip', data: await scoPackage('1.2', FINISH), type: 'application/zip' });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await smtp?.close();
  });

  const shot = async (page: Page, name: string) => {
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  };

  /** Clicks the SCO's Finish button once the player delivered it. */
  const finishCourse = async (page: Page) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      // The page may still be on its way (the form's POST, the launch's redirects).
      const frame = (await page.$('#lcds-sco').then((h) => h?.contentFrame(), () => null)) ?? null;
      if (frame && (await frame.locator('#state').textContent().catch(() => '')) === 'ready') {
        await frame.locator('#finish').click();
        return;
      }
      if (Date.now() > deadline) throw new Error(`the player never delivered the SCO (page ${page.url()})`);
      await page.waitForTimeout(100);
    }
  };
  const completion = (registrationId: string) => waitFor(async () => (await call(`${s.api}/registrations/${registrationId}`, { auth: app })).body.registrationCompletion, (c) => c === 'COMPLETED', 15_000);

  it('an invited learner follows the link of the e-mail and completes the course', async () => {
    const created = await call(`${s.api}/invitations/private`, {
      method: 'POST',
      auth: app,
      json: { courseId: 'finish12', creatingUserEmail: 'owner@example.com', invitationEmail: { addresses: ['learner@example.com'] } },
    });
    expect(created.status).toBe(200);
    const mail = await waitFor(() => Promise.resolve(smtp.received.find((m) => m.envelopeTo.includes('learner@example.com'))), (m) => m !== undefined, 15_000);
    expect(mail!.parsed.subject).toBe('You are invited to take Generated 1.2');
    const page = await browser.context.newPage();
    await page.goto(inviteLinkOf(mail!));
    await finishCourse(page);
    const users = (await call(`${s.api}/invitations/private/${created.body.id}/userInvitations?includeRegistrationReport=true`, { auth: app })).body.userInvitations;
    expect(await completion(users[0].registrationId)).toBe('COMPLETED');
    const after = (await call(`${s.api}/invitations/private/${created.body.id}/userInvitations?includeRegistrationReport=true`, { auth: app })).body.userInvitations;
    expect(after[0]).toMatchObject({ email: 'learner@example.com', isStarted: true, registrationReport: { complete: 'COMPLETED' } });
    await page.close();
  });

  it('a visitor joins a public invitation on a phone, completes the course, and comes back to the same registration', async () => {
    const created = await call(`${s.api}/invitations/public`, { method: 'POST', auth: app, json: { courseId: 'finish12', creatingUserEmail: 'owner@example.com' } });
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(created.body.url);
    await expect(page.locator('h1').textContent()).resolves.toBe('Generated 1.2');
    await shot(page, 'invitation-form');
    // Nothing filled in: each field says what is wrong, next to it, and the form says so to a screen reader.
    await page.getByRole('button', { name: 'Start the course' }).click();
    await expect(page.locator('#firstName').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#firstName-error').textContent()).resolves.toBe('Please fill in this field.');
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Please correct the fields below.');
    await page.getByLabel('First name').fill('Marie');
    await page.getByLabel('Last name').fill('Curie');
    await page.getByLabel('E-mail address').fill('marie@example');
    await page.getByLabel('E-mail address').press('Enter');
    await expect(page.locator('#email-error').textContent()).resolves.toMatch(/e-mail address such as/);
    expect(await page.getByLabel('First name').inputValue()).toBe('Marie');
    await shot(page, 'invitation-errors');
    const noScroll = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    expect(noScroll).toBe(true);
    await page.getByLabel('E-mail address').fill('Marie@Example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await finishCourse(page);
    const users = (await call(`${s.api}/invitations/public/${created.body.id}/userInvitations`, { auth: app })).body.userInvitations;
    expect(users).toHaveLength(1);
    expect(await completion(users[0].registrationId)).toBe('COMPLETED');
    const reg = (await call(`${s.api}/registrations/${users[0].registrationId}`, { auth: app })).body;
    expect(reg.learner).toMatchObject({ id: 'marie@example.com', firstName: 'Marie', lastName: 'Curie', email: 'Marie@Example.com' });

    // The same address again (another spelling): the same registration, no second user invitation.
    await page.goto(created.body.url);
    await page.getByLabel('First name').fill('Marie');
    await page.getByLabel('Last name').fill('Curie');
    await page.getByLabel('E-mail address').fill('marie@example.com');
    await page.getByRole('button', { name: 'Start the course' }).click();
    await page.waitForURL(/\/player\//);
    const again = (await call(`${s.api}/invitations/public/${created.body.id}/userInvitations?includeRegistrationReport=true`, { auth: app })).body.userInvitations;
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({ registrationId: users[0].registrationId, registrationReport: { complete: 'COMPLETED' } });
    await page.close();
  });

  it('cap, no new registrations, expiry and allowLaunch: the page says so and creates nothing', async () => {
    const created = await call(`${s.api}/invitations/public`, { method: 'POST', auth: app, json: { courseId: 'finish12', creatingUserEmail: 'owner@example.com', registrationCap: 1 } });
    const id = created.body.id;
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 360, height: 740 });
    const join = async (email: string) => {
      await page.goto(created.body.url);
      await page.getByLabel('First name').fill('Visitor');
      await page.getByLabel('Last name').fill('One');
      await page.getByLabel('E-mail address').fill(email);
      await page.getByRole('button', { name: 'Start the course' }).click();
    };
    await join('first@example.com');
    await page.waitForURL(/\/player\//);
    await join('second@example.com');
    await expect(page.locator('h1').textContent()).resolves.toBe('This invitation is closed');
    await expect(page.getByRole('status').textContent()).resolves.toMatch(/reached its number of places/);
    await shot(page, 'invitation-full');
    const count = async () => (await call(`${s.api}/invitations/public/${id}?includeRegistrationCount=true`, { auth: app })).body.registrationCount;
    expect(await count()).toBe(1);
    const regs = async () => (await call(`${s.api}/registrations?courseId=finish12&includeTotalCount=true`, { auth: app })).headers.get('x-total-count');
    const before = await regs();

    await call(`${s.api}/invitations/public/${id}`, { method: 'PUT', auth: app, json: { registrationCap: 0, allowNewRegistrations: false } });
    await join('third@example.com');
    await expect(page.getByRole('status').textContent()).resolves.toMatch(/takes no new learners/);
    await join('first@example.com');
    await page.waitForURL(/\/player\//);

    await call(`${s.api}/invitations/public/${id}`, { method: 'PUT', auth: app, json: { expirationDate: new Date(Date.now() - 1000).toISOString() } });
    const expired = await page.goto(created.body.url);
    expect(expired?.status()).toBe(403);
    await expect(page.getByRole('status').textContent()).resolves.toMatch(/has expired/);
    expect(await page.locator('form').count()).toBe(0);

    await call(`${s.api}/invitations/public/${id}`, { method: 'PUT', auth: app, json: { expirationDate: null, allowLaunch: false } });
    await page.goto(created.body.url);
    await expect(page.getByRole('status').textContent()).resolves.toMatch(/is closed/);
    await shot(page, 'invitation-closed');
    expect(await regs()).toBe(before);
    expect(await count()).toBe(1);
    await page.close();
  });

  it("follows the browser's language where a translation exists", async () => {
    const created = await call(`${s.api}/invitations/public`, { method: 'POST', auth: app, json: { courseId: 'finish12', creatingUserEmail: 'owner@example.com' } });
    const page = await browser.context.newPage();
    await page.setExtraHTTPHeaders({ 'Accept-Language': 'fr-CA,fr;q=0.9,en;q=0.5' });
    await page.goto(created.body.url);
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    await expect(page.getByRole('button').textContent()).resolves.toBe('Commencer le cours');
    await page.setExtraHTTPHeaders({ 'Accept-Language': 'ja' });
    await page.goto(created.body.url);
    await expect(page.getByRole('button').textContent()).resolves.toBe('Start the course');
    await page.close();
  });
});
