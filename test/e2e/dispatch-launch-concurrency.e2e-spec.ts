import { createHmac, randomBytes } from 'node:crypto';
import { fixture, importCourse } from '../support/courses';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * #20: launches of a dispatch package arriving at the same moment. A new learner's registration, its learner link and
 * its player link are written together; a cap is never passed; one learner launching twice at once gets one
 * registration, and every launch page it was given opens the player.
 */
describe('dispatch launches at the same moment', () => {
  let s: TestServer;
  let app: string;

  const lti = async (id: string) => (await call(`${s.api}/dispatch/dispatches/${id}/lti`, { auth: app })).body as { consumerKey: string; sharedSecret: string };
  /** The launch page for a learner, as the package's page asks for it: status and the player link it hands out. */
  const launch = async (dispatchId: string, learner: string) => {
    const { consumerKey, sharedSecret } = await lti(dispatchId);
    const payload = Buffer.from(JSON.stringify({ k: consumerKey, l: learner, n: 'Doe, Jo', o: 'http://lms.example.test', t: Math.floor(Date.now() / 1000), r: randomBytes(12).toString('base64url') })).toString('base64url');
    const res = await fetch(`${s.baseUrl}/dispatch/launch?token=${encodeURIComponent(`${payload}.${createHmac('sha256', sharedSecret).update(payload).digest('base64url')}`)}`);
    const text = await res.text();
    return { status: res.status, text, playerUrl: /"playerUrl":"([^"]+)"/.exec(text)?.[1] };
  };
  /** Follows a player link: 303 to the player page when it opens a session. */
  const open = async (playerUrl: string) => (await fetch(playerUrl, { redirect: 'manual' })).status;
  const registrations = async () => ((await call(`${s.api}/registrations?courseId=golf`, { auth: app })).body.registrations as Array<{ id: string; learner: { id: string } }>);
  const count = async (id: string) => (await call(`${s.api}/dispatch/dispatches/${id}/registrationCount`, { auth: app })).body.registrationCount as number;

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'golf', fixture('scorm12-golf-runtime-basic.zip'));
    expect((await call(`${s.api}/dispatch/destinations`, { method: 'POST', auth: app, json: { destinations: [{ id: 'lms', data: { name: 'LMS' } }] } })).status).toBe(204);
    const dispatches = [
      { id: 'capped', data: { destinationId: 'lms', courseId: 'golf', registrationCap: 3 } },
      { id: 'open', data: { destinationId: 'lms', courseId: 'golf' } },
    ];
    expect((await call(`${s.api}/dispatch/dispatches`, { method: 'POST', auth: app, json: { dispatches } })).status).toBe(204);
  });
  afterAll(async () => s?.close());

  it('eight new learners at once on a dispatch capped at 3: three get the course (each link opens it), five the message; the count is 3', async () => {
    const pages = await Promise.all(Array.from({ length: 8 }, (_, i) => launch('capped', `capped-${i}`)));
    const admitted = pages.filter((p) => p.status === 200);
    expect(admitted).toHaveLength(3);
    expect(pages.filter((p) => p.status === 403).map((p) => p.text.includes('maximum number of learners'))).toEqual([true, true, true, true, true]);
    expect(await Promise.all(admitted.map((p) => open(p.playerUrl!)))).toEqual([303, 303, 303]);
    expect(await count('capped')).toBe(3);
    expect((await registrations()).filter((r) => r.learner.id.startsWith('capped-'))).toHaveLength(3);
  });

  it('one learner launching four times at once: one registration, and every launch page it got opens the player', async () => {
    const pages = await Promise.all(Array.from({ length: 4 }, () => launch('open', 'twice-learner')));
    expect(pages.map((p) => p.status)).toEqual([200, 200, 200, 200]);
    const mine = (await registrations()).filter((r) => r.learner.id === 'twice-learner');
    expect(mine).toHaveLength(1);
    expect(new Set(pages.map((p) => /\/player\/launch\/[^"]+/.exec(p.playerUrl!)?.[0])).size).toBe(4);
    // Each link opens once; the sessions follow one another (a later one supersedes the one before).
    for (const p of pages) expect(await open(p.playerUrl!)).toBe(303);
    // The registration is counted once, however many launches raced to create it.
    expect(await count('open')).toBe(1);
  });
});
