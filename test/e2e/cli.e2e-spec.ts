import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHttpApp } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/app-config';
import { postbackSigningKey } from '../../src/modules/registrations/registration-postback-signing';
import { KeyRing } from '../../src/platform/crypto/keyring';
import { CLI, cliJson, CliResult, ensureCliBuilt, ROOT, runCli } from '../support/cli';
import { basic, call, freePort } from '../support/test-server';
import { createTestStack, TestStack } from '../support/test-stack';

describe('lcds CLI (built dist/cli.js, as the Docker image runs it)', () => {
  let stack: TestStack;
  let app: NestExpressApplication | undefined;
  let normal: { appId: string; secretKey: string };
  let management: { appId: string; secretKey: string };

  const lcds = (args: string[], env: Record<string, string> = {}): Promise<CliResult> => runCli(stack.env, stack.dataDir, args, env);
  const json = cliJson;

  beforeAll(async () => {
    ensureCliBuilt();
    stack = await createTestStack();
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await stack?.destroy();
  });

  it('migrate applies the migrations to an empty database, then says it is up to date', async () => {
    const first = await lcds(['migrate']);
    expect(first.code).toBe(0);
    // The progress bar goes to stderr; the result line to stdout.
    expect(first.stderr).toMatch(/migrating .*\d+\/\d+/);
    expect(first.stdout).toMatch(/Applied [1-9]\d* migration\(s\)\./);

    const second = await lcds(['migrate']);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/Database is up to date \([1-9]\d* migration\(s\)\)\./);
  });

  it('apps create prints the new application and its key as JSON', async () => {
    normal = json(await lcds(['apps', 'create', '--name', 'CLI app', '--json']));
    expect(normal).toEqual({ appId: expect.stringMatching(/^[A-Z0-9]{10}$/), secretKey: expect.any(String) });
    expect(normal.secretKey.length).toBeGreaterThanOrEqual(32);

    management = json(await lcds(['apps', 'create', '--name', 'CLI management', '--management', '--json']));
    expect(management).toEqual({ appId: expect.stringMatching(/^[A-Z0-9]{10}$/), secretKey: expect.any(String) });
    expect(management.appId).not.toBe(normal.appId);
  });

  it('apps postback-key prints the key that signs the registration postbacks of an application', async () => {
    const res = await lcds(['apps', 'postback-key', '--app', normal.appId]);
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe(postbackSigningKey(new KeyRing(loadConfig(stack.env)), normal.appId).toString('hex'));
    const unknown = await lcds(['apps', 'postback-key', '--app', 'NOSUCHAPP']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no application NOSUCHAPP');
  });

  it('apps list shows both, with the management flag', async () => {
    const list = json<Array<{ appId: string; name: string; management: boolean; created: string }>>(await lcds(['apps', 'list', '--json']));
    expect(list).toHaveLength(2);
    expect(list).toEqual(
      expect.arrayContaining([
        { appId: normal.appId, name: 'CLI app', management: false, created: expect.any(String) },
        { appId: management.appId, name: 'CLI management', management: true, created: expect.any(String) },
      ]),
    );
    for (const row of list) expect(Number.isNaN(Date.parse(row.created))).toBe(false);

    const text = await lcds(['apps', 'list']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(normal.appId);
    expect(text.stdout).toContain('CLI management');
  });

  it('runs as the README writes it: `npx lcds apps list` in the checkout (dist/cli.js is the executable bin)', async () => {
    expect(statSync(CLI).mode & 0o111).not.toBe(0);
    const out = await new Promise<CliResult>((resolve) => {
      const childEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? ROOT, ...stack.env, LCDS_RUN_MIGRATIONS: 'false', npm_config_yes: 'true' };
      execFile('npx', ['lcds', 'apps', 'list', '--json'], { cwd: ROOT, env: childEnv, timeout: 60_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout: String(stdout), stderr: String(stderr) });
      });
    });
    expect(json<Array<{ appId: string }>>(out).map((a) => a.appId).sort()).toEqual([normal.appId, management.appId].sort());
  });

  let extraKey: string;
  it('credentials create makes a new secret key for an application', async () => {
    const created = json<{ appId: string; credentialId: string; secretKey: string }>(await lcds(['credentials', 'create', '--app', normal.appId, '--name', 'CI', '--json']));
    expect(created).toEqual({ appId: normal.appId, credentialId: expect.any(String), secretKey: expect.any(String) });
    expect(created.secretKey).not.toBe(normal.secretKey);
    extraKey = created.secretKey;

    const keys = json<Array<{ credentialId: string; name: string; status: string }>>(await lcds(['credentials', 'list', '--app', normal.appId, '--json']));
    expect(keys.map((k) => k.credentialId)).toContain(created.credentialId);
    expect(keys).toHaveLength(2);

    const unknown = await lcds(['credentials', 'create', '--app', 'NOSUCHAPP1', '--json']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/NOSUCHAPP1/);
  });

  it('refuses a bad configuration with exit code 2 and a message naming the variable', async () => {
    const bad = await lcds(['apps', 'list', '--json'], { PORT: 'abc' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/PORT=abc/);
    expect(bad.stdout).toBe('');
  });

  it('the keys it made work against the real server on the same database', async () => {
    const port = await freePort();
    const config = loadConfig({ ...stack.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}`, LCDS_BOOTSTRAP: 'false', LCDS_RUN_MIGRATIONS: 'false' });
    app = await createHttpApp(config);
    await app.listen(port, '127.0.0.1');
    const api = `http://127.0.0.1:${port}/api/v2`;

    const ping = await call(`${api}/ping`, { auth: basic(normal.appId, normal.secretKey) });
    expect(ping.status).toBe(200);
    expect(ping.body.apiMessage).toBeDefined();
    expect((await call(`${api}/ping`, { auth: basic(normal.appId, extraKey) })).status).toBe(200);
    expect((await call(`${api}/ping`, { auth: basic(normal.appId, 'not-the-key') })).status).toBe(401);

    const apps = await call(`${api}/appManagement/applications`, { auth: basic(management.appId, management.secretKey) });
    expect(apps.status).toBe(200);
    expect(apps.body.applications.map((a: { id: string }) => a.id)).toEqual(expect.arrayContaining([normal.appId, management.appId]));
    // A normal application's key is valid but not enough for Application Management.
    expect((await call(`${api}/appManagement/applications`, { auth: basic(normal.appId, normal.secretKey) })).status).toBe(403);
  });
});
