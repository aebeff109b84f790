import { generateKeyPair } from 'jose';
import { importCourse } from '../support/courses';
import { finishSco, PASSING_SCO_12 } from '../support/dispatch-lms';
import { Lti13Platform, startLti13Platform } from '../support/lti13-platform';
import { createClients, errorBody, failure, invoke, op, sc } from '../support/official-client';
import { launchBrowser, openPage, scoPackage, waitFor } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * LTI 1.3 dispatch launches from a test platform written here (its own keys and JWKS, OIDC authorization endpoint,
 * token endpoint and AGS scores service): login initiation, the id_token checks, a completed course's score received
 * by the platform; refused launches (wrong audience, another key, expired token, replayed nonce, wrong deployment).
 */
describe('LTI 1.3 dispatch launches', () => {
  let s: TestServer;
  let platform: Lti13Platform;
  let app: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let api: any;

  beforeAll(async () => {
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true', LCDS_POSTBACK_BACKOFF_MS: '100' });
    platform = await startLti13Platform();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'lti13c', { name: 'lti13c.zip', data: await scoPackage('1.2', PASSING_SCO_12), type: 'application/zip' });
    const lti13Data = {
      clientId: platform.clientId,
      platformIssuerIdentifier: platform.origin,
      deploymentId: platform.deploymentId,
      oidcAuthorizationEndpoint: `${platform.origin}/auth`,
      jsonWebKeySetUrl: `${platform.origin}/jwks`,
      accessTokenUrl: `${platform.origin}/token`,
    };
    api = new sc.DispatchApi(createClients(s.api, { normal: [s.firstStart.application.appId, s.firstStart.application.secretKey] }).apiClient);
    await op(api, 'setDestination', 'p13', Object.assign(new sc.DestinationSchema(), { name: 'LTI 1.3 platform', lti13Data: Object.assign(new sc.Lti13PlatformConfigurationSchema(), lti13Data) }));
    await call(`${s.api}/dispatch/dispatches`, { method: 'POST', auth: app, json: { dispatches: [{ id: 'd13', data: { destinationId: 'p13', courseId: 'lti13c' } }] } });
    const config = await op(api, 'getLti13ToolConfigurationSchema', 'p13');
    const target = await op(api, 'getLti13Dispatch', 'd13');
    platform.configure({ ...config, targetLinkUri: target.targetLinkUri });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await s?.close();
  });

  /** A login initiation as the platform makes it: the tool's state and nonce from its redirect to /auth. */
  const login = async (user: string) => {
    const res = await fetch(platform.startUrl(user), { redirect: 'manual' });
    const toTool = await fetch(res.headers.get('location')!, { redirect: 'manual' });
    expect(toTool.status).toBe(302);
    const auth = new URL(toTool.headers.get('location')!);
    expect(`${auth.origin}${auth.pathname}`).toBe(`${platform.origin}/auth`);
    return { state: auth.searchParams.get('state')!, nonce: auth.searchParams.get('nonce')! };
  };
  const launch = (idToken: string, state: string) => fetch(`${s.baseUrl}/dispatch/lti13/launch`, { method: 'POST', body: new URLSearchParams({ id_token: idToken, state }), redirect: 'manual' });

  it('GetLti13ToolConfigurationSchema and GetLti13Dispatch; the tool JWKS is published', async () => {
    const config = await op(api, 'getLti13ToolConfigurationSchema', 'p13');
    expect(config).toBeInstanceOf(sc.Lti13ToolConfigurationSchema);
    expect(config.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(config).toMatchObject({ oidcLoginInitiationsUrl: `${s.baseUrl}/dispatch/lti13/login`, redirectUri: `${s.baseUrl}/dispatch/lti13/launch`, jsonWebKeySetUrl: `${s.baseUrl}/dispatch/lti13/jwks` });
    const jwks = await call(config.jsonWebKeySetUrl);
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwks.body.keys[0].d).toBeUndefined();
    expect((await op(api, 'getLti13Dispatch', 'd13')).targetLinkUri).toMatch(new RegExp(`^${s.baseUrl}/dispatch/lti13/target/`));
    expect((await call(`${s.api}/dispatch/destinations/p13`, { auth: app })).body.lti13Data).toMatchObject({ clientId: platform.clientId, deploymentId: platform.deploymentId });
  });

  it('a learner launched from the platform completes the course; the platform receives the score (AGS)', async () => {
    const page = await openPage(browser.context, platform.startUrl('lti13-user-1'));
    await finishSco(page);
    const scores = await waitFor(() => Promise.resolve(platform.scores), (sc2) => sc2.some((x) => x.scoreGiven === 0.85 && x.gradingProgress === 'FullyGraded'), 20_000);
    expect(scores.at(-1)).toMatchObject({ userId: 'lti13-user-1', scoreGiven: 0.85, scoreMaximum: 1, activityProgress: 'Completed', gradingProgress: 'FullyGraded' });
    expect(platform.assertionsChecked).toBeGreaterThan(0);
    const regs = (await call(`${s.api}/registrations?courseId=lti13c`, { auth: app })).body.registrations;
    expect(regs[0]).toMatchObject({ registrationSuccess: 'PASSED', learner: { id: 'lti13-user-1', firstName: 'Grace', lastName: 'Hopper' } });
    await page.close();
  }, 90_000);

  it('refuses a wrong audience, another key, an expired token, a replayed nonce, a wrong deployment or login', async () => {
    const a = await login('lti13-user-2');
    expect((await launch(await platform.idToken(platform.launchClaims('lti13-user-2', a.nonce), { audience: 'someone-else' }), a.state)).status).toBe(400);
    const other = await generateKeyPair('RS256');
    expect((await launch(await platform.idToken(platform.launchClaims('lti13-user-2', a.nonce), { key: other.privateKey }), a.state)).status).toBe(400);
    const expired = await launch(await platform.idToken(platform.launchClaims('lti13-user-2', a.nonce), { issuedAt: Math.floor(Date.now() / 1000) - 7200, expiresIn: '1h' }), a.state);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('expired');
    expect((await launch(await platform.idToken({ ...platform.launchClaims('lti13-user-2', a.nonce), 'https://purl.imsglobal.org/spec/lti/claim/deployment_id': 'other' }), a.state)).status).toBe(400);
    expect((await launch(await platform.idToken(platform.launchClaims('lti13-user-2', 'not-the-nonce')), a.state)).status).toBe(400);
    const good = await platform.idToken(platform.launchClaims('lti13-user-2', a.nonce));
    const ok = await launch(good, a.state);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toMatch(new RegExp(`^${s.api}/dispatch/dispatches/d13/launches\\?externalConfig=&jwt=`));
    const replay = await launch(good, a.state);
    expect(replay.status).toBe(403);
    expect(await replay.text()).toContain('already used');
    expect((await launch(good, 'forged.state')).status).toBe(400);
    // A login for another issuer than the destination's platform is refused.
    const bad = await fetch(`${s.baseUrl}/dispatch/lti13/login?${new URLSearchParams({ iss: 'https://evil.example', login_hint: 'x', target_link_uri: (await op(api, 'getLti13Dispatch', 'd13')).targetLinkUri })}`, { redirect: 'manual' });
    expect(bad.status).toBe(400);
  });

  it('GetLti13DispatchLaunch (official client, no credentials): the launch hands over to it, it sends to the course once; forged, used or misdirected jwts refused', async () => {
    const anonymous = new sc.DispatchApi(createClients(s.api, {}).apiClient);
    const handover = async (user: string) => {
      const l = await login(user);
      const res = await launch(await platform.idToken(platform.launchClaims(user, l.nonce)), l.state);
      expect(res.status).toBe(303);
      return new URL(res.headers.get('location')!);
    };
    const first = await handover('lti13-user-3');
    expect(first.pathname).toBe('/api/v2/dispatch/dispatches/d13/launches');
    const jwt = first.searchParams.get('jwt')!;
    // Through the client: the 303 is followed to the player.
    const done = await invoke(anonymous, 'getLti13DispatchLaunch', 'd13', first.searchParams.get('externalConfig'), jwt);
    expect(done.response.status).toBe(200);
    expect(done.response.redirects[0]).toMatch(new RegExp(`^${s.baseUrl}/player/launch/`));
    const again = await failure(anonymous, 'getLti13DispatchLaunch', 'd13', '', jwt);
    expect(again.status).toBe(400);
    expect(errorBody(again).message).toMatch(/already used/);

    const second = (await handover('lti13-user-4')).searchParams.get('jwt')!;
    expect((await failure(anonymous, 'getLti13DispatchLaunch', 'other-dispatch', '', second)).status).toBe(404);
    const [h, p] = second.split('.');
    const forged = await failure(anonymous, 'getLti13DispatchLaunch', 'd13', '', `${h}.${p}.${'A'.repeat(43)}`);
    expect(forged.status).toBe(400);
    expect(errorBody(forged).message).toMatch(/jwt: not a launch that LCDS made/);
    const missing = await fetch(`${s.api}/dispatch/dispatches/d13/launches?jwt=${second}`, { redirect: 'manual' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toMatch(/externalConfig/);
    // Raw HTTP: the hand-over is a 303 to the player, not cached.
    const raw = await fetch(`${s.api}/dispatch/dispatches/d13/launches?externalConfig=&jwt=${second}`, { redirect: 'manual' });
    expect(raw.status).toBe(303);
    expect(raw.headers.get('location')).toMatch(new RegExp(`^${s.baseUrl}/player/launch/`));
    expect(raw.headers.get('cache-control')).toBe('no-store');
  });
});
