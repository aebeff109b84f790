import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { pack as tarPack } from 'tar-stream';
import { ensureCliBuilt, runCli, type CliResult } from '../support/cli';
import { importCourse } from '../support/courses';
import { scoPackage } from '../support/player';
import { basic, call, startExtraNode, startTestServer } from '../support/test-server';
import { createTestStack, isProductionStack, type TestStack } from '../support/test-stack';

/**
 * #22 point 6: `lcds backup` while the service runs, `lcds restore` into a new installation, and a restored
 * registration launches with its progress (on MariaDB the database travels by its dump tool, as documented).
 */
describe('lcds backup and lcds restore', () => {
  let source: TestStack;
  let target: TestStack;
  let work: string;
  let app: { appId: string; secretKey: string };
  const file = () => join(work, 'lcds-backup.tar.gz');
  const lcds = (stack: TestStack, args: string[], env: Record<string, string> = {}): Promise<CliResult> => runCli(stack.env, stack.dataDir, args, env);

  beforeAll(async () => {
    ensureCliBuilt();
    work = mkdtempSync(join(tmpdir(), 'lcds-backup-test-'));
    source = await createTestStack();
    target = await createTestStack();
    // The restored installation is the same installation: same master key.
    target.env.LCDS_MASTER_KEY = source.env.LCDS_MASTER_KEY;
  }, 180_000);
  afterAll(async () => {
    await source?.destroy();
    await target?.destroy();
    rmSync(work, { recursive: true, force: true });
  });

  it('backs up a running installation with a learner part-way through a course', async () => {
    const s = await startTestServer({}, source);
    try {
      app = s.firstStart.application;
      const auth = basic(app.appId, app.secretKey);
      await importCourse(s.api, auth, 'bk-course', { name: 'bk.zip', data: await scoPackage('1.2', '') });
      expect((await call(`${s.api}/registrations`, { method: 'POST', auth, json: { registrationId: 'bk-reg', courseId: 'bk-course', learner: { id: 'bk-l' } } })).status).toBe(204);
      const link = await call(`${s.api}/registrations/bk-reg/launchLink`, { method: 'POST', auth, json: { redirectOnExitUrl: 'message' } });
      const res = await fetch(link.body.launchLink as string, { redirect: 'manual' });
      const player = new URL(res.headers.get('location')!, s.baseUrl).toString();
      const commit = await fetch(`${player}commit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ seq: 1, activityId: 'sco-1', cmi: { 'cmi.core.lesson_location': 'page-3', 'cmi.suspend_data': 'seen=1,2,3', 'cmi.core.lesson_status': 'incomplete', 'cmi.core.exit': 'suspend' } }),
      });
      expect(commit.status).toBe(200);

      const out = await lcds(source, ['backup', '--out', file()]);
      expect(out.code).toBe(0);
      expect(out.stderr).toMatch(/backing up .*\d+\/\d+ content objects/);
      expect(out.stdout).toMatch(/^Wrote .*lcds-backup\.tar\.gz: (the database and )?[1-9]\d* content object\(s\)/);
      expect(out.stdout).toContain('The master key is not in it');
      if (isProductionStack()) expect(out.stdout).toContain('mariadb-dump --single-transaction');
    } finally {
      await s.app.close();
    }
  }, 120_000);

  it('restores into an empty installation, where the registration launches with its progress', async () => {
    if (isProductionStack()) {
      // As docs/operations.md says: the database by its dump tool.
      const db = (stack: TestStack) => new URL(stack.env.DATABASE_URL).pathname.slice(1);
      const dump = execFileSync('mariadb-dump', ['-h127.0.0.1', '-uroot', '--single-transaction', '--routines', db(source)]);
      execFileSync('mariadb', ['-h127.0.0.1', '-uroot', db(target)], { input: dump });
    }
    const restored = await lcds(target, ['restore', '--in', file()]);
    expect(restored.stderr).toMatch(/restoring .*\d+\/\d+ content objects/);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(/^Restored (the database and )?[1-9]\d* content object\(s\)/);

    const node = await startExtraNode(target, { LCDS_BOOTSTRAP: 'false' });
    try {
      const auth = basic(app.appId, app.secretKey);
      const reg = await call(`${node.api}/registrations/bk-reg?includeRuntime=true&includeChildResults=true`, { auth });
      expect(reg.status).toBe(200);
      const leaf = (a: { runtime?: unknown; children?: unknown[] }): { runtime?: unknown } => (a.children?.length ? leaf(a.children[0] as typeof a) : a);
      expect(leaf(reg.body.activityDetails).runtime).toMatchObject({ location: 'page-3', suspendData: 'seen=1,2,3' });
      const link = await call(`${node.api}/registrations/bk-reg/launchLink`, { method: 'POST', auth, json: { redirectOnExitUrl: 'message' } });
      expect(link.status).toBe(200);
      const res = await fetch(link.body.launchLink as string, { redirect: 'manual' });
      expect(res.status).toBe(303);
      const player = new URL(res.headers.get('location')!, node.baseUrl).toString();
      const page = await fetch(player);
      expect(page.status).toBe(200);
      const html = await page.text();
      // The page hands the SCO its suspended data (resume), and the SCO's file is served from the restored store.
      expect(html).toContain('seen=1,2,3');
      const content = await fetch(`${player}content/sco/index.html`);
      expect(content.status).toBe(200);
      expect(await content.text()).toContain('findAPI');
    } finally {
      await node.close();
    }
  }, 120_000);

  it('refuses to overwrite an existing database, another stack\'s backup, and archives that are not backups or try to escape', async () => {
    if (!isProductionStack()) {
      const again = await lcds(target, ['restore', '--in', file()]);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/lcds\.sqlite exists: restore into an empty DATA_DIR, or pass --force/);
    }
    const otherKind = await lcds(target, ['restore', '--in', file()], isProductionStack() ? { DATABASE_URL: '' } : { DATABASE_URL: 'mysql://root@127.0.0.1:3306/none', LCDS_MASTER_KEY: source.env.LCDS_MASTER_KEY });
    expect(otherKind.code).not.toBe(0);

    const hostile = join(work, 'hostile.tar.gz');
    const pack = tarPack();
    const done = pipeline(pack, createGzip(), createWriteStream(hostile));
    const kind = isProductionStack() ? 'mysql' : 'sqlite';
    pack.entry({ name: 'lcds-backup.json' }, JSON.stringify({ format: 1, createdAt: new Date().toISOString(), lcdsVersion: 'x', database: kind, storage: 'local', objects: 1, bytes: 4 }));
    pack.entry({ name: 'content/../../escaped.txt' }, 'evil');
    pack.finalize();
    await done;
    const escaped = await lcds(target, ['restore', '--in', hostile, '--force']);
    expect(escaped.code).toBe(1);
    expect(existsSync(join(target.dataDir, '..', 'escaped.txt'))).toBe(false);
    expect(readdirSync(target.dataDir)).not.toContain('escaped.txt');

    const notBackup = join(work, 'not.tar.gz');
    const p2 = tarPack();
    const d2 = pipeline(p2, createGzip(), createWriteStream(notBackup));
    p2.entry({ name: 'hello.txt' }, 'hi');
    p2.finalize();
    await d2;
    const refused = await lcds(target, ['restore', '--in', notBackup, '--force']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is not an LCDS backup');
  }, 60_000);
});
