import { createHmac, randomUUID } from 'node:crypto';
import OAuth from 'oauth-1.0a';
import { LrsLaunchTokens } from '../../src/modules/xapi/lrs/lrs-launch-tokens';
import { countQueries } from '../support/query-counter';
import { basic, call, CallResult, startExtraNode, startTestServer, TestServer } from '../support/test-server';
import { isProductionStack } from '../support/test-stack';

/**
 * Authorisation of the LRS beyond basic credentials: the in-memory credential cache (no database read per request;
 * a disabled or deleted credential stops at once, on every node), OAuth 1.0a two-legged for OAUTH credentials
 * (signed by an independent library, oauth-1.0a), and the player's short-lived launch tokens with their limits.
 */
describe('LRS authorisation: credential cache, OAuth, launch tokens', () => {
  let s: TestServer;
  let appId: string;
  let app: string;
  let lrs: string;

  const actor = { objectType: 'Agent', name: 'Ann', account: { homePage: 'https://lcds.example', name: 'learner-ann' } };
  const statement = (over: Record<string, unknown> = {}) => ({
    actor,
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced', display: { 'en-US': 'experienced' } },
    object: { id: 'http://example.com/activities/golf' },
    ...over,
  });
  const lrsCall = (path: string, init: { method?: string; auth?: string; json?: unknown; base?: string } = {}): Promise<CallResult> =>
    call(`${init.base ?? lrs}${path}`, { method: init.method, auth: init.auth, json: init.json, headers: { 'x-experience-api-version': '1.0.3' } });
  const putCredential = async (id: string, extra: Record<string, unknown> = {}) => {
    const r = await call(`${s.api}/xapi/credentials/${id}`, {
      method: 'PUT',
      auth: app,
      json: { name: `cred ${id}`, secret: `secret-${id}`, isEnabled: true, auth: 'BASICAUTH', permissionsLevel: 'ROOT', ...extra },
    });
    expect(r.status).toBe(204);
  };

  beforeAll(async () => {
    s = await startTestServer();
    appId = s.firstStart.application.appId;
    app = basic(appId, s.firstStart.application.secretKey);
    lrs = `${s.baseUrl}/lrs/${appId}`;
  });
  afterAll(async () => s?.close());

  describe('credential cache', () => {
    it('answers repeated LRS requests without reading credentials from the database', async () => {
      await putCredential('cached');
      const auth = basic('cached', 'secret-cached');
      expect((await lrsCall('/statements?limit=1', { auth })).status).toBe(200);
      const counter = countQueries(s.app);
      try {
        for (let i = 0; i < 5; i++) expect((await lrsCall('/statements?limit=1', { auth })).status).toBe(200);
        // Each GET is one statement query; no credential lookups.
        expect(counter.count).toBe(5);
      } finally {
        counter.stop();
      }
      expect((await lrsCall('/statements?limit=1', { auth: basic('cached', 'wrong') })).status).toBe(401);
    });

    it('stops a disabled, changed or deleted credential at once', async () => {
      await putCredential('changing');
      const auth = basic('changing', 'secret-changing');
      expect((await lrsCall('/statements?limit=1', { auth })).status).toBe(200);
      await putCredential('changing', { isEnabled: false });
      expect((await lrsCall('/statements?limit=1', { auth })).status).toBe(401);
      await putCredential('changing', { isEnabled: true, secret: 'rotated' });
      expect((await lrsCall('/statements?limit=1', { auth })).status).toBe(401);
      expect((await lrsCall('/statements?limit=1', { auth: basic('changing', 'rotated') })).status).toBe(200);
      await putCredential('changing', { secret: 'rotated', permissionsLevel: 'WRITEONLY' });
      expect((await lrsCall('/statements?limit=1', { auth: basic('changing', 'rotated') })).status).toBe(403);
      expect((await call(`${s.api}/xapi/credentials/changing`, { method: 'DELETE', auth: app })).status).toBe(204);
      expect((await lrsCall('/statements?limit=1', { auth: basic('changing', 'rotated') })).status).toBe(401);
      // An id tried before it existed works as soon as it is created.
      expect((await lrsCall('/statements?limit=1', { auth: basic('later', 'secret-later') })).status).toBe(401);
      await putCredential('later');
      expect((await lrsCall('/statements?limit=1', { auth: basic('later', 'secret-later') })).status).toBe(200);
    });

    (isProductionStack() ? it : it.skip)('drops the credential on every node (Redis pub/sub)', async () => {
      const other = await startExtraNode(s.stack);
      try {
        await putCredential('shared');
        const auth = basic('shared', 'secret-shared');
        const otherLrs = `${other.baseUrl}/lrs/${appId}`;
        expect((await lrsCall('/statements?limit=1', { auth, base: otherLrs })).status).toBe(200);
        await putCredential('shared', { isEnabled: false });
        let status = 0;
        // The message crosses Redis asynchronously: allow it a moment, far below the cache TTL (60 s).
        for (let i = 0; i < 20 && status !== 401; i++) {
          status = (await lrsCall('/statements?limit=1', { auth, base: otherLrs })).status;
          if (status !== 401) await new Promise((r) => setTimeout(r, 50));
        }
        expect(status).toBe(401);
      } finally {
        await other.close();
      }
    });
  });

  describe('OAuth 1.0a (two-legged) for OAUTH credentials', () => {
    const consumer = { key: 'oauth-ap', secret: 'secret-oauth-ap' };
    const signer = (algorithm: 'HMAC-SHA1' | 'HMAC-SHA256' = 'HMAC-SHA1') =>
      new OAuth({ consumer, signature_method: algorithm, hash_function: (base, key) => createHmac(algorithm === 'HMAC-SHA1' ? 'sha1' : 'sha256', key).update(base).digest('base64') });
    const oauthCall = (method: string, url: string, json?: unknown, oauth = signer(), data?: OAuth.Data) => {
      const header = oauth.toHeader((data ?? oauth.authorize({ url, method })) as OAuth.Authorization).Authorization;
      return call(url, { method, json, headers: { authorization: header, 'x-experience-api-version': '1.0.3' } });
    };

    beforeAll(async () => putCredential(consumer.key, { secret: consumer.secret, auth: 'OAUTH' }));

    it('accepts signed requests (HMAC-SHA1 and HMAC-SHA256, with query parameters)', async () => {
      const id = randomUUID();
      expect((await oauthCall('POST', `${lrs}/statements`, statement({ id }))).status).toBe(200);
      const got = await oauthCall('GET', `${lrs}/statements?statementId=${id}`);
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ id, authority: { account: { name: consumer.key } } });
      const listed = await oauthCall('GET', `${lrs}/statements?verb=${encodeURIComponent('http://adlnet.gov/expapi/verbs/experienced')}&limit=2`, undefined, signer('HMAC-SHA256'));
      expect(listed.status).toBe(200);
    });

    it('refuses bad signatures, replays, stale timestamps, tokens, and basic authentication with an OAUTH credential', async () => {
      const url = `${lrs}/statements?limit=1`;
      const wrong = new OAuth({ consumer: { key: consumer.key, secret: 'nope' }, signature_method: 'HMAC-SHA1', hash_function: (b, k) => createHmac('sha1', k).update(b).digest('base64') });
      const bad = await oauthCall('GET', url, undefined, wrong);
      expect({ status: bad.status, error: bad.body.error }).toEqual({ status: 401, error: expect.stringMatching(/signature does not match/) });
      const oauth = signer();
      const data = oauth.authorize({ url, method: 'GET' });
      expect((await oauthCall('GET', url, undefined, oauth, data)).status).toBe(200);
      const replay = await oauthCall('GET', url, undefined, oauth, data);
      expect({ status: replay.status, error: replay.body.error }).toEqual({ status: 401, error: expect.stringMatching(/nonce was used before/) });
      const old = { ...oauth.authorize({ url, method: 'GET' }), oauth_timestamp: Math.floor(Date.now() / 1000) - 3600 };
      old.oauth_signature = oauth.getSignature({ url, method: 'GET' }, undefined, old);
      expect((await oauthCall('GET', url, undefined, oauth, old)).body.error).toMatch(/timestamp/);
      const tokenData = oauth.authorize({ url, method: 'GET' }, { key: 'some-token', secret: '' });
      expect((await oauthCall('GET', url, undefined, oauth, tokenData)).body.error).toMatch(/two-legged/);
      // Signed for another URL (another application's LRS path): refused.
      const elsewhere = oauth.authorize({ url: `${s.baseUrl}/lrs/other/statements?limit=1`, method: 'GET' });
      expect((await oauthCall('GET', url, undefined, oauth, elsewhere)).status).toBe(401);
      expect((await lrsCall('/statements?limit=1', { auth: basic(consumer.key, consumer.secret) })).status).toBe(401);
      // A broken percent-escape is a malformed header (it was a 500, and needs no credentials to send).
      for (const header of ['OAuth oauth_consumer_key="%ZZ"', 'OAuth oauth_%E0%A4%A="x"']) {
        const malformed = await lrsCall('/statements?limit=1', { auth: header });
        expect({ header, status: malformed.status }).toEqual({ header, status: 401 });
      }
    });
  });

  describe('launch tokens', () => {
    const registration = randomUUID();
    const inRegistration = (over: Record<string, unknown> = {}) => statement({ context: { registration }, ...over });
    let tokens: LrsLaunchTokens;
    beforeAll(() => {
      tokens = s.app.get(LrsLaunchTokens);
    });

    it('lets content write and read its learner’s statements in its registration', async () => {
      const t = tokens.mint(appId, { registration, actor, expiresInSeconds: 60 });
      expect(t.authorization).toBe(`Basic ${t.authToken}`);
      const id = randomUUID();
      const st = inRegistration({ id });
      expect((await lrsCall('/statements', { method: 'POST', auth: t.authorization, json: [st] })).status).toBe(200);
      expect((await lrsCall(`/statements?statementId=${id}`, { method: 'PUT', auth: t.authorization, json: st })).status).toBe(204);
      const mine = await lrsCall(`/statements?registration=${registration}`, { auth: t.authorization });
      expect(mine.status).toBe(200);
      expect(mine.body.statements.map((x: { id: string }) => x.id)).toEqual([id]);
      expect((await lrsCall('/about', { auth: t.authorization })).status).toBe(200);
    });

    it('refuses other learners, other registrations, other applications, writes elsewhere, expired and altered tokens', async () => {
      const t = tokens.mint(appId, { registration, actor, expiresInSeconds: 60 });
      const other = { objectType: 'Agent', mbox: 'mailto:eve@example.com' };
      const cases: Array<[string, Promise<CallResult>, number, RegExp]> = [
        ['other actor', lrsCall('/statements', { method: 'POST', auth: t.authorization, json: inRegistration({ actor: other }) }), 403, /actor is its learner/],
        ['other registration', lrsCall('/statements', { method: 'POST', auth: t.authorization, json: statement({ context: { registration: randomUUID() } }) }), 403, /registration/],
        ['no registration', lrsCall('/statements', { method: 'POST', auth: t.authorization, json: statement() }), 403, /registration/],
        ['read everything', lrsCall('/statements', { auth: t.authorization }), 403, /registration=/],
        ['read another registration', lrsCall(`/statements?registration=${randomUUID()}`, { auth: t.authorization }), 403, /registration/],
        ['another learner’s state', lrsCall(`/activities/state?activityId=x&agent=${encodeURIComponent(JSON.stringify(other))}&stateId=s`, { auth: t.authorization }), 403, /State of its learner/],
        ['write an activity profile', lrsCall('/activities/profile?activityId=x&profileId=p', { method: 'PUT', auth: t.authorization, json: {} }), 403, /activity profiles of its course/],
        ['read an activity profile', lrsCall('/activities/profile?activityId=x&profileId=p', { auth: t.authorization }), 403, /activity profiles of its course/],
        ['another learner’s profile', lrsCall(`/agents/profile?agent=${encodeURIComponent(JSON.stringify(other))}&profileId=p`, { auth: t.authorization }), 403, /profile of its learner/],
      ];
      for (const [what, pending, status, message] of cases) {
        const r = await pending;
        expect({ what, status: r.status, message: r.body.message }).toEqual({ what, status, message: expect.stringMatching(message) });
      }
      const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
      const otherApp = (await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'other' } })).body.id as string;
      expect((await lrsCall(`/statements?registration=${registration}`, { auth: t.authorization, base: `${s.baseUrl}/lrs/${otherApp}` })).status).toBe(401);
      const [user, token] = Buffer.from(t.authToken, 'base64').toString().split(':');
      const altered = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
      expect((await lrsCall(`/statements?registration=${registration}`, { auth: basic(user, altered) })).status).toBe(401);
      const short = tokens.mint(appId, { registration, actor, expiresInSeconds: 1 });
      await new Promise((r) => setTimeout(r, 1100));
      const expired = await lrsCall(`/statements?registration=${registration}`, { auth: short.authorization });
      expect({ status: expired.status, error: expired.body.error }).toEqual({ status: 401, error: expect.stringMatching(/expired/) });
    });
  });
});
