import { importCourse } from '../support/courses';
import { finishSco, PASSING_SCO_12 } from '../support/dispatch-lms';
import { startLtiPlatform, LtiPlatform, signedLaunch } from '../support/lti-platform';
import { sc, createClients, op } from '../support/official-client';
import { launchBrowser, openPage, scoPackage, waitFor } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * LTI 1.1 dispatch launches from a test platform written here (its own OAuth 1.0a signing, its own Basic Outcomes
 * service): the learner completes the course in chromium and the platform receives the score, signed with the
 * dispatch's secret; refused launches (bad signature, wrong key, replayed nonce, old timestamp, disabled dispatch).
 */
describe('LTI 1.1 dispatch launches', () => {
  let s: TestServer;
  let platform: LtiPlatform;
  let app: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let info: { url: string; consumerKey: string; sharedSecret: string };

  beforeAll(async () => {
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true', LCDS_POSTBACK_BACKOFF_MS: '100' });
    platform = await startLtiPlatform();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'lti12', { name: 'lti12.zip', data: await scoPackage('1.2', PASSING_SCO_12), type: 'application/zip' });
    await call(`${s.api}/dispatch/destinations`, { method: 'POST', auth: app, json: { destinations: [{ id: 'platform', data: { name: 'Test platform' } }] } });
    await call(`${s.api}/dispatch/dispatches`, { method: 'POST', auth: app, json: { dispatches: [{ id: 'lti-d', data: { destinationId: 'platform', courseId: 'lti12' } }] } });
    const clients = createClients(s.api, { normal: [s.firstStart.application.appId, s.firstStart.application.secretKey] });
    const got = await op(new sc.DispatchApi(clients.apiClient), 'getLTIDispatch', 'lti-d');
    expect(got).toBeInstanceOf(sc.DispatchLtiInfoSchema);
    info = got;
    platform.configure({ url: info.url, key: info.consumerKey, secret: info.sharedSecret });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await s?.close();
  });

  const post = (fields: Record<string, string>) => fetch(info.url, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });

  it('GetLtiDispatch: the launch URL, consumer key and shared secret of the dispatch', () => {
    expect(info.url).toBe(`${s.baseUrl}/dispatch/lti/${info.consumerKey}`);
    expect(info.sharedSecret).not.toBe(s.firstStart.application.secretKey);
    expect(info.sharedSecret.length).toBeGreaterThanOrEqual(40);
  });

  it('a learner launched from the platform completes the course; the platform receives the score (Basic Outcomes)', async () => {
    const page = await openPage(browser.context, platform.launchPageUrl({ id: 'lti-user-1', given: 'Ada', family: 'Lovelace', sourcedId: 'grade-ada' }));
    await finishSco(page);
    const received = await waitFor(() => Promise.resolve(platform.outcomes.filter((o) => o.sourcedId === 'grade-ada')), (o) => o.some((x) => x.score === 0.85), 20_000);
    expect(received.at(-1)).toEqual({ sourcedId: 'grade-ada', score: 0.85, signatureValid: true, bodyHashValid: true });
    const regs = (await call(`${s.api}/registrations?courseId=lti12`, { auth: app })).body.registrations;
    expect(regs).toHaveLength(1);
    expect(regs[0]).toMatchObject({ registrationSuccess: 'PASSED', learner: { id: 'lti-user-1', firstName: 'Ada', lastName: 'Lovelace' } });
    await page.close();
  });

  it('refuses a bad signature, another key, a replayed nonce, an old timestamp; a disabled dispatch', async () => {
    const fields = { resource_link_id: 'l', user_id: 'lti-user-2' };
    const good = signedLaunch(info.url, info.consumerKey, info.sharedSecret, fields, { nonce: 'n-1' });
    const first = await post(good);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toMatch(/\/player\/launch\//);
    const replay = await post(good);
    expect(replay.status).toBe(403);
    expect(await replay.text()).toContain('already used');
    expect((await post(signedLaunch(info.url, info.consumerKey, 'wrong-secret', fields, { nonce: 'n-2' }))).status).toBe(400);
    expect((await post({ ...signedLaunch(info.url, info.consumerKey, info.sharedSecret, fields, { nonce: 'n-3' }), user_id: 'someone-else' })).status).toBe(400);
    expect((await post(signedLaunch(info.url, 'other-key', info.sharedSecret, fields, { nonce: 'n-4' }))).status).toBe(400);
    const old = await post(signedLaunch(info.url, info.consumerKey, info.sharedSecret, fields, { nonce: 'n-5', timestamp: Math.floor(Date.now() / 1000) - 3600 }));
    expect(old.status).toBe(403);
    expect(await old.text()).toContain('expired');
    await call(`${s.api}/dispatch/dispatches/lti-d/enabled`, { method: 'PUT', auth: app, json: { enabled: false } });
    const off = await post(signedLaunch(info.url, info.consumerKey, info.sharedSecret, { resource_link_id: 'l', user_id: 'lti-user-3' }, { nonce: 'n-6' }));
    expect(off.status).toBe(403);
    expect(await off.text()).toContain('not available');
    expect((await call(`${s.api}/registrations?courseId=lti12`, { auth: app })).body.registrations).toHaveLength(2);
  });
});
