import { importCourse } from '../support/courses';
import { EXAMPLE, EXAMPLE_ROUTE, requireBuiltExample } from '../support/extension';
import { launchBrowser, learnerRegistrations, openPage, scoPackage, waitFor } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * A learner completes a course in chromium; the example extension (LCDS_EXTENSIONS) hears RegistrationCompleted and
 * lists the completion at /ext/registration-completed-export/completions.
 */
describe('extensions: a learner completing a course in the browser produces the example extension’s row', () => {
  let s: TestServer;
  let app: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  const learner = { id: 'learner-ext', firstName: 'Grace', lastName: 'Hopper' };
  const { createReg, link, progress } = learnerRegistrations(() => s, () => app, learner);

  beforeAll(async () => {
    requireBuiltExample();
    s = await startTestServer({ LCDS_EXTENSIONS: EXAMPLE });
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    browser = await launchBrowser();
    const sco = await scoPackage(
      '1.2',
      `API.LMSInitialize('');
       window.finish = function () {
         API.LMSSetValue('cmi.core.score.raw', '85'); API.LMSSetValue('cmi.core.lesson_status', 'passed');
         API.LMSSetValue('cmi.core.session_time', '00:01:30.00'); API.LMSCommit(''); API.LMSFinish('');
       };`,
    );
    await importCourse(s.api, app, 'ext12', { name: 'ext12.zip', data: sco, type: 'application/zip' });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('lists the completion with its learner, course, success, score and time', async () => {
    await createReg('ext-browser', 'ext12');
    const page = await openPage(browser.context, await link('ext-browser'));
    const sco = page.frameLocator('#lcds-sco');
    await sco.locator('#state').filter({ hasText: 'ready' }).waitFor();
    const before = await call(`${s.baseUrl}${EXAMPLE_ROUTE}`, { auth: app });
    expect(before.body).toEqual({ completions: [] });

    await sco.locator('#finish').click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    expect((await progress('ext-browser')).registrationCompletion).toBe('COMPLETED');
    const listed = await waitFor(
      () => call(`${s.baseUrl}${EXAMPLE_ROUTE}`, { auth: app }),
      (r) => r.body.completions?.length > 0,
    );
    expect(listed.body.completions).toEqual([
      expect.objectContaining({ registrationId: 'ext-browser', instance: 0, courseId: 'ext12', learnerId: 'learner-ext', success: 'PASSED', score: 0.85, totalSecondsTracked: 90 }),
    ]);
    // The learner's name is not part of the event, nor of the extension's row.
    expect(JSON.stringify(listed.body)).not.toContain('Hopper');
    await page.close();
  });
});
