import { BrowserContext, Page } from 'playwright-core';
import { KeyRing } from '../../src/platform/crypto/keyring';
import { encodeToken } from '../../src/modules/player/player-tokens';
import { fixture, importCourse } from '../support/courses';
import { openPage, playerTestBed, scoPackage, waitFor } from '../support/player';
import { call, TestServer } from '../support/test-server';

describe('player: launch links, the SCORM runtime in a real browser, commits, progress', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const learner = { id: 'learner-1', firstName: 'Ada', lastName: 'Lovelace' };

  const { createReg, link, progress } = playerTestBed(learner, (bed) => ({ s, app, context } = bed), async () => {
    await importCourse(s.api, app, 'golf12', fixture('scorm12-golf-runtime-basic.zip'));
    await importCourse(s.api, app, 'golf2004', fixture('scorm2004-3rd-golf-runtime-basic.zip'));
    const gen12 = await scoPackage(
      '1.2',
      `API.LMSInitialize('');
       document.title = 'entry=' + API.LMSGetValue('cmi.core.entry') + ';suspend=' + API.LMSGetValue('cmi.suspend_data') + ';location=' + API.LMSGetValue('cmi.core.lesson_location') + ';name=' + API.LMSGetValue('cmi.core.student_name');
       window.finish = function () {
         API.LMSSetValue('cmi.core.score.raw', '85'); API.LMSSetValue('cmi.core.score.min', '0'); API.LMSSetValue('cmi.core.score.max', '100');
         API.LMSSetValue('cmi.core.lesson_status', 'passed'); API.LMSSetValue('cmi.core.session_time', '00:01:30.00');
         API.LMSSetValue('cmi.interactions.0.id', 'q1'); API.LMSSetValue('cmi.interactions.0.type', 'choice'); API.LMSSetValue('cmi.interactions.0.result', 'correct');
         API.LMSCommit(''); API.LMSFinish('');
       };
       window.halfway = function () {
         API.LMSSetValue('cmi.core.lesson_status', 'incomplete'); API.LMSSetValue('cmi.core.lesson_location', 'page-3');
         API.LMSSetValue('cmi.suspend_data', 'viewed=1,2,3'); API.LMSSetValue('cmi.core.exit', 'suspend'); API.LMSSetValue('cmi.core.session_time', '00:00:20');
       };`,
    );
    const gen2004 = await scoPackage(
      '2004',
      `API.Initialize('');
       window.finish = function () {
         API.SetValue('cmi.completion_status', 'completed'); API.SetValue('cmi.success_status', 'failed');
         API.SetValue('cmi.score.scaled', '0.4'); API.SetValue('cmi.score.raw', '40'); API.SetValue('cmi.session_time', 'PT45S');
         API.SetValue('cmi.location', 'end'); API.Commit(''); API.Terminate('');
       };`,
    );
    await importCourse(s.api, app, 'gen12', { name: 'gen12.zip', data: gen12, type: 'application/zip' });
    await importCourse(s.api, app, 'gen2004', { name: 'gen2004.zip', data: gen2004, type: 'application/zip' });
  });
  const open = (url: string) => openPage(context, url);
  const sco = (page: Page) => page.frameLocator('#lcds-sco');
  const scoFrame = (page: Page) => page.frames().find((f) => f.url().includes('/content/'))!;

  it('runs a generated SCORM 1.2 SCO and records exact completion, success, score, time and runtime', async () => {
    await createReg('r12', 'gen12');
    const url = await link('r12');
    expect(url).toMatch(new RegExp(`^${s.baseUrl}/player/launch/[\\w-]+\\.[\\w-]+$`));
    const page = await open(url);
    await sco(page).locator('#state').filter({ hasText: 'ready' }).waitFor();
    expect(await page.evaluate('typeof window.API.LMSInitialize')).toBe('function');
    await sco(page).locator('#finish').click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    const p = await waitFor(() => progress('r12'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: { scaled: 0.85 }, totalSecondsTracked: 90, registrationCompletionAmount: 1 });
    expect(p.firstAccessDate).toBeDefined();
    expect(p.completedDate).toBeDefined();
    const leaf = p.activityDetails.children[0];
    expect(leaf).toMatchObject({ id: 'sco-1', activityCompletion: 'COMPLETED', activitySuccess: 'PASSED', score: { scaled: 0.85 }, attempts: 1, timeTracked: '0000:01:30' });
    expect(leaf.runtime).toMatchObject({ completionStatus: 'completed', runtimeSuccessStatus: 'PASSED', scoreRaw: '85', scoreMax: '100', scoreScaled: '0.85', totalTime: '0000:01:30' });
    const withInteractions = (await call(`${s.api}/registrations/r12?includeRuntime=true&includeChildResults=true&includeInteractionsAndObjectives=true`, { auth: app })).body;
    expect(withInteractions.activityDetails.children[0].runtime.runtimeInteractions[0]).toMatchObject({ id: 'q1', type: 'Choice', result: 'correct' });
    const history = (await call(`${s.api}/registrations/r12/launchHistory`, { auth: app })).body.launchHistory;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ completionStatus: 'COMPLETED', successStatus: 'PASSED', totalSecondsTracked: 90, score: { scaled: 0.85 } });
    expect(history[0].exitTime).toBeDefined();
    expect(history[0].lastRuntimeUpdate).toBeDefined();

    // What the SCO did is in the application's LRS as statements of the ADL xAPI SCORM Profile, in the registration.
    const registration = (await call(`${s.api}/registrations/r12`, { auth: app })).body.xapiRegistrationId as string;
    const lrsStatements = async () => {
      const r = await fetch(`${s.config.publicUrl}/lrs/${s.firstStart.application.appId}/statements?registration=${registration}&ascending=true`, {
        headers: { authorization: app, 'x-experience-api-version': '1.0.3' },
      });
      return ((await r.json()) as { statements: Array<{ verb: { id: string }; result?: Record<string, any>; object: { id: string }; context?: Record<string, any> }> }).statements;
    };
    const expected = ['launched', 'initialized', 'responded', 'completed', 'passed', 'terminated'];
    const statements = await waitFor(lrsStatements, (l) => l.length >= expected.length);
    expect(statements.map((st) => st.verb.id.split('/').pop()).sort()).toEqual([...expected].sort());
    const verb = (v: string) => statements.find((st) => st.verb.id === `http://adlnet.gov/expapi/verbs/${v}`)!;
    expect(verb('passed').result).toMatchObject({ success: true, score: { scaled: 0.85, raw: 85 } });
    expect(verb('responded').object.id).toMatch(/q1$/);
    expect(verb('responded').result).toMatchObject({ success: true });
    expect(verb('terminated').result).toMatchObject({ duration: 'PT90S' });
    for (const st of statements) expect(st.context?.contextActivities?.category).toEqual([expect.objectContaining({ id: 'https://w3id.org/xapi/scorm' })]);

    // The link was used: opening it again shows the "already used" page.
    const again = await context.newPage();
    const res = await again.goto(url);
    expect(res!.status()).toBe(410);
    expect(await again.locator('h1').textContent()).toMatch(/already been used/);
    await again.close();
    await page.close();
  });

  it('runs a generated SCORM 2004 SCO and records exact completion, success, score and time', async () => {
    await createReg('r2004', 'gen2004');
    const page = await open(await link('r2004'));
    await sco(page).locator('#state').filter({ hasText: 'ready' }).waitFor();
    expect(await page.evaluate('typeof window.API_1484_11.Initialize')).toBe('function');
    await sco(page).locator('#finish').click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    const p = await waitFor(() => progress('r2004'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'FAILED', score: { scaled: 0.4 }, totalSecondsTracked: 45 });
    expect(p.activityDetails.children[0].runtime).toMatchObject({ completionStatus: 'completed', runtimeSuccessStatus: 'FAILED', location: 'end', scoreScaled: '0.4', scoreRaw: '40' });
    await page.close();
  });

  it('keeps what the SCO reported when the tab is closed mid-lesson, and resumes from it', async () => {
    await createReg('r-close', 'gen12');
    const page = await open(await link('r-close'));
    await sco(page).locator('#state').filter({ hasText: 'ready' }).waitFor();
    await scoFrame(page).evaluate('window.halfway()');
    await page.close({ runBeforeUnload: true });
    const p = await waitFor(() => progress('r-close'), (v) => v.registrationCompletion === 'INCOMPLETE');
    expect(p).toMatchObject({ registrationCompletion: 'INCOMPLETE', registrationSuccess: 'UNKNOWN', totalSecondsTracked: 20, suspendedActivityId: 'sco-1' });
    expect(p.activityDetails.children[0].runtime).toMatchObject({ location: 'page-3', suspendData: 'viewed=1,2,3', exit: 'suspend' });

    // A new launch resumes: entry=resume, the suspend data and location come back.
    const resumed = await open(await link('r-close'));
    await sco(resumed).locator('#state').filter({ hasText: 'ready' }).waitFor();
    const title = await scoFrame(resumed).evaluate('document.title');
    expect(title).toBe('entry=resume;suspend=viewed=1,2,3;location=page-3;name=Lovelace, Ada');
    await sco(resumed).locator('#finish').click();
    const done = await waitFor(() => progress('r-close'), (v) => v.registrationCompletion === 'COMPLETED');
    // 20 s of the first session + 90 s of the second.
    expect(done).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', totalSecondsTracked: 110 });
    expect((await call(`${s.api}/registrations/r-close/launchHistory`, { auth: app })).body.launchHistory).toHaveLength(2);
    await resumed.close();
  });

  it('runs the golf SCORM 1.2 course: paging to the end and exiting completes it with tracked time', async () => {
    await createReg('golf', 'golf12');
    const before = await progress('golf');
    expect(before.registrationCompletion).toBe('UNKNOWN');
    const page = await open(await link('golf'));
    const next = sco(page).locator('#butNext');
    await next.waitFor();
    await waitFor(async () => (await progress('golf')).registrationCompletion, (c) => c === 'INCOMPLETE', 15_000);
    for (let i = 0; i < 40 && (await next.isEnabled()); i++) await next.click();
    await page.waitForTimeout(2100);
    await sco(page).locator('#butExit').click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    const p = await waitFor(() => progress('golf'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p.registrationCompletion).toBe('COMPLETED');
    expect(p.totalSecondsTracked).toBeGreaterThanOrEqual(2);
    expect(p.activityDetails.children[0].runtime.location).not.toBe('');
    await page.close();
  });

  it('runs the golf SCORM 2004 course and records progress', async () => {
    await createReg('golf04', 'golf2004');
    const page = await open(await link('golf04'));
    await sco(page).locator('#butNext').waitFor();
    const p = await waitFor(() => progress('golf04'), (v) => v.registrationCompletion !== 'UNKNOWN', 15_000);
    expect(p.registrationCompletion).toBe('INCOMPLETE');
    await page.close({ runBeforeUnload: true });
    const after = await waitFor(() => progress('golf04'), (v) => v.activityDetails.children[0].runtime.exit === 'suspend');
    expect(after.activityDetails.children[0].runtime.exit).toBe('suspend');
  });

  it('shows clear pages for expired, tampered and unknown links; tracking=false records nothing', async () => {
    await createReg('r-links', 'gen12');
    const keys = s.app.get(KeyRing);
    const expired = encodeToken(keys, { t: 'launch', id: '00000000-0000-4000-8000-000000000000', app: s.firstStart.application.appId, reg: 'r-links', inst: 0, exp: Math.floor(Date.now() / 1000) - 5, redirect: '', tracking: true });
    const page = await context.newPage();
    let res = await page.goto(`${s.baseUrl}/player/launch/${expired}`);
    expect(res!.status()).toBe(410);
    expect(await page.locator('h1').textContent()).toMatch(/expired/);
    const good = (await link('r-links')).split('/').pop()!;
    res = await page.goto(`${s.baseUrl}/player/launch/${good.slice(0, -3)}abc`);
    expect(res!.status()).toBe(400);
    expect(await page.locator('h1').textContent()).toMatch(/not valid/);
    expect(await page.content()).not.toMatch(/at \w+ \(/);

    const untracked = await open(await link('r-links', { tracking: false }));
    await sco(untracked).locator('#state').filter({ hasText: 'ready' }).waitFor();
    await sco(untracked).locator('#finish').click();
    await untracked.locator('#lcds-done').waitFor({ state: 'visible' });
    const p = await progress('r-links');
    expect(p).toMatchObject({ registrationCompletion: 'UNKNOWN', registrationSuccess: 'UNKNOWN', totalSecondsTracked: 0 });
    expect((await call(`${s.api}/registrations/r-links/launchHistory`, { auth: app })).body.launchHistory).toEqual([]);
    await untracked.close();
    await page.close();
  });

  it('serves content with types, ranges and caching; refuses traversal; orders commits by sequence', async () => {
    await createReg('r-http', 'golf12');
    const launch = await fetch(await link('r-http'), { redirect: 'manual' });
    expect(launch.status).toBe(303);
    const playerUrl = new URL(launch.headers.get('location')!, s.baseUrl).toString();
    const pageRes = await fetch(playerUrl);
    expect(pageRes.status).toBe(200);
    expect(pageRes.headers.get('content-type')).toMatch(/text\/html/);
    const html = await fetch(`${playerUrl}content/shared/launchpage.html`);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html.headers.get('cache-control')).toMatch(/^private, max-age=\d+/);
    const etag = html.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const full = Buffer.from(await (await fetch(`${playerUrl}content/shared/background.jpg`)).arrayBuffer());
    const part = await fetch(`${playerUrl}content/shared/background.jpg`, { headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-type')).toBe('image/jpeg');
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${full.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(full.subarray(10, 20));
    expect((await fetch(`${playerUrl}content/shared/background.jpg`, { headers: { range: `bytes=${full.length}-` } })).status).toBe(416);
    expect((await fetch(`${playerUrl}content/shared/launchpage.html`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await fetch(`${playerUrl}content/shared/%2e%2e%2fimsmanifest.xml`)).status).toBe(400);
    expect((await fetch(`${playerUrl}content/..%2f..%2fx`)).status).toBe(400);
    expect((await fetch(`${playerUrl}content/nope.html`)).status).toBe(404);

    const commit = (seq: number, status: string) =>
      fetch(`${playerUrl}commit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seq, activityId: (global as any).golfId ?? 'golf_sample_default_sco', cmi: { 'cmi.core.lesson_status': status, 'cmi.core.session_time': '00:00:10' } }) }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const sco1 = (await progress('r-http')).activityDetails.children[0].id;
    (global as any).golfId = sco1;
    expect(await commit(2, 'completed')).toMatchObject({ status: 200, body: { result: true, applied: true } });
    expect(await commit(1, 'incomplete')).toMatchObject({ status: 200, body: { result: true, applied: false } });
    expect(await commit(2, 'incomplete')).toMatchObject({ status: 200, body: { applied: false } });
    expect((await progress('r-http')).registrationCompletion).toBe('COMPLETED');
    expect(await commit(3, 'failed')).toMatchObject({ body: { applied: true } });
    expect((await progress('r-http')).registrationSuccess).toBe('FAILED');

    // A tampered session token: no content, no commits.
    const bad = playerUrl.replace(/\.([\w-]+)\/$/, '.x$1/');
    expect((await fetch(`${bad}content/shared/launchpage.html`)).status).toBe(400);
    // Deleting the registration ends the session.
    expect((await call(`${s.api}/registrations/r-http`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect((await fetch(`${playerUrl}content/shared/launchpage.html`)).status).toBe(410);
  });
});
