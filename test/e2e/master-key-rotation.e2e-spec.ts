import { randomBytes } from 'node:crypto';
import { cliJson, ensureCliBuilt, runCli, type CliResult } from '../support/cli';
import { importCourse } from '../support/courses';
import { scoPackage } from '../support/player';
import { basic, call, startExtraNode, startTestServer } from '../support/test-server';
import { createTestStack, type TestStack } from '../support/test-stack';

/**
 * Master key rotation (#22 point 4): start with key A; restart with key B and A as previous; `lcds secrets reseal`;
 * restart with B alone: every secret key, LRS credential, statement pipe password, postback password and dispatch secret still works.
 */
describe('master key rotation: LCDS_PREVIOUS_MASTER_KEYS and lcds secrets reseal', () => {
  let stack: TestStack;
  const keyA = () => stack.env.LCDS_MASTER_KEY;
  const keyB = randomBytes(32).toString('hex');
  let app: { appId: string; secretKey: string };
  let mgmt: { appId: string; secretKey: string };
  let secondKey: string;
  let tokenA: string;
  let pipeId: string;
  let toolKid: string;
  let dispatchSecret: string;
  const jwksKid = async (baseUrl: string) => ((await (await fetch(`${baseUrl}/dispatch/lti13/jwks`)).json()) as { keys: Array<{ kid: string }> }).keys[0].kid;

  const lcds = (args: string[], env: Record<string, string>): Promise<CliResult> => runCli(stack.env, stack.dataDir, args, env);
  const lrsPing = (baseUrl: string, user: string, secret: string) =>
    call(`${baseUrl}/lrs/${app.appId}/statements?limit=1`, { auth: basic(user, secret), headers: { 'x-experience-api-version': '1.0.3' } });
  const token = async (api: string) => {
    const r = await call(`${api}/oauth/authenticate/application/token`, {
      method: 'POST',
      auth: basic(app.appId, app.secretKey),
      body: new URLSearchParams({ scope: 'read:ping read:registration' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(200);
    return r.body.access_token as string;
  };

  beforeAll(async () => {
    ensureCliBuilt();
    stack = await createTestStack();
  }, 180_000);
  afterAll(async () => stack?.destroy());

  it('key A: applications, keys, LRS credentials, a statement pipe and a registration postback are made', async () => {
    const s = await startTestServer({}, stack);
    try {
      app = s.firstStart.application;
      mgmt = s.firstStart.management;
      const auth = basic(app.appId, app.secretKey);
      const created = await call(`${s.api}/appManagement/${app.appId}/credentials`, { method: 'POST', auth: basic(mgmt.appId, mgmt.secretKey), json: { name: 'second' } });
      expect(created.status).toBe(200);
      secondKey = created.body.credential;
      expect(
        (await call(`${s.api}/xapi/credentials/lrs1`, { method: 'PUT', auth, json: { name: 'lrs', secret: 'lrs-secret-1', isEnabled: true, auth: 'BASICAUTH', permissionsLevel: 'ROOT' } })).status,
      ).toBe(204);
      const pipe = await call(`${s.api}/xapi/statementPipes`, {
        method: 'POST',
        auth,
        json: { source: { url: 'https://source.example.invalid/xapi/statements', userName: 'u', password: 'source-pw' }, target: { url: 'https://target.example.invalid/xapi/', userName: 't', password: 'target-pw' } },
      });
      expect(pipe.status).toBe(200);
      pipeId = pipe.body.result;
      await importCourse(s.api, auth, 'rot', { name: 'rot.zip', data: await scoPackage('1.2', '') });
      const reg = await call(`${s.api}/registrations`, {
        method: 'POST',
        auth,
        json: { registrationId: 'rot-reg', courseId: 'rot', learner: { id: 'l1' }, postBack: { url: 'https://postbacks.example.invalid/pb', authType: 'HTTPBASIC', userName: 'pb', password: 'pb-pw' } },
      });
      expect(reg.status).toBe(204);
      // A dispatch's secret (its packages' signing key and LTI 1.1 shared secret), stored sealed.
      expect((await call(`${s.api}/dispatch/destinations`, { method: 'POST', auth, json: { destinations: [{ id: 'lms', data: { name: 'LMS' } }] } })).status).toBe(204);
      expect((await call(`${s.api}/dispatch/dispatches`, { method: 'POST', auth, json: { dispatches: [{ id: 'rot-d', data: { destinationId: 'lms', courseId: 'rot' } }] } })).status).toBe(204);
      dispatchSecret = (await call(`${s.api}/dispatch/dispatches/rot-d/lti`, { auth })).body.sharedSecret;
      expect(dispatchSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      tokenA = await token(s.api);
      // An installation secret kept sealed in system_state: the LTI 1.3 tool key, made on first use.
      toolKid = await jwksKid(s.baseUrl);
      expect((await lrsPing(s.baseUrl, 'lrs1', 'lrs-secret-1')).status).toBe(200);
    } finally {
      await s.app.close();
    }
  }, 120_000);

  it('key B alone, before any reseal: nothing opens, and the check says so', async () => {
    const check = await lcds(['secrets', 'reseal', '--dry-run'], { LCDS_MASTER_KEY: keyB });
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/(\d+) secret\(s\) examined, 0 sealed with a previous key, \1 that no configured key opens/);
  });

  it('key B with A as previous: everything authenticates; reseal moves every secret to B, and is idempotent', async () => {
    const node = await startExtraNode(stack, { LCDS_MASTER_KEY: keyB, LCDS_PREVIOUS_MASTER_KEYS: keyA(), LCDS_BOOTSTRAP: 'false' });
    try {
      expect((await call(`${node.api}/ping`, { auth: basic(app.appId, app.secretKey) })).status).toBe(200);
      expect((await call(`${node.api}/ping`, { auth: basic(app.appId, secondKey) })).status).toBe(200);
      expect((await call(`${node.api}/ping`, { auth: `Bearer ${tokenA}` })).status).toBe(200);
      expect((await lrsPing(node.baseUrl, 'lrs1', 'lrs-secret-1')).status).toBe(200);
      expect((await lrsPing(node.baseUrl, 'lrs1', 'wrong')).status).toBe(401);

      // Seven secrets: two per application key (secret, PENS) x 3, the LRS credential, two pipe passwords, one postback password.
      const before = await lcds(['secrets', 'reseal', '--dry-run'], { LCDS_MASTER_KEY: keyB, LCDS_PREVIOUS_MASTER_KEYS: keyA() });
      expect(before.code).toBe(3);
      const m = /(\d+) secret\(s\) examined, (\d+) sealed with a previous key, 0 that no configured key opens/.exec(before.stdout);
      expect(m).not.toBeNull();
      expect(Number(m![2])).toBe(Number(m![1]));
      expect(Number(m![2])).toBeGreaterThanOrEqual(10);

      // While this node runs (and holds secrets in its caches), as the operator would.
      const run = await lcds(['secrets', 'reseal'], { LCDS_MASTER_KEY: keyB, LCDS_PREVIOUS_MASTER_KEYS: keyA() });
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(/re-sealing .*\d+\/\d+ secrets/);
      expect(run.stdout).toContain(`${m![1]} secret(s) examined, ${m![2]} re-sealed with the current key, 0 that no configured key opens.`);

      const again = await lcds(['secrets', 'reseal'], { LCDS_MASTER_KEY: keyB, LCDS_PREVIOUS_MASTER_KEYS: keyA() });
      expect(again.stdout).toContain(`${m![1]} secret(s) examined, 0 re-sealed with the current key`);
      expect((await call(`${node.api}/ping`, { auth: basic(app.appId, app.secretKey) })).status).toBe(200);
    } finally {
      await node.close();
    }
  }, 120_000);

  it('key B alone after the reseal: keys, LRS credentials, pipes, postbacks and dispatch secrets all still work; tokens signed with A do not', async () => {
    const check = await lcds(['secrets', 'reseal', '--dry-run'], { LCDS_MASTER_KEY: keyB });
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/examined, 0 sealed with a previous key, 0 that no configured key opens/);

    const node = await startExtraNode(stack, { LCDS_MASTER_KEY: keyB, LCDS_BOOTSTRAP: 'false' });
    try {
      const auth = basic(app.appId, app.secretKey);
      expect((await call(`${node.api}/ping`, { auth })).status).toBe(200);
      expect((await call(`${node.api}/ping`, { auth: basic(app.appId, secondKey) })).status).toBe(200);
      expect((await call(`${node.api}/ping`, { auth: basic(mgmt.appId, mgmt.secretKey) })).status).toBe(200);
      expect((await lrsPing(node.baseUrl, 'lrs1', 'lrs-secret-1')).status).toBe(200);
      const pipe = await call(`${node.api}/xapi/statementPipes/${pipeId}`, { auth });
      expect(pipe.status).toBe(200);
      expect(pipe.body.source.password).toBe('source-pw');
      expect(pipe.body.target.password).toBe('target-pw');
      const creds = await call(`${node.api}/xapi/credentials/lrs1`, { auth });
      expect(creds.body.secret).toBe('lrs-secret-1');
      // The application's key list opens under B (secrets answered to the management application).
      const keys = await call(`${node.api}/appManagement/${app.appId}/credentials`, { auth: basic(mgmt.appId, mgmt.secretKey) });
      expect(keys.body.credentials.map((c: { credential: string }) => c.credential)).toEqual(expect.arrayContaining([app.secretKey, secondKey]));

      expect(await jwksKid(node.baseUrl)).toBe(toolKid);
      expect((await call(`${node.api}/dispatch/dispatches/rot-d/lti`, { auth })).body.sharedSecret).toBe(dispatchSecret);
      const old = await call(`${node.api}/ping`, { auth: `Bearer ${tokenA}` });
      expect(old.status).toBe(401);
      const fresh = await token(node.api);
      expect((await call(`${node.api}/ping`, { auth: `Bearer ${fresh}` })).status).toBe(200);
      expect(cliJson<Array<{ appId: string }>>(await lcds(['apps', 'list', '--json'], { LCDS_MASTER_KEY: keyB })).length).toBe(2);
    } finally {
      await node.close();
    }
  }, 120_000);

  it('refuses a previous key that is not a key', async () => {
    const bad = await lcds(['apps', 'list'], { LCDS_MASTER_KEY: keyB, LCDS_PREVIOUS_MASTER_KEYS: 'abcd' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('LCDS_PREVIOUS_MASTER_KEYS: key 1 must hold at least 32 bytes');
  });
});
