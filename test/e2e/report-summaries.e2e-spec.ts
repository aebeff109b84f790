import { DataSource } from 'typeorm';
import { ApplicationAdminsService } from '../../src/modules/learners/application-admins.service';
import { RegistrationStatistics, StatisticsFilter } from '../../src/modules/registrations/registration-statistics';
import { RegistrationSummaries, SUMMARY_TIME_BOUNDS } from '../../src/modules/registrations/registration-summaries';
import { cliJson, ensureCliBuilt, runCli } from '../support/cli';
import { fixture, importCourse } from '../support/courses';
import { followLaunch, waitFor } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';
import { statement, tincanPackage, xapiLaunchOf } from '../support/xapi-launch';

/**
 * The report summaries (report_day, report_completion_day) answer what a scan of the registrations answers, after
 * creations with every kind of progress, runtime progress from an xAPI course's statements, resets, deletions of
 * registrations, a learner's erasure and a course's deletion, done one after another and concurrently; a rebuild
 * with the CLI puts back summaries that were damaged.
 */
describe('report summaries equal the figures of a scan', () => {
  let s: TestServer;
  let app: string;
  let appId: string;
  let stats: RegistrationStatistics;
  let n = 0;

  const today = new Date().toISOString().slice(0, 10);
  const day = (offset: number) => new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000);

  /** Every figure the report pages read, for the filters they use, from the summaries and from a scan. */
  async function figures(source: 'auto' | 'scan') {
    const filters: StatisticsFilter[] = [{}, { from: day(0), to: day(1) }, { from: day(-3), to: day(0) }, { courseId: 'golf' }, { courseId: 'xapi' }, { courseId: 'golf', from: day(0) }];
    const out = [];
    for (const f of filters) {
      const totals = await stats.totals(appId, f, source);
      out.push({
        filter: f,
        totals: { ...totals, averageScore: round(totals.averageScore), averageSeconds: round(totals.averageSeconds) },
        perDay: await stats.perDay(appId, f, source),
        perCourse: (await stats.perCourse(appId, f, source)).sort((a, b) => a.courseId.localeCompare(b.courseId)),
        scores: await stats.scoreHistogram(appId, f, source),
        times: await stats.timeHistogram(appId, f, SUMMARY_TIME_BOUNDS, source),
        analysis: byId(await stats.activityAnalysis(appId, f, source)),
      });
    }
    return out;
  }
  /** Activities and questions in one order (a scan lists them as met in the newest trees first, the counters by place in the tree). */
  const byId = <T extends { activities: Array<{ id: string }>; questions: Array<{ id: string }> }>(a: T) => ({
    ...a,
    activities: [...a.activities].sort((x, y) => x.id.localeCompare(y.id)),
    questions: [...a.questions].sort((x, y) => x.id.localeCompare(y.id)),
  });
  const round = (v: number | null) => (v === null ? null : Math.round(v * 1e9) / 1e9);
  /** Summaries used (not a fallback scan): the application's state row says built. */
  const built = async () => {
    const ds = s.app.get(DataSource);
    const rows = await ds.query<Array<{ built: number | boolean }>>('SELECT built FROM report_state WHERE app_id = ?', [appId]);
    return rows.length === 1 && Number(rows[0].built) === 1;
  };
  const expectSame = async () => {
    const fromSummaries = await figures('auto');
    expect(await built()).toBe(true);
    expect(fromSummaries).toEqual(await figures('scan'));
    return fromSummaries;
  };

  const create = async (courseId: string, learnerId: string, state?: Record<string, unknown>) => {
    const registrationId = `reg-${++n}`;
    const r = await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId, courseId, learner: { id: learnerId }, ...(state ? { initialRegistrationState: state } : {}) } });
    expect(r.status).toBe(204);
    return registrationId;
  };
  /** Progress of every kind: completion, success, a score in each bucket (and none, and negative), time in each bucket, completion days. */
  const stateOf = (k: number) => {
    const completion = ['COMPLETED', 'INCOMPLETE', 'UNKNOWN'][k % 3];
    const success = ['PASSED', 'FAILED', 'UNKNOWN', 'PASSED'][k % 4];
    const score = k % 7 === 6 ? undefined : k % 11 === 10 ? -0.5 : ((k * 37) % 101) / 100;
    return {
      registrationCompletion: completion,
      registrationSuccess: success,
      ...(score === undefined ? {} : { score: { scaled: score } }),
      totalSecondsTracked: [0, 30, 61, 400, 1000, 2000, 4000, 9000][k % 8],
      ...(k % 5 === 0 ? {} : { firstAccessDate: day(-1).toISOString() }),
      ...(completion === 'COMPLETED' ? { completedDate: day(-(k % 4)).toISOString() } : {}),
    };
  };

  beforeAll(async () => {
    ensureCliBuilt();
    s = await startTestServer();
    appId = s.firstStart.application.appId;
    app = basic(appId, s.firstStart.application.secretKey);
    stats = s.app.get(RegistrationStatistics);
    await importCourse(s.api, app, 'golf', fixture('scorm2004-3rd-golf-runtime-basic.zip'));
    await importCourse(s.api, app, 'other', fixture('scorm2004-3rd-golf-runtime-basic.zip'));
    await importCourse(s.api, app, 'xapi', { name: 'xapi.zip', data: await tincanPackage('<!doctype html><title>xAPI</title><p>content</p>'), type: 'application/zip' });
  }, 120_000);
  afterAll(async () => s?.close());

  it('after creations with all kinds of progress, the summaries (built on the first report) answer what a scan answers', async () => {
    for (let k = 0; k < 40; k++) await create(['golf', 'other', 'xapi'][k % 3], `learner-${k % 9}`, stateOf(k));
    const first = await expectSame();
    // The figures are the ones made: 40 registrations today, 14 of them completed.
    expect(first[0].totals).toMatchObject({ registrations: 40, completed: 14 });
    expect(first[1].totals.registrations).toBe(40);
    expect(first[2].totals.registrations).toBe(0);
    expect(first[0].perDay.reduce((sum, d) => sum + d.completed, 0)).toBe(14);
    expect(first[0].scores.reduce((a, b) => a + b, 0)).toBe(40 - 5 - 3);
  });

  it('runtime progress (statements of an xAPI course), resets and deletions, one after another', async () => {
    const id = await create('xapi', 'learner-runtime');
    const r = await call(`${s.api}/registrations/${id}/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    const { html } = await followLaunch(s.baseUrl, r.body.launchLink as string);
    const { endpoint, auth, actor, registration, activityId } = xapiLaunchOf(html);
    const post = await fetch(`${endpoint}statements`, {
      method: 'POST',
      headers: { authorization: auth, 'x-experience-api-version': '1.0.3', 'content-type': 'application/json' },
      body: JSON.stringify(statement(actor, 'passed', activityId, registration, { success: true, completion: true, score: { scaled: 0.93 } })),
    });
    expect(post.status).toBe(200);
    await waitFor(async () => (await call(`${s.api}/registrations/${id}`, { auth: app })).body, (b) => b.registrationSuccess === 'PASSED');
    const after = await expectSame();
    expect(after[4].scores[9]).toBeGreaterThanOrEqual(1);

    expect((await call(`${s.api}/registrations/reg-1/progress`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect((await call(`${s.api}/registrations/reg-2`, { method: 'DELETE', auth: app })).status).toBe(204);
    const reset = await expectSame();
    expect(reset[0].totals.registrations).toBe(40);
  });

  it('concurrent creations, resets and deletions leave summaries equal to a scan', async () => {
    const work: Array<Promise<unknown>> = [];
    for (let k = 0; k < 24; k++) work.push(create(['golf', 'other'][k % 2], `learner-c${k % 5}`, stateOf(k + 3)));
    for (const id of ['reg-3', 'reg-4', 'reg-5', 'reg-6']) work.push(call(`${s.api}/registrations/${id}`, { method: 'DELETE', auth: app }));
    for (const id of ['reg-7', 'reg-8', 'reg-9']) work.push(call(`${s.api}/registrations/${id}/progress`, { method: 'DELETE', auth: app }));
    // Reports read while it all happens.
    for (let k = 0; k < 4; k++) work.push(call(`${s.api}/lcds/reports/application`, { auth: app }).then((res) => expect(res.status).toBe(200)));
    await Promise.all(work);
    const all = await expectSame();
    expect(all[0].totals.registrations).toBe(40 + 1 + 24 - 1 - 4);
  });

  it("a learner's erasure and a course's deletion take their registrations out of the summaries", async () => {
    await s.app.get(ApplicationAdminsService).add(appId, 'admin@example.com');
    const before = (await figures('auto'))[0].totals.registrations;
    const learners = await call(`${s.api}/registrations?learnerId=learner-3`, { auth: app });
    const gone = (learners.body.registrations as unknown[]).length;
    expect(gone).toBeGreaterThan(0);
    expect((await call(`${s.api}/learner/learner-3/delete-information?userEmail=admin@example.com`, { method: 'POST', auth: app })).status).toBe(204);
    await waitFor(async () => (await call(`${s.api}/registrations?learnerId=learner-3`, { auth: app })).body.registrations.length, (left: number) => left === 0, 30_000);
    const erased = await expectSame();
    expect(erased[0].totals.registrations).toBe(before - gone);

    expect((await call(`${s.api}/courses/other`, { method: 'DELETE', auth: app })).status).toBe(204);
    const deleted = await expectSame();
    expect(deleted[0].perCourse.map((c) => c.courseId)).toEqual(['golf', 'xapi']);
  });

  it('lcds reports rebuild puts damaged summaries right, with its progress', async () => {
    const good = await figures('scan');
    const ds = s.app.get(DataSource);
    await ds.query('UPDATE report_day SET registrations = registrations + 100, s3 = 7 WHERE app_id = ?', [appId]);
    await ds.query('DELETE FROM report_completion_day WHERE app_id = ?', [appId]);
    await ds.query('UPDATE report_activity_day SET attempted = attempted + 9 WHERE app_id = ?', [appId]);
    // A refresh recomputes only what changed since its watermark: moved ahead, it leaves the damage alone.
    const ahead = new Date(Date.now() + 3_600_000);
    await ds.query('UPDATE report_state SET watermark = ? WHERE app_id = ?', [ds.options.type === 'mysql' ? ahead : ahead.toISOString().replace('T', ' ').replace('Z', ''), appId]);
    expect(await figures('auto')).not.toEqual(good);
    const res = await runCli(s.stack.env, s.stack.dataDir, ['reports', 'rebuild', '--app', appId, '--json']);
    const out = cliJson<{ applications: Array<{ appId: string; registrations: number }> }>(res);
    expect(out.applications).toEqual([expect.objectContaining({ appId, registrations: good[0].totals.registrations })]);
    expect(await expectSame()).toEqual(good);
    // Rebuilt again, seven registrations at a time (the chunks' figures added up by bucket), the same.
    const seen: number[] = [];
    await s.app.get(RegistrationSummaries).rebuild(appId, (done) => seen.push(done), 7);
    expect(seen.length).toBeGreaterThan(5);
    expect(seen[seen.length - 1]).toBe(good[0].totals.registrations);
    expect(await figures('auto')).toEqual(good);
  });

  it('the report data requests answer from the summaries: the application and a course over whole days', async () => {
    const app0 = await call(`${s.api}/lcds/reports/application?from=${today}&to=${today}`, { auth: app });
    expect(app0.status).toBe(200);
    const scan = await stats.totals(appId, { from: day(0), to: day(1) }, 'scan');
    expect(app0.body.totals.registrations).toBe(scan.registrations);
    const course = await call(`${s.api}/lcds/reports/courses/golf`, { auth: app });
    expect(course.status).toBe(200);
    expect(course.body.scores).toEqual(await stats.scoreHistogram(appId, { courseId: 'golf' }, 'scan'));
    expect(course.body.times.counts).toEqual(await stats.timeHistogram(appId, { courseId: 'golf' }, SUMMARY_TIME_BOUNDS, 'scan'));
  });
});
