import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { registrationPostbackQueue, RegistrationPostbacks } from '../../src/modules/registrations/registration-postbacks';
import { KeyRing } from '../../src/platform/crypto/keyring';
import { JobQueue } from '../../src/platform/queue/job-queue';
import { retryDelayMs } from '../../src/platform/queue/job-store';
import { fixture, importCourse } from '../support/courses';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  /** The registration JSON (the body, or the form's `data`). */
  data: any;
  form?: URLSearchParams;
  answered: number;
}

/** A postback receiver that answers 503 to the first `failures[path]` requests of a path, then 200. */
class Receiver {
  readonly received: Received[] = [];
  readonly failures = new Map<string, number>();
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        const left = this.failures.get(path) ?? 0;
        const answered = left > 0 ? 503 : 200;
        if (left > 0) this.failures.set(path, left - 1);
        const isForm = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
        const form = isForm ? new URLSearchParams(raw) : undefined;
        this.received.push({ path, headers: req.headers, raw, data: JSON.parse(form ? (form.get('data') ?? 'null') : raw), ...(form ? { form } : {}), answered });
        res.writeHead(answered).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const RANK: Record<string, number> = { UNKNOWN: 0, INCOMPLETE: 1, COMPLETED: 2 };

describe('registration postbacks: queued, retried, coalesced, ordered, signed', () => {
  let s: TestServer;
  let app: string;
  let appId: string;
  const receiver = new Receiver();
  const learner = { id: 'learner-1', firstName: 'Ada', lastName: 'Lovelace' };

  const waitFor = async <T>(read: () => T | Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await read();
      if (ok(v) || Date.now() > deadline) return v;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  /** Creates a registration, launches it without a browser, and returns a commit function for its session. */
  const launch = async (registrationId: string, postBack?: Record<string, unknown>) => {
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId, courseId: 'golf12', learner, ...(postBack ? { postBack } : {}) } })).status).toBe(204);
    const linkRes = await call(`${s.api}/registrations/${registrationId}/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    expect(linkRes.status).toBe(200);
    const res = await fetch(linkRes.body.launchLink as string, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const playerUrl = new URL(res.headers.get('location')!, s.baseUrl).toString();
    const progress = await call(`${s.api}/registrations/${registrationId}?includeChildResults=true`, { auth: app });
    const activityId = progress.body.activityDetails.children[0].id as string;
    return async (seq: number, status: string) => {
      const r = await fetch(`${playerUrl}commit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ seq, activityId, cmi: { 'cmi.core.lesson_status': status, 'cmi.core.session_time': '00:00:10' } }),
      });
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ applied: true });
    };
  };

  /** Checks X-LCDS-Signature as the README documents it: t=<unix>,v1=<hex HMAC-SHA256("<t>.<body>")>, key HMAC(KeyRing 'postbacks', appId). */
  const signatureValid = (r: Received): boolean => {
    const key = createHmac('sha256', s.app.get(KeyRing).key('postbacks')).update(appId).digest();
    const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['x-lcds-signature']));
    if (!m) return false;
    const expected = createHmac('sha256', key).update(`${m[1]}.${r.raw}`).digest();
    return timingSafeEqual(expected, Buffer.from(m[2], 'hex')) && Math.abs(Date.now() / 1000 - Number(m[1])) < 300;
  };

  /** Completion never goes backwards across every request a path received, and the sequence header never decreases. */
  const expectOrdered = (list: Received[]) => {
    const ranks = list.map((r) => RANK[r.data.registrationCompletion as string] ?? -1);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    const seqs = list.map((r) => Number(r.headers['x-lcds-sequence']));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  };

  beforeAll(async () => {
    await receiver.start();
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true', LCDS_POSTBACK_BACKOFF_MS: '100' });
    appId = s.firstStart.application.appId;
    app = basic(appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'golf12', fixture('scorm12-golf-runtime-basic.zip'));
  });

  afterAll(async () => {
    if (process.env.LCDS_TEST_POSTBACK_LOG) for (const r of receiver.received) console.log(r.path, r.answered, r.headers['x-lcds-sequence'], r.data.registrationCompletion, r.data.registrationSuccess);
    await s?.close();
    await receiver.close();
  });

  it('retries for at least a day under the platform backoff cap', () => {
    const queue = registrationPostbackQueue(30_000);
    let total = 0;
    for (let attempt = 1; attempt < queue.maxAttempts!; attempt++) total += retryDelayMs(queue.backoffMs!, attempt);
    expect(total).toBeGreaterThanOrEqual(24 * 3600 * 1000);
    expect(queue.maxAttempts).toBe(31);
    expect(queue.name).toBe('registration-postback');
  });

  it('HTTPBASIC: retries while the receiver fails, then delivers the latest state as signed JSON, in order', async () => {
    receiver.failures.set('/basic', 3);
    const commit = await launch('r-basic', { url: `${receiver.url}/basic`, authType: 'HTTPBASIC', userName: 'hook', password: 's3cret', resultsFormat: 'FULL' });
    await commit(1, 'incomplete');
    await commit(2, 'completed');
    const list = await waitFor(
      () => receiver.at('/basic'),
      (l) => l.some((r) => r.answered === 200 && r.data.registrationCompletion === 'COMPLETED'),
    );
    const ok = list.filter((r) => r.answered === 200);
    expect(list.filter((r) => r.answered === 503)).toHaveLength(3);
    expect(ok.at(-1)!.data).toMatchObject({ id: 'r-basic', registrationCompletion: 'COMPLETED', learner: { id: 'learner-1' } });
    // FULL: the activity tree with runtime data.
    expect(ok.at(-1)!.data.activityDetails.children[0].runtime).toMatchObject({ completionStatus: 'completed' });
    for (const r of list) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers.authorization).toBe(`Basic ${Buffer.from('hook:s3cret').toString('base64')}`);
      expect(signatureValid(r)).toBe(true);
    }
    const deliveries = list.map((r) => r.headers['x-lcds-delivery']);
    expect(new Set(deliveries).size).toBe(deliveries.length);
    expectOrdered(list);
    // Coalesced: two commits while the receiver was failing do not make more than one successful delivery each.
    expect(ok.length).toBeLessThanOrEqual(2);

    // Nothing stale later: whatever else arrives still shows the latest state.
    await new Promise((r) => setTimeout(r, 800));
    expect(receiver.at('/basic').every((r, i) => i < list.length || r.data.registrationCompletion === 'COMPLETED')).toBe(true);
    expect(receiver.at('/basic').length).toBeLessThanOrEqual(list.length + 1);

    // A further change after delivery: delivered again, still in order.
    await commit(3, 'passed');
    const after = await waitFor(
      () => receiver.at('/basic'),
      (l) => l.some((r) => r.answered === 200 && r.data.registrationSuccess === 'PASSED'),
    );
    expect(after.at(-1)!.data).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED' });
    expectOrdered(after);

    // An old job (keyed by an earlier settled sequence) that runs late does nothing.
    const jobs = s.app.get(JobQueue);
    const count = receiver.at('/basic').length;
    const jobId = await jobs.enqueue(s.app.get(RegistrationPostbacks).queue, { appId, registrationId: 'r-basic', instance: 0, after: 0 }, { appId });
    const done = await waitFor(
      () => jobs.get(jobId),
      (j) => j?.status === 'completed',
    );
    expect(done?.result).toMatchObject({ delivered: false, reason: 'stale' });
    expect(receiver.at('/basic')).toHaveLength(count);
  });

  it('many quick changes: one pending job per registration, the last state wins, never backwards', async () => {
    receiver.failures.set('/burst', 2);
    const commit = await launch('r-burst', { url: `${receiver.url}/burst`, authType: 'HTTPBASIC', resultsFormat: 'COURSE' });
    const statuses = ['incomplete', 'incomplete', 'incomplete', 'completed', 'completed', 'passed'];
    for (let i = 0; i < statuses.length; i++) await commit(i + 1, statuses[i]);
    const list = await waitFor(
      () => receiver.at('/burst'),
      (l) => l.some((r) => r.answered === 200 && r.data.registrationSuccess === 'PASSED'),
    );
    expectOrdered(list);
    expect(list.at(-1)!.data).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED' });
    // Far fewer requests than changes: the changes folded into the pending job.
    expect(list.filter((r) => r.answered === 200).length).toBeLessThan(statuses.length);
  });

  it('FORM: an urlencoded form with data=<json> and the credentials as fields; COURSE has no activity tree', async () => {
    receiver.failures.set('/form', 1);
    const commit = await launch('r-form', { url: `${receiver.url}/form`, authType: 'FORM', userName: 'formuser', password: 'formpass', resultsFormat: 'COURSE' });
    await commit(1, 'completed');
    const list = await waitFor(
      () => receiver.at('/form'),
      (l) => l.some((r) => r.answered === 200),
    );
    const last = list.at(-1)!;
    expect(last.answered).toBe(200);
    expect(last.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(last.headers.authorization).toBeUndefined();
    expect(last.form!.get('username')).toBe('formuser');
    expect(last.form!.get('password')).toBe('formpass');
    expect(last.data).toMatchObject({ id: 'r-form', registrationCompletion: 'COMPLETED' });
    expect(last.data.activityDetails).toBeUndefined();
    expect(signatureValid(last)).toBe(true);
  });

  it('uses the ApiRollupRegistration* settings when the registration has no postBack', async () => {
    const settings = [
      { settingId: 'ApiRollupRegistrationPostBackUrl', value: `${receiver.url}/settings` },
      { settingId: 'ApiRollupRegistrationAuthType', value: 'httpbasic' },
      { settingId: 'ApiRollupRegistrationAuthUser', value: 'setuser' },
      { settingId: 'ApiRollupRegistrationAuthPassword', value: 'setpass' },
      { settingId: 'ApiRollupRegistrationFormat', value: 'activity' },
    ];
    expect((await call(`${s.api}/appManagement/configuration`, { method: 'POST', auth: app, json: { settings } })).status).toBe(204);
    receiver.failures.set('/settings', 1);
    const commit = await launch('r-settings');
    await commit(1, 'completed');
    const list = await waitFor(
      () => receiver.at('/settings'),
      (l) => l.some((r) => r.answered === 200),
    );
    const last = list.at(-1)!;
    expect(last.headers['content-type']).toBe('application/json');
    expect(last.headers.authorization).toBe(`Basic ${Buffer.from('setuser:setpass').toString('base64')}`);
    expect(last.data).toMatchObject({ id: 'r-settings', registrationCompletion: 'COMPLETED' });
    // ACTIVITY: the tree without runtime data.
    expect(last.data.activityDetails.children[0].runtime).toBeUndefined();
    expect(signatureValid(last)).toBe(true);

    // The registration's own postBack wins over the settings.
    const own = await launch('r-own', { url: `${receiver.url}/own`, authType: 'FORM', resultsFormat: 'COURSE' });
    await own(1, 'incomplete');
    await waitFor(
      () => receiver.at('/own'),
      (l) => l.length > 0,
    );
    expect(receiver.at('/own')[0].data).toMatchObject({ id: 'r-own', registrationCompletion: 'INCOMPLETE' });
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.at('/settings').filter((r) => r.data.id === 'r-own')).toHaveLength(0);
  });
});
