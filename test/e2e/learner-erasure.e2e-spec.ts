import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { dataSourceOptions } from '../../src/platform/database/data-source-options';
import { fixture, importCourse } from '../support/courses';
import { followLaunch, waitFor } from '../support/player';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { basic, call } from '../support/test-server';
import { createTestStack, TestStack } from '../support/test-stack';

const FIRST = 'Zyxwqa';
const LAST = 'Qwxyzb';
const EMAIL = 'Zyxwqa.Qwxyzb@example.org';
const LEARNER = 'learner-7q3z';

/**
 * DeleteAllLearnerData erases every trace of the learner in the application: afterwards no text column of any table,
 * no byte of the database files (SQLite: main file and WAL) and no line of the service's log holds the learner's
 * name, address or id; another learner's data stays. The service runs as its own process (its log is read).
 */
describe('DeleteAllLearnerData: complete erasure', () => {
  let stack: TestStack;
  let smtp: SmtpSink;
  let svc: ServiceProcess;
  let api: string;
  let app: string;
  let appId: string;

  beforeAll(async () => {
    stack = await createTestStack();
    smtp = await startSmtpSink();
    svc = await startServiceProcess({ ...stack.env, SMTP_URL: smtp.url, LOG_LEVEL: 'debug' });
    const first = await svc.waitForLine((l) => l.msg === 'first start credentials (shown once)');
    appId = first.application.appId;
    app = basic(appId, first.application.secretKey);
    api = `${svc.baseUrl}/api/v2`;
    await importCourse(api, app, 'golf', fixture('scorm12-golf-runtime-basic.zip'));
  }, 60_000);
  afterAll(async () => {
    svc?.child.kill('SIGTERM');
    await svc?.exited;
    await smtp?.close();
    await stack?.destroy();
  });

  it('leaves nothing of the learner in any table, the database files or the log', async () => {
    const learner = { id: LEARNER, firstName: FIRST, lastName: LAST, email: EMAIL };
    expect((await call(`${api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'erase-reg', courseId: 'golf', learner, learnerTags: ['erase-tag'], registrationTags: ['t'] } })).status).toBe(204);
    expect((await call(`${api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'keep-reg', courseId: 'golf', learner: { id: 'keeper', firstName: 'Keepname' } } })).status).toBe(204);
    // A launch (player session, launch history).
    const link = await call(`${api}/registrations/erase-reg/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    await followLaunch(svc.baseUrl, link.body.launchLink);
    // A private invitation to the same address (a registration whose learner id is the address, a user invitation, an e-mail).
    const priv = await call(`${api}/invitations/private`, { method: 'POST', auth: app, json: { courseId: 'golf', creatingUserEmail: 'owner@example.com', invitationEmail: { addresses: [EMAIL, 'other@example.com'] } } });
    await waitFor(async () => (await call(`${api}/invitations/private/${priv.body.id}/jobStatus`, { auth: app })).body.status, (st) => st === 'COMPLETE', 20_000);
    // A public invitation the learner joined.
    const pub = await call(`${api}/invitations/public`, { method: 'POST', auth: app, json: { courseId: 'golf', creatingUserEmail: 'owner@example.com' } });
    const joined = await fetch(pub.body.url, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ firstName: FIRST, lastName: LAST, email: EMAIL }) });
    expect(joined.status).toBe(303);
    await joined.arrayBuffer();
    // Statements naming the learner in the LRS.
    const lrs = await call(`${svc.baseUrl}/lrs/${appId}/statements`, {
      method: 'POST',
      auth: app,
      headers: { 'x-experience-api-version': '1.0.3' },
      json: [
        { actor: { mbox: `mailto:${EMAIL}`, name: `${FIRST} ${LAST}` }, verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' }, object: { id: 'http://example.com/a' } },
        { actor: { account: { homePage: svc.baseUrl, name: LEARNER }, name: FIRST }, verb: { id: 'http://adlnet.gov/expapi/verbs/attempted' }, object: { id: 'http://example.com/b' } },
        { actor: { mbox: 'mailto:keeper@example.com', name: 'Keepname' }, verb: { id: 'http://adlnet.gov/expapi/verbs/attempted' }, object: { id: 'http://example.com/c' } },
      ],
    });
    expect(lrs.status).toBe(200);
    // Documents kept under the learner's agents (State by address, Agent Profile by account), with the name inside, and the other learner's.
    const xh = { 'x-experience-api-version': '1.0.3' };
    const agentParam = (a: unknown) => encodeURIComponent(JSON.stringify(a));
    const mine = { mbox: `mailto:${EMAIL}` };
    const account = { account: { homePage: svc.baseUrl, name: LEARNER } };
    const keeper = { mbox: 'mailto:keeper@example.com' };
    const stateUrl = (a: unknown) => `${svc.baseUrl}/lrs/${appId}/activities/state?activityId=${encodeURIComponent('http://example.com/a')}&stateId=notes&agent=${agentParam(a)}`;
    const profileUrl = (a: unknown) => `${svc.baseUrl}/lrs/${appId}/agents/profile?profileId=card&agent=${agentParam(a)}`;
    for (const [url, who] of [[stateUrl(mine), `${FIRST} ${LAST}`], [stateUrl(keeper), 'Keepname']]) expect((await call(url, { method: 'PUT', auth: app, headers: xh, json: { who } })).status).toBe(204);
    expect((await call(profileUrl(account), { method: 'PUT', auth: app, headers: { ...xh, 'If-None-Match': '*' }, json: { name: `${FIRST} ${LAST}`, email: EMAIL } })).status).toBe(204);

    const cli = await call(`${api}/learner/${LEARNER}/delete-information?userEmail=admin@example.com`, { method: 'POST', auth: app });
    expect(cli.status).toBe(403);
    // The administrators are set with the CLI.
    // Asynchronous: a blocked event loop would miss the server closing idle keep-alive connections.
    const lcds = async (...args: string[]) =>
      (await promisify(execFile)(process.execPath, [join(__dirname, '..', '..', 'dist', 'cli.js'), ...args], { env: { PATH: process.env.PATH ?? '', ...stack.env }, encoding: 'utf8' })).stdout;
    expect(await lcds('apps', 'admins', 'add', '--app', appId, '--email', 'admin@example.com')).toMatch(/admin@example.com administers application/);
    expect(JSON.parse(await lcds('apps', 'admins', 'list', '--app', appId, '--json'))).toEqual([expect.objectContaining({ email: 'admin@example.com' })]);
    await lcds('apps', 'admins', 'add', '--app', appId, '--email', 'leaving@example.com');
    await lcds('apps', 'admins', 'remove', '--app', appId, '--email', 'leaving@example.com');
    expect((await call(`${api}/learner/${LEARNER}/delete-information?userEmail=leaving@example.com`, { method: 'POST', auth: app })).status).toBe(403);
    expect((await call(`${api}/learner/nobody/delete-information?userEmail=admin@example.com`, { method: 'POST', auth: app })).status).toBe(404);
    expect((await call(`${api}/learner/${LEARNER}/delete-information?userEmail=Admin@Example.com`, { method: 'POST', auth: app })).status).toBe(204);
    await svc.waitForLine((l) => l.msg === 'learner data erased', 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${svc.output().slice(-3000)}`);
    });

    // Through the API: nothing left; the other learner's data stays.
    expect((await call(`${api}/registrations/erase-reg`, { auth: app })).status).toBe(404);
    expect((await call(`${api}/registrations/keep-reg`, { auth: app })).status).toBe(200);
    expect((await call(`${api}/learner/${LEARNER}/tags`, { auth: app })).status).toBe(404);
    const users = (await call(`${api}/invitations/private/${priv.body.id}/userInvitations`, { auth: app })).body.userInvitations;
    expect(users.map((u: any) => u.email)).toEqual(['other@example.com']);
    expect((await call(`${api}/invitations/public/${pub.body.id}/userInvitations`, { auth: app })).body.userInvitations).toEqual([]);
    const kept = await call(`${svc.baseUrl}/lrs/${appId}/statements`, { auth: app, headers: { 'x-experience-api-version': '1.0.3' } });
    expect(kept.body.statements.map((st: any) => st.actor.name)).toEqual(['Keepname']);
    // The learner's documents are gone; the other learner's stays.
    expect((await call(stateUrl(mine), { auth: app, headers: xh })).status).toBe(404);
    expect((await call(profileUrl(account), { auth: app, headers: xh })).status).toBe(404);
    expect((await call(stateUrl(keeper), { auth: app, headers: xh })).body).toEqual({ who: 'Keepname' });

    const needles = [FIRST, LAST, EMAIL.toLowerCase(), LEARNER];
    // Every text column of every table.
    const db = new DataSource({ ...dataSourceOptions(loadConfig(stack.env)), migrations: [] });
    await db.initialize();
    const found: string[] = [];
    try {
      const mysql = db.options.type === 'mysql';
      const columns: Array<{ t: string; c: string }> = mysql
        ? await db.query(
            `SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = DATABASE() AND data_type IN ('char','varchar','text','mediumtext','longtext','tinytext','blob','longblob','mediumblob')`,
          )
        : (
            await Promise.all(
              (await db.query<Array<{ name: string }>>(`SELECT name FROM sqlite_master WHERE type = 'table'`)).map(async ({ name }) =>
                (await db.query<Array<{ name: string; type: string }>>(`PRAGMA table_info("${name}")`)).filter((col) => /char|text|clob|blob/i.test(col.type)).map((col) => ({ t: name, c: col.name })),
              ),
            )
          ).flat();
      expect(columns.length).toBeGreaterThan(50);
      for (const { t, c } of columns) {
        for (const needle of needles) {
          const q = mysql ? `SELECT COUNT(*) AS n FROM \`${t}\` WHERE LOWER(CAST(\`${c}\` AS CHAR)) LIKE ?` : `SELECT COUNT(*) AS n FROM "${t}" WHERE LOWER(CAST("${c}" AS TEXT)) LIKE ?`;
          const [{ n }] = await db.query(q, [`%${needle.toLowerCase()}%`]);
          if (Number(n) > 0) found.push(`${t}.${c}: ${needle}`);
        }
      }
    } finally {
      await db.destroy();
    }
    expect(found).toEqual([]);

    // The database files themselves (SQLite): no deleted row lingers in a free page or in the WAL.
    if (!process.env.LCDS_TEST_DATABASE_URL) {
      const files = readdirSync(stack.dataDir).filter((f) => f.startsWith('lcds.sqlite'));
      expect(files).toContain('lcds.sqlite');
      for (const f of files) {
        const bytes = readFileSync(join(stack.dataDir, f)).toString('latin1').toLowerCase();
        for (const needle of needles) expect({ file: f, needle, found: bytes.includes(needle.toLowerCase()) }).toEqual({ file: f, needle, found: false });
      }
    }
    // The log: never the learner's name or address.
    const log = svc.output().toLowerCase();
    for (const needle of [FIRST, LAST, EMAIL]) expect({ needle, inLog: log.includes(needle.toLowerCase()) }).toEqual({ needle, inLog: false });
  }, 120_000);
});
