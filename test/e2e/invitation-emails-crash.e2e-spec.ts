import { fixture, importCourse } from '../support/courses';
import { waitFor } from '../support/player';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { basic, call } from '../support/test-server';
import { createTestStack, TestStack } from '../support/test-stack';

/** What the design allows to be sent twice after a crash: the messages accepted whose `sent` marks were not yet written (InvitationEmails: MARK_GROUP + PARALLEL). */
const RESENT_AT_MOST = 25 + 8;

/**
 * The process running a private invitation's job is killed (SIGKILL, no shutdown) in the middle of it; a process
 * started again on the same installation takes the job over (the embedded stack's job lease, or Bull's stalled-job
 * check on the production stack). No address is left without its e-mail, no registration is made twice, and an
 * address sent twice is one whose message was accepted but not yet marked sent: at most RESENT_AT_MOST of them, each
 * copy under the same Message-ID. The service runs as `dist/main.js` (needs `npm run build`).
 */
describe('private invitation e-mails: the job process killed mid-job', () => {
  let stack: TestStack;
  let smtp: SmtpSink;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    smtp = await startSmtpSink();
    stack = await createTestStack();
  });
  afterAll(async () => {
    for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(processes.map((p) => p.exited));
    await stack?.destroy();
    await smtp?.close();
  });

  const start = async () => {
    const p = await startServiceProcess({ ...stack.env, SMTP_URL: smtp.url, LCDS_EMAIL_BACKOFF_MS: '100', LCDS_JOB_LOCK_MS: '1000', LOG_LEVEL: 'info' });
    processes.push(p);
    await p.waitForLine((l) => l.msg === 'LCDS started', 60_000);
    return p;
  };

  it('SIGKILL mid-job: every address gets its e-mail and one registration; resent ones only from the unmarked window, same Message-ID', async () => {
    smtp.delayMs = 40;
    const first = await start();
    const credentials = await first.waitForLine((l) => l.msg === 'first start credentials (shown once)');
    const auth = basic(credentials.application.appId, credentials.application.secretKey);
    await importCourse(`${first.baseUrl}/api/v2`, auth, 'golf', fixture('scorm12-golf-runtime-basic.zip'));
    const addresses = Array.from({ length: 400 }, (_, i) => `crash${String(i).padStart(3, '0')}@example.com`);
    const created = await call(`${first.baseUrl}/api/v2/invitations/private`, {
      method: 'POST',
      auth,
      json: { courseId: 'golf', creatingUserEmail: 'owner@example.com', invitationEmail: { addresses } },
    });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    await waitFor(() => Promise.resolve(smtp.received.length), (n) => n >= 60, 30_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const before = smtp.received.length;
    expect(before).toBeLessThan(400);

    smtp.delayMs = 0;
    const second = await start();
    const api = `${second.baseUrl}/api/v2`;
    const done = await waitFor(async () => (await call(`${api}/invitations/private/${id}/jobStatus`, { auth })).body, (st) => st.status !== 'STARTED', 60_000);
    expect(done).toMatchObject({ status: 'COMPLETE', total: 400, processed: 400, errors: [] });

    // Every address has its e-mail; those sent twice were accepted before the kill, under one Message-ID each.
    const byAddress = new Map<string, string[]>();
    for (const m of smtp.received) byAddress.set(m.envelopeTo[0], [...(byAddress.get(m.envelopeTo[0]) ?? []), String(m.parsed.messageId)]);
    expect([...byAddress.keys()].sort()).toEqual(addresses);
    const twice = [...byAddress.entries()].filter(([, ids]) => ids.length > 1);
    expect(twice.length).toBeLessThanOrEqual(RESENT_AT_MOST);
    for (const [, ids] of twice) expect(new Set(ids).size).toBe(1);
    expect(smtp.received.length).toBe(400 + twice.reduce((n, [, ids]) => n + ids.length - 1, 0));

    // One registration per address, each linked to its user invitation.
    const regs: string[] = [];
    let more: string | undefined;
    do {
      const page = (await call(`${api}/invitations/private/${id}/userInvitations${more ? `?more=${encodeURIComponent(more)}` : ''}`, { auth })).body;
      regs.push(...page.userInvitations.map((u: { registrationId: string }) => u.registrationId));
      more = page.more;
    } while (more);
    expect(regs).toHaveLength(400);
    expect(new Set(regs).size).toBe(400);
    const total = (await call(`${api}/registrations?courseId=golf&includeTotalCount=true`, { auth })).headers.get('x-total-count');
    expect(total).toBe('400');
  }, 180_000);
});
