import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { launchBrowser, scoPackage, waitFor } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';
import { ensureWebBuilt, screenshot, tableRows } from '../support/web';
import { importCourse } from '../support/courses';

/**
 * The report viewer in chromium: scripted learners answer two known questions in a SCORM 2004 SCO; a course link
 * made with GetReportageAuthToken/GetReportageLink shows the funnel and the question analysis with those numbers,
 * exports them as CSV, and navPermission decides which pages the link opens (in the page and at the API).
 */
describe('report viewer (chromium)', () => {
  let s: TestServer;
  let auth: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;

  // learner → [answer to q1 (true-false, correct: true), answer to q2 (choice, correct: b) or null, status, success]
  const LEARNERS: Record<string, [string, string | null, string, string]> = {
    ada: ['true', 'b', 'completed', 'passed'],
    bob: ['false', 'c', 'completed', 'failed'],
    cy: ['true', 'c', 'completed', 'passed'],
    dee: ['false', null, 'incomplete', 'unknown'],
  };
  const script = `
    API.Initialize('');
    var plan = ${JSON.stringify(LEARNERS)}[API.GetValue('cmi.learner_id')];
    var n = 0;
    function ask(id, type, description, response, correct, latency) {
      API.SetValue('cmi.interactions.' + n + '.id', id);
      API.SetValue('cmi.interactions.' + n + '.type', type);
      API.SetValue('cmi.interactions.' + n + '.description', description);
      API.SetValue('cmi.interactions.' + n + '.learner_response', response);
      API.SetValue('cmi.interactions.' + n + '.result', response === correct ? 'correct' : 'incorrect');
      API.SetValue('cmi.interactions.' + n + '.latency', latency);
      n++;
    }
    ask('q1', 'true-false', 'The sky is blue', plan[0], 'true', 'PT10S');
    if (plan[1]) ask('q2', 'choice', 'Pick the second letter', plan[1], 'b', 'PT30S');
    API.SetValue('cmi.completion_status', plan[2]);
    API.SetValue('cmi.success_status', plan[3]);
    if (plan[2] === 'completed') API.SetValue('cmi.score.scaled', String((plan[0] === 'true' ? 0.5 : 0) + (plan[1] === 'b' ? 0.5 : 0)));
    API.SetValue('cmi.session_time', 'PT2M');
    API.Commit('');
    API.Terminate('');
  `;

  const register = async (registrationId: string, learnerId: string) =>
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth, json: { registrationId, courseId: 'quiz', learner: { id: learnerId, firstName: learnerId.toUpperCase(), lastName: 'Learner' } } })).status).toBe(204);

  const linkFor = async (nav: string, reportUrl: string): Promise<string> => {
    const grant = await call(`${s.api}/reporting/reportageAuth?navPermission=${nav}`, { auth });
    const link = await call(`${s.api}/reporting/reportageLink?${new URLSearchParams({ auth: grant.body.queryString, reportUrl })}`, { auth });
    expect(link.status).toBe(200);
    return link.body.reportageLink as string;
  };

  const figure = (page: Page, testId: string) => page.locator(`[data-testid="${testId}"] dd`).first().textContent();

  beforeAll(async () => {
    ensureWebBuilt();
    s = await startTestServer();
    auth = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, auth, 'quiz', { name: 'quiz.zip', data: await scoPackage('2004', script), type: 'application/zip' });
    await call(`${s.api}/courses/quiz/title`, { method: 'PUT', auth, json: { title: 'Sky and letters quiz' } });
    browser = await launchBrowser();
    context = browser.context;
    for (const learner of Object.keys(LEARNERS)) {
      await register(`reg-${learner}`, learner);
      const link = await call(`${s.api}/registrations/reg-${learner}/launchLink`, { method: 'POST', auth, json: { redirectOnExitUrl: 'message' } });
      const page = await context.newPage();
      await page.goto(link.body.launchLink);
      const progress = await waitFor(
        async () => (await call(`${s.api}/registrations/reg-${learner}?includeRuntime=true&includeChildResults=true&includeInteractionsAndObjectives=true`, { auth })).body,
        (p) => JSON.stringify(p).includes('"q1"') && (p.registrationCompletion !== 'UNKNOWN' || learner === 'dee'),
        20_000,
      );
      expect(JSON.stringify(progress)).toContain('"q1"');
      await page.close();
    }
    await register('reg-eve', 'eve'); // registered, never launched
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it("a course link shows the funnel and the question analysis of the learners' answers, and exports them as CSV", async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(await linkFor('DOWNONLY', `${s.baseUrl}/reports/courses/quiz`));
    await page.getByRole('heading', { level: 1, name: 'Sky and letters quiz' }).waitFor();
    // The token left the address bar once read.
    expect(page.url()).toBe(`${s.baseUrl}/reports/courses/quiz`);

    expect(await figure(page, 'registrations')).toBe('5');
    expect(await figure(page, 'funnel-not-started')).toBe('1');
    expect(await figure(page, 'funnel-in-progress')).toBe('1');
    expect(await figure(page, 'funnel-completed')).toBe('3');
    expect(await figure(page, 'funnel-passed')).toBe('2');
    expect(await figure(page, 'completion-rate')).toBe('60%');
    expect(await figure(page, 'pass-rate')).toBe('40%');
    expect(await figure(page, 'average-score')).toBe('50');

    const funnelNumbers = await tableRows(page, 'Completion funnel');
    expect(funnelNumbers).toEqual([
      ['Registered', '5'],
      ['Started', '4'],
      ['Completed', '3'],
      ['Passed', '2'],
    ]);
    const questions = await tableRows(page, 'Question analysis');
    expect(questions).toEqual([
      ['q1', 'The sky is blue', 'true-false', '4', '50%', 'false (2)', '10 s'],
      ['q2', 'Pick the second letter', 'choice', '3', '33.3%', 'c (2)', '30 s'],
    ]);
    await screenshot(page, 'viewer-course-1280');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download Question analysis as CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('questions-quiz.csv');
    const csv = readFileSync((await download.path()), 'utf8');
    expect(csv).toBe(
      'Question,Description,Type,Answered,% correct,Most chosen wrong answers,Average latency\r\n' +
        'q1,The sky is blue,true-false,4,50%,false (2),10\r\n' +
        'q2,Pick the second letter,choice,3,33.3%,c (2),30\r\n',
    );

    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'viewer-course-390');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.close();
  });

  it('DOWNONLY: from a course the viewer drills down to a registration but not up to the application', async () => {
    const page = await context.newPage();
    await page.goto(await linkFor('DOWNONLY', `${s.baseUrl}/reports/courses/quiz`));
    await page.getByRole('heading', { level: 1, name: 'Sky and letters quiz' }).waitFor();
    // Up: the breadcrumb is text, not a link.
    expect(await page.getByRole('link', { name: 'Application overview' }).count()).toBe(0);
    // Down: a registration opens, with its tree and the answers.
    await page.getByRole('link', { name: 'reg-bob' }).click();
    await page.getByRole('heading', { level: 1, name: 'Registration reg-bob' }).waitFor();
    expect(await figure(page, 'completion')).toBe('Completed');
    expect(await figure(page, 'success')).toBe('Failed');
    await page.getByText('Runtime data: 2 interaction(s)').click();
    expect(await tableRows(page, 'Interactions of The SCO')).toEqual([
      ['q1', 'false', 'incorrect', 'PT10S'],
      ['q2', 'c', 'incorrect', 'PT30S'],
    ]);
    expect((await tableRows(page, 'Launch history')).length).toBe(1);
    await screenshot(page, 'viewer-registration-1280');
    // Typing the application's address: the page says no, and so does the API.
    await page.goto(`${s.baseUrl}/reports/`);
    await page.getByText('This report link (DOWNONLY) does not open this page.').waitFor();
    const token = await page.evaluate(() => sessionStorage.getItem('lcds.session'));
    expect((await call(`${s.api}/lcds/reports/application`, { auth: `Bearer ${token}` })).status).toBe(403);
    expect((await call(`${s.api}/lcds/reports/registrations/reg-ada`, { auth: `Bearer ${token}` })).status).toBe(200);
    await page.close();
  });

  it('NONAV shows only the linked page; FREENAV everything', async () => {
    const page = await context.newPage();
    await page.goto(await linkFor('NONAV', `${s.baseUrl}/reports/courses/quiz`));
    await page.getByRole('heading', { level: 1, name: 'Sky and letters quiz' }).waitFor();
    expect(await page.getByRole('link', { name: 'reg-bob' }).count()).toBe(0);
    const token = await page.evaluate(() => sessionStorage.getItem('lcds.session'));
    expect((await call(`${s.api}/lcds/reports/registrations/reg-bob`, { auth: `Bearer ${token}` })).status).toBe(403);
    expect((await call(`${s.api}/lcds/reports/learners/bob`, { auth: `Bearer ${token}` })).status).toBe(403);

    await page.goto(await linkFor('FREENAV', `${s.baseUrl}/reports/registrations/reg-ada`));
    await page.getByRole('heading', { level: 1, name: 'Registration reg-ada' }).waitFor();
    await page.getByRole('link', { name: 'Application overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Application overview' }).waitFor();
    expect(await figure(page, 'registrations')).toBe('5');
    await page.close();
  });

  it('signed in with a key: the overview, and filters that live in the URL', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    // GET / leads a person to the console; the viewer without a link asks for a key.
    await page.goto(`${s.baseUrl}/`);
    expect(new URL(page.url()).pathname).toBe('/console/');
    await page.goto(`${s.baseUrl}/reports/`);
    await page.getByLabel('Application id').fill(s.firstStart.application.appId);
    await page.getByLabel('Secret key').fill(s.firstStart.application.secretKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Application overview' }).waitFor();
    expect(await figure(page, 'registrations')).toBe('5');
    expect(await tableRows(page, 'Courses')).toEqual([['Sky and letters quiz', 'quiz', '5', '3', '60%', '2']]);
    await screenshot(page, 'viewer-application-1280');

    await page.getByLabel('Learner id').fill('cy');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/learnerId=cy/);
    await waitFor(() => figure(page, 'registrations'), (v) => v === '1');
    expect(await figure(page, 'registrations')).toBe('1');
    // A reload shows the same report.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Application overview' }).waitFor();
    await waitFor(() => figure(page, 'registrations'), (v) => v === '1');
    expect(await page.getByLabel('Learner id').inputValue()).toBe('cy');
    await page.close();
  });
  it("a registration's page shows every attempt with its numbers, and the runtime data of the attempt chosen", async () => {
    // A learner who fails the first attempt and passes the second: the SCO counts its launches in localStorage.
    const retake = `
      API.Initialize('');
      var key = 'lcds-attempt-' + API.GetValue('cmi.learner_id');
      var attempt = Number(localStorage.getItem(key) || '0');
      localStorage.setItem(key, String(attempt + 1));
      var right = attempt > 0;
      API.SetValue('cmi.interactions.0.id', 'capital');
      API.SetValue('cmi.interactions.0.type', 'fill-in');
      API.SetValue('cmi.interactions.0.description', 'The capital of France');
      API.SetValue('cmi.interactions.0.learner_response', right ? 'Paris' : 'Lyon');
      API.SetValue('cmi.interactions.0.result', right ? 'correct' : 'incorrect');
      API.SetValue('cmi.interactions.0.latency', right ? 'PT20S' : 'PT45S');
      API.SetValue('cmi.completion_status', 'completed');
      API.SetValue('cmi.success_status', right ? 'passed' : 'failed');
      API.SetValue('cmi.score.scaled', right ? '0.9' : '0.3');
      API.SetValue('cmi.session_time', right ? 'PT4M' : 'PT1M30S');
      API.Commit('');
      API.Terminate('');
    `;
    await importCourse(s.api, auth, 'retake', { name: 'retake.zip', data: await scoPackage('2004', retake), type: 'application/zip' });
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth, json: { registrationId: 'reg-gus', courseId: 'retake', learner: { id: 'gus', firstName: 'Gus', lastName: 'Learner' } } })).status).toBe(204);
    const play = async (success: string) => {
      const link = await call(`${s.api}/registrations/reg-gus/launchLink`, { method: 'POST', auth, json: { redirectOnExitUrl: 'message' } });
      const learner = await context.newPage();
      await learner.goto(link.body.launchLink);
      await waitFor(async () => (await call(`${s.api}/registrations/reg-gus`, { auth })).body, (p) => p.registrationSuccess === success, 20_000);
      await learner.close();
    };
    await play('FAILED');
    expect((await call(`${s.api}/registrations/reg-gus/instances`, { method: 'POST', auth })).status).toBe(204);
    await play('PASSED');

    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(await linkFor('NONAV', `${s.baseUrl}/reports/registrations/reg-gus`));
    await page.getByRole('heading', { level: 1, name: 'Registration reg-gus' }).waitFor();
    const rows = await tableRows(page, 'Attempts (instances) of the registration');
    expect(rows.map((r) => r.slice(0, 7))).toEqual([
      ['Attempt 2 (latest)', '1', '1', 'Completed', 'Passed', '90', '4 min 00 s'],
      ['Attempt 1', '0', '1', 'Completed', 'Failed', '30', '1 min 30 s'],
    ]);
    // The latest attempt's activities and runtime data first.
    await page.getByRole('heading', { level: 2, name: 'Activities and runtime data: Attempt 2 (latest)' }).waitFor();
    expect(await figure(page, 'attempt-score')).toBe('90');
    expect(await figure(page, 'attempt-time')).toBe('4 min 00 s');
    await page.getByText('Runtime data: 1 interaction(s)').click();
    expect(await tableRows(page, 'Interactions of The SCO')).toEqual([['capital', 'Paris', 'correct', 'PT20S']]);

    // The first attempt, chosen: its numbers and answers, kept in the URL.
    await page.getByLabel('Attempt shown').selectOption({ label: 'Attempt 1' });
    await page.getByRole('heading', { level: 2, name: 'Activities and runtime data: Attempt 1' }).waitFor();
    expect(new URL(page.url()).searchParams.get('attempt')).toBe('0');
    expect(await figure(page, 'attempt-completion')).toBe('Completed');
    expect(await figure(page, 'attempt-success')).toBe('Failed');
    expect(await figure(page, 'attempt-score')).toBe('30');
    expect(await figure(page, 'attempt-time')).toBe('1 min 30 s');
    await page.getByText('Runtime data: 1 interaction(s)').click();
    expect(await tableRows(page, 'Interactions of The SCO')).toEqual([['capital', 'Lyon', 'incorrect', 'PT45S']]);
    await screenshot(page, 'viewer-registration-attempts-1280');
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Activities and runtime data: Attempt 1' }).waitFor();
    expect(await figure(page, 'attempt-score')).toBe('30');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download Attempts (instances) of the registration as CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('attempts-reg-gus.csv');
    const csv = readFileSync(await download.path(), 'utf8').split('\r\n');
    expect(csv[0]).toBe('Attempt,Instance,Course version,Completion,Success,Score,Time spent,First access,Completed');
    expect(csv[1]).toMatch(/^2,1,1,Completed,Passed,90,240,\d{4}-/);
    expect(csv[2]).toMatch(/^1,0,1,Completed,Failed,30,90,\d{4}-/);

    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.close();
  });
});
