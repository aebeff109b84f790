import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { PlayerSessionReaper } from '../../src/modules/player/player-session-reaper';
import { LaunchHistoryEntity } from '../../src/modules/registrations/entities/launch-history.entity';
import { importCourse } from '../support/courses';
import { scoPackage, waitFor } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/** An HTTP peer that records what reaches it; paths starting /slow answer after `delayMs`. */
class Peer {
  readonly received: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  private server!: Server;
  url = '';
  delayMs = 3_000;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.received.push({ path: req.url ?? '/', headers: req.headers });
        const answer = () => res.writeHead(200).end();
        if ((req.url ?? '').startsWith('/slow')) setTimeout(answer, this.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  at(path: string) {
    return this.received.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Settings of registrations and their launches, through the API and the player's own requests (no browser):
 * WhenToRestartRegistration and AssignLatestVersionInsteadOfRestartRegistration, concurrent launch detection,
 * GenerateTinCanLaunchStatements, launch history expiry, and the postback settings (timeout, user agent, during
 * the session) as a real HTTP peer sees them.
 */
describe('registration and launch settings', () => {
  let s: TestServer;
  let app: string;
  const peer = new Peer();

  beforeAll(async () => {
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true', LCDS_POSTBACK_BACKOFF_MS: '100' });
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await peer.start();
    await importCourse(s.api, app, 'one', { name: 'one.zip', data: await scoPackage('1.2', ''), type: 'application/zip' });
  }, 60_000);
  afterAll(async () => {
    await peer.close();
    await s?.close();
  });

  const configure = async (path: string, settings: Record<string, string>) => {
    const r = await call(`${s.api}/${path}`, { method: 'POST', auth: app, json: { settings: Object.entries(settings).map(([settingId, value]) => ({ settingId, value })) } });
    expect(r.status).toBe(204);
  };
  const createReg = async (registrationId: string, courseId = 'one', extra: Record<string, unknown> = {}) =>
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId, courseId, learner: { id: `l-${registrationId}` }, ...extra } })).status).toBe(204);
  /** Builds a launch link and opens it (no browser); answers the session's commit function (seq, cmi, final). */
  const launch = async (registrationId: string) => {
    const link = await call(`${s.api}/registrations/${registrationId}/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    expect(link.status).toBe(200);
    const res = await fetch(link.body.launchLink as string, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const player = new URL(res.headers.get('location')!, s.baseUrl).toString();
    return async (seq: number, cmi: Record<string, string>, final = false) => {
      const r = await fetch(`${player}commit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seq, activityId: 'sco-1', cmi, final }) });
      return { status: r.status, body: (await r.json()) as { applied?: boolean; message?: string; reason?: string } };
    };
  };
  const instances = async (registrationId: string) =>
    ((await call(`${s.api}/registrations/${registrationId}/instances?includeChildResults=true`, { auth: app })).body.registrations as Array<{ instance: number; course: { version: number }; registrationCompletion: string }>).map(
      (r) => `${r.instance}: v${r.course.version} ${r.registrationCompletion}`,
    );

  it('WhenToRestartRegistration and AssignLatestVersionInsteadOfRestartRegistration: what a launch runs once the course has a new version', async () => {
    await importCourse(s.api, app, 'versioned', { name: 'v1.zip', data: await scoPackage('1.2', ''), type: 'application/zip' });
    for (const id of ['rs-default', 'rs-newer', 'rs-assign']) await createReg(id, 'versioned');
    await configure('registrations/rs-newer/configuration', { WhenToRestartRegistration: 'WHEN_NEWER_PACKAGE_VERSION_EXISTS' });
    await configure('registrations/rs-assign/configuration', { WhenToRestartRegistration: 'WHEN_NEWER_PACKAGE_VERSION_EXISTS', AssignLatestVersionInsteadOfRestartRegistration: 'true' });
    for (const id of ['rs-default', 'rs-newer', 'rs-assign']) expect((await (await launch(id))(1, { 'cmi.core.lesson_status': 'incomplete', 'cmi.core.lesson_location': 'p2', 'cmi.core.exit': 'suspend' }, true)).status).toBe(200);
    await importCourse(s.api, app, 'versioned', { name: 'v2.zip', data: await scoPackage('1.2', '/* v2 */'), type: 'application/zip' }, { mayCreateNewVersion: 'true' });

    // The default (complete and a newer version): an incomplete registration stays on its instance and version.
    await launch('rs-default');
    expect(await instances('rs-default')).toEqual(['0: v1 INCOMPLETE']);
    // A newer version exists: the launch runs a new instance on it; the old one keeps its data.
    const commit = await launch('rs-newer');
    expect(await instances('rs-newer')).toEqual(['0: v1 INCOMPLETE', '1: v2 UNKNOWN']);
    expect((await commit(1, { 'cmi.core.lesson_status': 'completed' }, true)).status).toBe(200);
    expect((await call(`${s.api}/registrations/rs-newer`, { auth: app })).body).toMatchObject({ instance: 1, course: { version: 2 }, registrationCompletion: 'COMPLETED' });
    // A second launch on the latest version starts nothing new.
    await launch('rs-newer');
    expect(await instances('rs-newer')).toEqual(['0: v1 INCOMPLETE', '1: v2 COMPLETED']);
    // Assign the latest version: the same instance moves onto it, with what the learner did.
    await launch('rs-assign');
    expect(await instances('rs-assign')).toEqual(['0: v2 INCOMPLETE']);
    const p = (await call(`${s.api}/registrations/rs-assign?includeChildResults=true&includeRuntime=true`, { auth: app })).body;
    expect(p.activityDetails.children[0].runtime).toMatchObject({ location: 'p2' });
  });

  it('concurrent launch detection: the older session of a registration is told at its next commit, or (ForceExitConcurrentLaunches) ended', async () => {
    await createReg('cl-detect');
    const first = await launch('cl-detect');
    expect((await first(1, { 'cmi.core.lesson_location': 'a' })).status).toBe(200);
    const second = await launch('cl-detect');
    const refused = await first(2, { 'cmi.core.lesson_location': 'b' });
    expect(refused).toEqual({ status: 409, body: expect.objectContaining({ reason: 'concurrentLaunch', message: expect.stringMatching(/launched again in another window/) }) });
    expect((await second(1, { 'cmi.core.lesson_location': 'c' })).status).toBe(200);
    const p = (await call(`${s.api}/registrations/cl-detect?includeChildResults=true&includeRuntime=true`, { auth: app })).body;
    expect(p.activityDetails.children[0].runtime.location).toBe('c');

    await createReg('cl-force');
    await configure('registrations/cl-force/configuration', { ForceExitConcurrentLaunches: 'true' });
    const older = await launch('cl-force');
    await launch('cl-force');
    expect(await older(1, {})).toEqual({ status: 410, body: expect.objectContaining({ reason: 'forcedExit' }) });

    await createReg('cl-off');
    await configure('registrations/cl-off/configuration', { ConcurrentLaunchDetectionEnabled: 'false' });
    const a = await launch('cl-off');
    const b = await launch('cl-off');
    expect((await a(1, {})).status).toBe(200);
    expect((await b(1, {})).status).toBe(200);
  });

  it('GenerateTinCanLaunchStatements false: a SCORM launch writes no xAPI statements', async () => {
    await importCourse(s.api, app, 'quiet', { name: 'quiet.zip', data: await scoPackage('1.2', ''), type: 'application/zip' });
    await configure('courses/quiet/configuration', { GenerateTinCanLaunchStatements: 'false' });
    await createReg('st-on');
    await createReg('st-off', 'quiet');
    for (const id of ['st-on', 'st-off']) {
      const commit = await launch(id);
      expect((await commit(1, { 'cmi.core.lesson_status': 'passed', 'cmi.core.score.raw': '90' }, true)).status).toBe(200);
    }
    const statements = async (id: string) => ((await call(`${s.api}/registrations/${id}/xAPIStatements`, { auth: app })).body.statements as unknown[]).length;
    expect(await waitFor(() => statements('st-on'), (n) => n >= 4)).toBeGreaterThanOrEqual(4);
    expect(await statements('st-off')).toBe(0);
  });

  it('ShouldExpireLaunchHistory: the reaper deletes launch history older than ExpireLaunchHistoryAfterDays, only then', async () => {
    await createReg('lh');
    await launch('lh');
    await launch('lh');
    const history = async () => ((await call(`${s.api}/registrations/lh/launchHistory`, { auth: app })).body.launchHistory as Array<{ id: string }>).map((h) => h.id);
    const [old, recent] = await history();
    const appId = s.firstStart.application.appId;
    await s.app.get(DataSource).getRepository(LaunchHistoryEntity).update({ appId, id: old }, { launchTime: new Date(Date.now() - 3 * 86_400_000) });
    const reaper = s.app.get(PlayerSessionReaper);
    await reaper.reap();
    expect(await history()).toEqual([old, recent]);
    await configure('appManagement/configuration', { ShouldExpireLaunchHistory: 'true', ExpireLaunchHistoryAfterDays: '5' });
    await reaper.reap();
    expect(await history()).toEqual([old, recent]);
    await configure('appManagement/configuration', { ExpireLaunchHistoryAfterDays: '2' });
    await reaper.reap();
    expect(await history()).toEqual([recent]);
  });

  it('postbacks: ApiPostbackTimeoutSeconds and WebHookCustomUserAgent as the receiver sees them; ApiRollupRegistrationDuringSession false posts when the learner leaves', async () => {
    await configure('appManagement/configuration', { ApiPostbackTimeoutSeconds: '1', WebHookCustomUserAgent: 'Acme-Hooks/2.0' });
    const started = Date.now();
    const slow = await call(`${s.api}/registrations/postBackTest`, { method: 'POST', auth: app, json: { url: `${peer.url}/slow`, authType: 'FORM', resultsFormat: 'COURSE' } });
    expect(slow.status).toBe(400);
    expect(slow.body.message).toMatch(/did not answer within 1000 ms/);
    expect(Date.now() - started).toBeLessThan(peer.delayMs);
    expect(peer.at('/slow')[0].headers['user-agent']).toBe('Acme-Hooks/2.0');

    // A registration's postbacks (the job): the same user agent; with DuringSession false, only the final commit posts.
    await createReg('pb-exit', 'one', { postBack: { url: `${peer.url}/exit`, authType: 'FORM', resultsFormat: 'COURSE' } });
    await configure('registrations/pb-exit/configuration', { ApiRollupRegistrationDuringSession: 'false' });
    await createReg('pb-during', 'one', { postBack: { url: `${peer.url}/during`, authType: 'FORM', resultsFormat: 'COURSE' } });
    for (const id of ['pb-exit', 'pb-during']) {
      const commit = await launch(id);
      expect((await commit(1, { 'cmi.core.lesson_status': 'incomplete' })).status).toBe(200);
    }
    await waitFor(() => Promise.resolve(peer.at('/during').length), (n) => n >= 1);
    expect(peer.at('/during')[0].headers['user-agent']).toBe('Acme-Hooks/2.0');
    expect(peer.at('/exit')).toHaveLength(0);
    const again = await launch('pb-exit');
    expect((await again(1, { 'cmi.core.lesson_status': 'completed' }, true)).status).toBe(200);
    await waitFor(() => Promise.resolve(peer.at('/exit').length), (n) => n >= 1);
    expect(peer.at('/exit')).toHaveLength(1);
  });
});
