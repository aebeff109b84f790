import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importCourse, fixture } from '../support/courses';
import { waitFor } from '../support/player';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { basic, call, startExtraNode, startTestServer, TestServer } from '../support/test-server';
import { createTestStack, TestStack } from '../support/test-stack';

/**
 * The e-mails of private invitations against a real SMTP server in this process: a temporary failure is retried with
 * backoff, a node stopped in the middle of the job neither loses nor duplicates e-mails or registrations, large
 * address lists, and the .eml outbox when no SMTP server is configured.
 */
describe('private invitation e-mails', () => {
  let stack: TestStack;
  let smtp: SmtpSink;
  let s: TestServer;
  let app: string;
  // A stopping node waits 200 ms for a running job, then stops it (its lease or Bull's stalled check hands it over).
  const env = () => ({ SMTP_URL: smtp.url, LCDS_EMAIL_BACKOFF_MS: '100', LCDS_JOB_LOCK_MS: '1000', LCDS_SHUTDOWN_TIMEOUT_MS: '200' });
  const invite = async (api: string, addresses: string[], extra: Record<string, unknown> = {}) => {
    const r = await call(`${api}/invitations/private`, { method: 'POST', auth: app, json: { courseId: 'golf', creatingUserEmail: 'owner@example.com', invitationEmail: { addresses }, ...extra } });
    expect(r.status).toBe(200);
    return r.body.id as string;
  };
  const status = async (api: string, id: string) => (await call(`${api}/invitations/private/${id}/jobStatus`, { auth: app })).body;
  const finished = (api: string, id: string, ms = 30_000) => waitFor(() => status(api, id), (st) => st.status !== 'STARTED', ms);
  const registrationsOf = async (api: string, id: string) => {
    const ids: string[] = [];
    let more: string | undefined;
    do {
      const page = (await call(`${api}/invitations/private/${id}/userInvitations${more ? `?more=${encodeURIComponent(more)}` : ''}`, { auth: app })).body;
      ids.push(...page.userInvitations.map((u: any) => u.registrationId));
      more = page.more;
    } while (more);
    return ids;
  };

  beforeAll(async () => {
    smtp = await startSmtpSink();
    stack = await createTestStack();
    s = await startTestServer(env(), stack);
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'golf', fixture('scorm12-golf-runtime-basic.zip'));
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await stack?.destroy();
    await smtp?.close();
  });

  it('a temporary SMTP failure (451) is retried with backoff; every address gets one e-mail', async () => {
    smtp.failNext = 3;
    const addresses = Array.from({ length: 12 }, (_, i) => `retry${i}@example.com`);
    const id = await invite(s.api, addresses);
    const done = await finished(s.api, id);
    expect(done).toMatchObject({ status: 'COMPLETE', total: 12, processed: 12, errors: [] });
    const got = smtp.received.flatMap((m) => m.envelopeTo).filter((a) => a.startsWith('retry'));
    expect(got.sort()).toEqual([...addresses].sort());
    expect(smtp.failNext).toBe(0);
  });

  it('duplicateRegistrationOption: SEND_EXISTING reuses, INSTANCE_EXISTING adds an instance, FAIL reports the address', async () => {
    await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'known-reg', courseId: 'golf', learner: { id: 'known@example.com' } } });
    const send = await invite(s.api, ['known@example.com', 'fresh@example.com']);
    await finished(s.api, send);
    expect((await registrationsOf(s.api, send)).sort()[1]).toBe('known-reg');
    const again = await invite(s.api, ['known@example.com'], { duplicateRegistrationOption: 'INSTANCE_EXISTING' });
    await finished(s.api, again);
    expect(await registrationsOf(s.api, again)).toEqual(['known-reg']);
    expect((await call(`${s.api}/registrations/known-reg/instances`, { auth: app })).body.registrations.map((r: any) => r.instance)).toEqual([0, 1]);
    const fail = await invite(s.api, ['known@example.com', 'other@example.com'], { duplicateRegistrationOption: 'FAIL' });
    const st = await finished(s.api, fail);
    expect(st).toMatchObject({ status: 'ERROR', total: 2, processed: 2 });
    expect(st.errors).toEqual(['known@example.com: the learner already has a registration for this course (duplicateRegistrationOption FAIL)']);
  });

  it('a node stopped mid-job: another takes the job over; no e-mail or registration is lost or made twice', async () => {
    smtp.delayMs = 15;
    const addresses = Array.from({ length: 400 }, (_, i) => `restart${String(i).padStart(3, '0')}@example.com`);
    const id = await invite(s.api, addresses);
    await waitFor(() => Promise.resolve(smtp.received.filter((m) => m.envelopeTo[0].startsWith('restart')).length), (n) => n >= 40, 20_000);
    await s.app.close();
    const before = smtp.received.filter((m) => m.envelopeTo[0].startsWith('restart')).length;
    expect(before).toBeLessThan(400);
    smtp.delayMs = 0;
    const node = await startExtraNode(stack, env());
    try {
      const done = await finished(node.api, id, 60_000);
      expect(done).toMatchObject({ status: 'COMPLETE', total: 400, processed: 400 });
      const got = smtp.received.flatMap((m) => m.envelopeTo).filter((a) => a.startsWith('restart'));
      expect(got.length).toBe(400);
      expect(new Set(got).size).toBe(400);
      const regs = await registrationsOf(node.api, id);
      expect(new Set(regs).size).toBe(400);
      const total = (await call(`${node.api}/registrations?courseId=golf&includeTotalCount=true&filter=restart&filterBy=learner_id`, { auth: app })).headers.get('x-total-count');
      expect(total).toBe('400');
    } finally {
      await node.close();
      s = await startExtraNode(stack, env()).then((n) => ({ ...s, ...n }));
    }
  }, 120_000);

  it('10,001 addresses: the creation answers at once, the job reports its progress', async () => {
    const addresses = Array.from({ length: 10_001 }, (_, i) => `bulk${i}@example.com`);
    const started = Date.now();
    const id = await invite(s.api, addresses);
    expect(Date.now() - started).toBeLessThan(5_000);
    const first = await status(s.api, id);
    expect(first.total).toBe(10_001);
    expect(first.processed).toBeLessThan(10_001);
    const partway = await waitFor(() => status(s.api, id), (st) => st.processed > 0, 30_000);
    expect(partway.processed).toBeGreaterThan(0);
  }, 60_000);
});

describe('private invitation e-mails without SMTP_URL: the outbox', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  }, 60_000);
  afterAll(async () => s?.close());

  it('writes each e-mail as an .eml file under DATA_DIR/outbox/', async () => {
    const app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'golf', fixture('scorm12-golf-runtime-basic.zip'));
    const r = await call(`${s.api}/invitations/private`, { method: 'POST', auth: app, json: { courseId: 'golf', creatingUserEmail: 'o@example.com', invitationEmail: { addresses: ['a@example.com', 'b@example.com'] } } });
    await waitFor(async () => (await call(`${s.api}/invitations/private/${r.body.id}/jobStatus`, { auth: app })).body.status, (st) => st === 'COMPLETE', 20_000);
    const dir = join(s.config.mail.outboxDir, `${s.firstStart.application.appId}-${r.body.id}`);
    expect(existsSync(dir)).toBe(true);
    const files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
    expect(files).toHaveLength(2);
    const text = files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    expect(text).toMatch(/^To: a@example.com\r$/m);
    expect(text).toMatch(/^Message-ID: </m);
    expect(text).toMatch(/\/invite\/u\/[A-Za-z0-9_-]+/);
  });
});
