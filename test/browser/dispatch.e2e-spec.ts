import { createHmac } from 'node:crypto';
import { Page } from 'playwright-core';
import { importCourse } from '../support/courses';
import { finishSco, scoFrame, startStandInLms, StandInLms, unzip } from '../support/dispatch-lms';
import { launchBrowser, openPage, scoPackage, waitFor } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/** A one-SCO course (its page says which version it is) whose Finish button passes it with a score of 85. */
const finishingCourse = async (version: string, scorm: '1.2' | '2004' = '1.2') =>
  scoPackage(
    scorm,
    scorm === '1.2'
      ? `API.LMSInitialize(''); document.body.setAttribute('data-version', ${JSON.stringify(version)}); window.finish = function () { API.LMSSetValue('cmi.core.score.raw', '85'); API.LMSSetValue('cmi.core.lesson_status', 'passed'); API.LMSCommit(''); API.LMSFinish(''); };`
      : `API.Initialize(''); document.body.setAttribute('data-version', ${JSON.stringify(version)}); window.finish = function () { API.SetValue('cmi.score.scaled', '0.85'); API.SetValue('cmi.completion_status', 'completed'); API.SetValue('cmi.success_status', 'passed'); API.Commit(''); API.Terminate(''); };`,
  );

/**
 * Dispatch packages in a third-party LMS, in Debian's chromium: a stand-in LMS on another origin imports the zip
 * GetDispatchZip made, its SCORM API records every call; the learner completes the course in LCDS's player inside it,
 * and what LCDS recorded is relayed into the LMS's API. Disabling, caps, expiry, replays, new versions, hashUserInfo.
 */
describe('dispatch packages in a stand-in LMS', () => {
  let s: TestServer;
  let lms: StandInLms;
  let app: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;

  beforeAll(async () => {
    s = await startTestServer();
    lms = await startStandInLms();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'golf12', { name: 'golf12.zip', data: await finishingCourse('v1'), type: 'application/zip' });
    await importCourse(s.api, app, 'golf2004', { name: 'golf2004.zip', data: await finishingCourse('v1', '2004'), type: 'application/zip' });
    expect((await call(`${s.api}/dispatch/destinations`, { method: 'POST', auth: app, json: { destinations: [{ id: 'standin', data: { name: 'Stand-in LMS' } }] } })).status).toBe(204);
    const dispatches = [
      { id: 'd12', data: { destinationId: 'standin', courseId: 'golf12' } },
      { id: 'd2004', data: { destinationId: 'standin', courseId: 'golf2004' } },
      { id: 'dcap', data: { destinationId: 'standin', courseId: 'golf12', registrationCap: 1 } },
    ];
    expect((await call(`${s.api}/dispatch/dispatches`, { method: 'POST', auth: app, json: { dispatches } })).status).toBe(204);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await lms?.close();
    await s?.close();
  });

  const install = async (dispatchId: string, type = 'SCORM_12') => {
    const res = await fetch(`${s.api}/dispatch/dispatches/${dispatchId}/zip?type=${type}`, { headers: { authorization: app } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const files = await unzip(Buffer.from(await res.arrayBuffer()));
    lms.install(dispatchId, files);
    return files;
  };
  const finish = finishSco;
  const lmsCalls = (page: Page) => page.evaluate(() => (window as any).lmsCalls as string[][]);
  const lmsValues = (page: Page) => page.evaluate(() => (window as any).lmsValues as Record<string, string>);
  const courseText = async (page: Page) => {
    for (const f of page.frames()) {
      const text = await f.locator('p[role=alert]').textContent({ timeout: 200 }).catch(() => null);
      if (text) return text;
    }
    return null;
  };
  const registrationsOf = async (courseId: string) => (await call(`${s.api}/registrations?courseId=${courseId}`, { auth: app })).body.registrations as any[];

  it('the package holds no course asset and no application key; only the dispatch key and its own secret', async () => {
    const files = await install('d12');
    expect([...files.keys()].sort()).toEqual(['imsmanifest.xml', 'index.html']);
    const manifest = files.get('imsmanifest.xml')!.toString();
    expect(manifest).toContain('<schemaversion>1.2</schemaversion>');
    expect(manifest).toContain('<title>Generated 1.2</title>');
    const page = files.get('index.html')!.toString();
    expect(page).not.toContain(s.firstStart.application.secretKey);
    expect(page).toContain(s.baseUrl);
    const files2004 = await install('d2004', 'SCORM_2004_3RD');
    expect(files2004.get('imsmanifest.xml')!.toString()).toContain('<schemaversion>2004 3rd Edition</schemaversion>');
    const unknown = await call(`${s.api}/dispatch/dispatches/d12/zip?type=SCORM_2004_4TH`, { auth: app });
    expect(unknown.status).toBe(400);
  });

  it('a learner completes the course in the LMS: the LMS API saw passed and the score, LCDS agrees; coming back resumes', async () => {
    await install('d12');
    const page = await openPage(browser.context, lms.playUrl('d12', { id: 'lms-learner-1', name: 'Lovelace, Ada' }));
    await finish(page);
    await waitFor(() => lmsCalls(page), (calls) => calls.some((c) => c[0] === 'LMSFinish'), 20_000);
    const values = await lmsValues(page);
    expect(values).toMatchObject({ 'cmi.core.lesson_status': 'passed', 'cmi.core.score.raw': '85', 'cmi.core.score.max': '100', 'cmi.core.exit': '', 'cmi.suspend_data': 'lcds-dispatch' });
    expect(values['cmi.core.session_time']).toMatch(/^\d{4}:\d{2}:\d{2}$/);
    const calls = await lmsCalls(page);
    expect(calls[0]).toEqual(['LMSInitialize', '', 'true']);
    expect(calls.filter((c) => c[0] === 'LMSCommit').length).toBeGreaterThan(0);
    expect(calls.filter((c) => c[0] === 'LMSFinish')).toHaveLength(1);
    const regs = await registrationsOf('golf12');
    expect(regs).toHaveLength(1);
    expect(regs[0]).toMatchObject({ registrationSuccess: 'PASSED', registrationCompletion: 'COMPLETED', score: { scaled: 0.85 }, learner: { id: 'lms-learner-1', firstName: 'Ada', lastName: 'Lovelace' } });
    expect((await call(`${s.api}/dispatch/dispatches/d12/registrationCount`, { auth: app })).body.registrationCount).toBe(1);
    await page.close();

    // Coming back: the same registration, no new count.
    const again = await openPage(browser.context, lms.playUrl('d12', { id: 'lms-learner-1', name: 'Lovelace, Ada' }));
    await scoFrame(again);
    expect(await registrationsOf('golf12')).toHaveLength(1);
    expect((await call(`${s.api}/dispatch/dispatches/d12/registrationCount`, { auth: app })).body.registrationCount).toBe(1);
    await again.close();
  });

  it("the destination's launchAuth binds the player session: the course runs in the LMS's frame, its session URL replayed elsewhere is refused", async () => {
    const destinations = [
      { id: 'bound', data: { name: 'Bound LMS', launchAuth: { type: 'VAULT', options: { fingerprint: true, ipAddress: true } } } },
      { id: 'cookied', data: { name: 'Cookie LMS', launchAuth: { type: 'cookies' } } },
    ];
    expect((await call(`${s.api}/dispatch/destinations`, { method: 'POST', auth: app, json: { destinations } })).status).toBe(204);
    const dispatches = [
      { id: 'dbound', data: { destinationId: 'bound', courseId: 'golf2004' } },
      { id: 'dcookied', data: { destinationId: 'cookied', courseId: 'golf2004' } },
    ];
    expect((await call(`${s.api}/dispatch/dispatches`, { method: 'POST', auth: app, json: { dispatches } })).status).toBe(204);
    await install('dbound', 'SCORM_2004_3RD');
    const page = await openPage(browser.context, lms.playUrl('dbound', { id: 'bound-learner', name: 'Bound, Bo' }, '2004'));
    await scoFrame(page);
    const player = page.frames().find((f) => /\/player\/s\/[^/]+\/$/.test(f.url()))!;
    expect(player).toBeDefined();
    // vault (no cookie) with fingerprint: another client (Node's User-Agent) replaying the session URL is refused.
    const replay = await fetch(player.url());
    expect(replay.status).toBe(403);
    expect(await replay.text()).toContain('This session belongs to another browser');
    await finish(page);
    await waitFor(() => registrationsOf('golf2004'), (regs) => regs.some((r) => r.learner.id === 'bound-learner' && r.registrationSuccess === 'PASSED'), 20_000);
    await page.close();

    // cookies over plain http in a cross-site frame (the LMS is on localhost, LCDS on 127.0.0.1): the SameSite=Lax
    // cookie is not kept there, so the player says so (docs/launch-auth.md: serve LCDS over https, or use vault).
    await install('dcookied', 'SCORM_2004_3RD');
    const framed = await openPage(browser.context, lms.playUrl('dcookied', { id: 'cookie-learner', name: 'Cookie, Cy' }, '2004'));
    const refused = await waitFor(
      async () => {
        for (const f of framed.frames()) if (/\/player\/s\//.test(f.url()) && (await f.locator('h1').textContent({ timeout: 200 }).catch(() => null)) === 'This session belongs to another browser') return true;
        return false;
      },
      (x) => x,
    );
    expect(refused).toBe(true);
    await framed.close();
  });

  it('the launch page takes progress only from LCDS: a message from another origin changes nothing in the LMS', async () => {
    // A course and dispatch of its own: the other tests count golf12's registrations.
    await importCourse(s.api, app, 'forge12', { name: 'forge12.zip', data: await finishingCourse('v1'), type: 'application/zip' });
    expect((await call(`${s.api}/dispatch/dispatches`, { method: 'POST', auth: app, json: { dispatches: [{ id: 'dforge', data: { destinationId: 'standin', courseId: 'forge12' } }] } })).status).toBe(204);
    await install('dforge');
    const page = await openPage(browser.context, lms.playUrl('dforge', { id: 'forger-1', name: 'Forger, Fred' }));
    await scoFrame(page);
    const course = page.frames().find((f) => f.url().includes('/courses/dforge/index.html'))!;
    // A page of the LMS's own origin (or anything else framed there) posts what LCDS would post.
    await course.evaluate(() => {
      const forged = { lcdsDispatch: 1, kind: 'exit', progress: { completion: 'COMPLETED', success: 'PASSED', score: 1, totalSeconds: 1, sessionSeconds: 1 } };
      window.postMessage(forged, '*');
      (document.getElementById('lcds-frame') as HTMLIFrameElement).contentWindow!.postMessage(forged, '*');
    });
    // What LCDS itself relays (the learner has not finished: no completion yet) arrives; the forgery does not.
    const values = await waitFor(() => lmsValues(page), (v) => v['cmi.suspend_data'] === 'lcds-dispatch', 10_000);
    expect(values['cmi.core.lesson_status']).not.toBe('passed');
    expect(values['cmi.core.score.raw']).toBeUndefined();
    expect((await lmsCalls(page)).some((c) => c[0] === 'LMSFinish')).toBe(false);
    expect(values['cmi.core.exit']).toBe('suspend');
    await page.close();
  });

  it('SCORM 2004: completion, success and scaled score reach the LMS API_1484_11', async () => {
    await install('d2004', 'SCORM_2004_3RD');
    const page = await openPage(browser.context, lms.playUrl('d2004', { id: 'lms-learner-2', name: 'Hopper, Grace' }, '2004'));
    await finish(page);
    expect((await waitFor(() => lmsCalls(page), (calls) => calls.some((c) => c[0] === 'Terminate'), 20_000)).filter((c) => c[0] === 'Terminate')).toHaveLength(1);
    expect(await lmsValues(page)).toMatchObject({ 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed', 'cmi.score.scaled': '0.85', 'cmi.exit': 'normal' });
    expect((await registrationsOf('golf2004'))[0]).toMatchObject({ registrationSuccess: 'PASSED', learner: { id: 'lms-learner-2' } });
    await page.close();
  });

  it('disabling the dispatch stops the next launch with a plain message; nothing is created', async () => {
    expect((await call(`${s.api}/dispatch/dispatches/d12/enabled`, { method: 'PUT', auth: app, json: { enabled: false } })).status).toBe(204);
    const page = await openPage(browser.context, lms.playUrl('d12', { id: 'lms-learner-3', name: 'Nobody, Ned' }));
    expect(await waitFor(() => courseText(page), (t) => t !== null, 15_000)).toBe('This course is not available at the moment.');
    expect(await registrationsOf('golf12')).toHaveLength(1);
    expect((await lmsCalls(page)).some((c) => c[0] === 'LMSSetValue')).toBe(false);
    await page.close();
    // The destination's switch turns it back on.
    expect((await call(`${s.api}/dispatch/destinations/standin/dispatches/enabled`, { method: 'POST', auth: app, json: { enabled: true } })).status).toBe(204);
  });

  it('a reached cap and an expired dispatch refuse new learners', async () => {
    await install('dcap');
    const first = await openPage(browser.context, lms.playUrl('dcap', { id: 'cap-1', name: 'One, First' }));
    await scoFrame(first);
    await first.close();
    const second = await openPage(browser.context, lms.playUrl('dcap', { id: 'cap-2', name: 'Two, Second' }));
    expect(await waitFor(() => courseText(second), (t) => t !== null, 15_000)).toBe('This course has reached its maximum number of learners.');
    await second.close();
    // Resetting the count lets the next one in.
    expect((await call(`${s.api}/dispatch/dispatches/dcap/registrationCount`, { method: 'DELETE', auth: app })).status).toBe(204);
    const third = await openPage(browser.context, lms.playUrl('dcap', { id: 'cap-2', name: 'Two, Second' }));
    await scoFrame(third);
    await third.close();
    await call(`${s.api}/dispatch/dispatches/dcap`, { method: 'PUT', auth: app, json: { expirationDate: new Date(Date.now() - 1000).toISOString() } });
    const late = await openPage(browser.context, lms.playUrl('dcap', { id: 'cap-1', name: 'One, First' }));
    expect(await waitFor(() => courseText(late), (t) => t !== null, 15_000)).toBe('This course is no longer available: its access has expired.');
    await late.close();
  });

  it('launch tokens: a replayed, expired, altered or foreign token is refused', async () => {
    const files = await install('d12');
    const config = JSON.parse(/var C = (\{.*?\});/.exec(files.get('index.html')!.toString())![1]);
    const sign = (claims: Record<string, unknown>, secret = config.secret) => {
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
      return `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url')}`;
    };
    const now = Math.floor(Date.now() / 1000);
    const claims = { k: config.key, l: 'tok-learner', n: 'Token, Tim', o: lms.origin, t: now, r: 'nonce-1' };
    const launch = (token: string) => call(`${s.baseUrl}/dispatch/launch?token=${encodeURIComponent(token)}`);
    const ok = await launch(sign(claims));
    expect(ok.status).toBe(200);
    // The relay posts to the LMS's origin only (the one signed into the token).
    expect(ok.body).toContain(`"target":"${lms.origin}"`);
    expect((await launch(sign(claims))).body).toContain('already used');
    expect((await launch(sign({ ...claims, r: 'nonce-2', t: now - 600 }))).body).toContain('expired');
    expect((await launch(sign({ ...claims, r: 'nonce-3' }, 'not-the-secret'))).status).toBe(400);
    expect((await launch(sign({ ...claims, r: 'nonce-4', o: 'javascript:alert(1)' }))).status).toBe(400);
    expect((await launch('garbage')).status).toBe(400);
    // The application's strict registration limit: a plain page with its message; the dispatch's count is given back.
    const account = `${s.api}/lcds/applications/${s.firstStart.application.appId}/account`;
    const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    expect((await call(account, { method: 'PUT', auth: mgmt, json: { regLimit: 1, strictLimit: true } })).status).toBe(204);
    const before = (await call(`${s.api}/dispatch/dispatches/d12/registrationCount`, { auth: app })).body.registrationCount;
    const limited = await launch(sign({ ...claims, l: 'over-the-limit', r: 'nonce-6' }));
    expect(limited.status).toBe(403);
    expect(limited.headers.get('content-type')).toMatch(/^text\/html/);
    expect(limited.body).toMatch(/limit/i);
    expect((await call(`${s.api}/dispatch/dispatches/d12/registrationCount`, { auth: app })).body.registrationCount).toBe(before);
    expect((await call(account, { method: 'PUT', auth: mgmt, json: { regLimit: null, strictLimit: false } })).status).toBe(204);
    expect((await call(`${s.baseUrl}/dispatch/status/garbage.sig`)).status).toBe(404);
  });

  it('a new version of the course is what the next launch plays (instanced: a new instance)', async () => {
    await importCourse(s.api, app, 'golf12', { name: 'golf12.zip', data: await finishingCourse('v2'), type: 'application/zip' }, { mayCreateNewVersion: 'true' });
    const page = await openPage(browser.context, lms.playUrl('d12', { id: 'lms-learner-1', name: 'Lovelace, Ada' }));
    const frame = await scoFrame(page);
    expect(await frame!.locator('body').getAttribute('data-version')).toBe('v2');
    const reg = (await registrationsOf('golf12')).find((r) => r.learner.id === 'lms-learner-1');
    expect(reg).toMatchObject({ instance: 1, course: { version: 2 } });
    await page.close();
  });

  it('hashUserInfo hides the learner id and name from LCDS', async () => {
    expect((await call(`${s.api}/dispatch/dispatches/d2004/hashUserInfo`, { method: 'PUT', auth: app, json: { enabled: true } })).status).toBe(204);
    const page = await openPage(browser.context, lms.playUrl('d2004', { id: 'secret-learner-9', name: 'Private, Pat' }, '2004'));
    await finish(page);
    expect((await waitFor(() => lmsCalls(page), (calls) => calls.some((c) => c[0] === 'Terminate'), 20_000)).filter((c) => c[0] === 'Terminate')).toHaveLength(1);
    const regs = await registrationsOf('golf2004');
    const hidden = regs.find((r) => r.learner.id !== 'lms-learner-2');
    expect(hidden.learner.id).toMatch(/^hashed-[0-9a-f]{40}$/);
    expect(JSON.stringify(regs)).not.toMatch(/secret-learner-9|Private|Pat\b/);
    expect(hidden).toMatchObject({ registrationSuccess: 'PASSED' });
    await page.close();
  });
});
