import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { importCourse } from '../support/courses';
import { zipOf } from '../support/player';
import { countQueries } from '../support/query-counter';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

const SCOS = ['sco-1', 'sco-2', 'sco-3'];

/** A generated three-SCO package (SCORM 1.2 or 2004) under one organization; the SCO pages are never run here. */
async function threeScoPackage(version: '1.2' | '2004'): Promise<Buffer> {
  const items = SCOS.map((id) => `<item identifier="${id}" identifierref="res-${id}"><title>Lesson ${id}</title></item>`).join('');
  const manifest =
    version === '1.2'
      ? `<?xml version="1.0"?><manifest identifier="rollup12" version="1" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
<metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
<organizations default="org"><organization identifier="org"><title>Rollup 1.2</title>${items}</organization></organizations>
<resources>${SCOS.map((id) => `<resource identifier="res-${id}" type="webcontent" adlcp:scormtype="sco" href="${id}.html"><file href="${id}.html"/></resource>`).join('')}</resources></manifest>`
      : `<?xml version="1.0"?><manifest identifier="rollup04" version="1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
<metadata><schema>ADL SCORM</schema><schemaversion>2004 3rd Edition</schemaversion></metadata>
<organizations default="org"><organization identifier="org"><title>Rollup 2004</title>${items}</organization></organizations>
<resources>${SCOS.map((id) => `<resource identifier="res-${id}" type="webcontent" adlcp:scormType="sco" href="${id}.html"><file href="${id}.html"/></resource>`).join('')}</resources></manifest>`;
  const files: Record<string, string> = { 'imsmanifest.xml': manifest };
  for (const id of SCOS) files[`${id}.html`] = `<!doctype html><title>${id}</title>`;
  return zipOf(files);
}

type Cmi = Record<string, string>;
/** SCORM 1.2 data model of a SCO that reports `status`, and a score out of 100 when given. */
const sco12 = (status: string, raw?: number): Cmi => ({
  'cmi.core.lesson_status': status,
  'cmi.core.session_time': '00:00:10',
  ...(raw !== undefined ? { 'cmi.core.score.raw': String(raw), 'cmi.core.score.min': '0', 'cmi.core.score.max': '100' } : {}),
});

describe('player: rollup across SCOs under the rollup settings (commits over HTTP, no browser)', () => {
  let s: TestServer;
  let app: string;
  let n = 0;

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'rollup12', { name: 'rollup12.zip', data: await threeScoPackage('1.2'), type: 'application/zip' });
    await importCourse(s.api, app, 'rollup04', { name: 'rollup04.zip', data: await threeScoPackage('2004'), type: 'application/zip' });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  const progress = async (registrationId: string) => {
    const r = await call(`${s.api}/registrations/${registrationId}?includeChildResults=true&includeRuntime=true&includeInteractionsAndObjectives=true`, { auth: app });
    expect(r.status).toBe(200);
    return r.body;
  };

  /**
   * Creates a registration of `courseId` with registration-level `settings`, launches it without a browser, and
   * returns a learner that visits SCOs (switching the session like the player's table of contents) and commits.
   */
  const learner = async (courseId: string, settings: Record<string, string> = {}) => {
    const registrationId = `reg-${++n}`;
    const created = await call(`${s.api}/registrations`, {
      method: 'POST',
      auth: app,
      json: { registrationId, courseId, learner: { id: `l-${n}` }, initialSettings: { settings: Object.entries(settings).map(([settingId, value]) => ({ settingId, value })) } },
    });
    expect(created.status).toBe(204);
    const link = await call(`${s.api}/registrations/${registrationId}/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    const res = await fetch(link.body.launchLink as string, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const player = new URL(res.headers.get('location')!, s.baseUrl).toString();
    let seq = 0;
    let current = SCOS[0];
    const commit = async (activityId: string, cmi: Cmi, final = false) => {
      if (activityId !== current) {
        const sw = await fetch(`${player}activity`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ activityId }) });
        expect(sw.status).toBe(200);
        current = activityId;
      }
      const r = await fetch(`${player}commit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seq: ++seq, activityId, cmi, final }) });
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ applied: true });
    };
    return { registrationId, commit, progress: () => progress(registrationId) };
  };

  const summary = (p: any) => ({
    registrationCompletion: p.registrationCompletion,
    registrationSuccess: p.registrationSuccess,
    score: p.score?.scaled,
    registrationCompletionAmount: p.registrationCompletionAmount,
  });
  const children = (p: any) => p.activityDetails.children.map((c: any) => [c.id, c.activityCompletion, c.activitySuccess, c.score?.scaled]);

  it('default rules: complete when every SCO is complete and none failed, average of the scored SCOs, fraction of SCOs done', async () => {
    const l = await learner('rollup12');
    await l.commit('sco-1', sco12('completed', 80));
    let p = await l.progress();
    expect(summary(p)).toEqual({ registrationCompletion: 'INCOMPLETE', registrationSuccess: 'UNKNOWN', score: 0.8, registrationCompletionAmount: 0.3333 });
    expect(children(p)).toEqual([
      ['sco-1', 'COMPLETED', 'UNKNOWN', 0.8],
      ['sco-2', 'UNKNOWN', 'UNKNOWN', undefined],
      ['sco-3', 'UNKNOWN', 'UNKNOWN', undefined],
    ]);
    expect(p.activityDetails).toMatchObject({ activityCompletion: 'INCOMPLETE', completionAmount: { scaled: 0.3333 }, timeTracked: '0000:00:10' });
    await l.commit('sco-2', sco12('passed', 60));
    await l.commit('sco-3', sco12('incomplete'));
    p = await l.progress();
    expect(summary(p)).toEqual({ registrationCompletion: 'INCOMPLETE', registrationSuccess: 'UNKNOWN', score: 0.7, registrationCompletionAmount: 0.6667 });
    expect(p.totalSecondsTracked).toBe(30);
    await l.commit('sco-3', sco12('failed', 40));
    p = await l.progress();
    // A failed SCO makes the course failed: completed, FAILED.
    expect(summary(p)).toEqual({ registrationCompletion: 'COMPLETED', registrationSuccess: 'FAILED', score: 0.6, registrationCompletionAmount: 1 });
    expect(p.completedDate).toBeDefined();
  });

  it('COMPLETE_WHEN_ALL_UNITS_COMPLETE with PlayerApplyRollupStatusToSuccess: the course passes once every SCO is complete', async () => {
    const l = await learner('rollup12', { PlayerStatusRollupModeValue: 'COMPLETE_WHEN_ALL_UNITS_COMPLETE', PlayerApplyRollupStatusToSuccess: 'YES' });
    await l.commit('sco-1', sco12('completed'));
    await l.commit('sco-2', sco12('failed', 20));
    expect(summary(await l.progress())).toMatchObject({ registrationCompletion: 'INCOMPLETE', registrationSuccess: 'UNKNOWN' });
    await l.commit('sco-3', sco12('completed'));
    expect(summary(await l.progress())).toEqual({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: 0.2, registrationCompletionAmount: 1 });
  });

  it('the same course without PlayerApplyRollupStatusToSuccess: completed, and the failed SCO fails it', async () => {
    const l = await learner('rollup12', { PlayerStatusRollupModeValue: 'COMPLETE_WHEN_ALL_UNITS_COMPLETE' });
    for (const [id, cmi] of [['sco-1', sco12('completed')], ['sco-2', sco12('failed', 20)], ['sco-3', sco12('completed')]] as const) await l.commit(id, cmi);
    expect(summary(await l.progress())).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'FAILED' });
  });

  it('COMPLETE_WHEN_THRESHOLD_SCORE_IS_MET with AVERAGE_SCORE_OF_ALL_UNITS: unscored SCOs count as 0', async () => {
    const l = await learner('rollup12', { PlayerStatusRollupModeValue: 'COMPLETE_WHEN_THRESHOLD_SCORE_IS_MET', PlayerStatusRollupModeThresholdScore: '0.5', PlayerScoreRollupModeValue: 'AVERAGE_SCORE_OF_ALL_UNITS' });
    await l.commit('sco-1', sco12('completed', 90));
    expect(summary(await l.progress())).toMatchObject({ registrationCompletion: 'INCOMPLETE', score: 0.3 });
    await l.commit('sco-2', sco12('incomplete', 90));
    // 1.8 / 3 = 0.6 ≥ 0.5: complete although sco-2 is not and sco-3 never ran.
    const p = await l.progress();
    expect(summary(p)).toEqual({ registrationCompletion: 'COMPLETED', registrationSuccess: 'UNKNOWN', score: 0.6, registrationCompletionAmount: 1 });
  });

  it('COMPLETE_WHEN_ALL_UNITS_COMPLETE_AND_THRESHOLD_SCORE_IS_MET (threshold as a percentage), success applied: failed when done below it', async () => {
    const l = await learner('rollup12', {
      PlayerStatusRollupModeValue: 'COMPLETE_WHEN_ALL_UNITS_COMPLETE_AND_THRESHOLD_SCORE_IS_MET',
      PlayerStatusRollupModeThresholdScore: '80',
      PlayerApplyRollupStatusToSuccess: 'YES',
    });
    await l.commit('sco-1', sco12('completed', 90));
    await l.commit('sco-2', sco12('completed', 85));
    expect(summary(await l.progress())).toMatchObject({ registrationCompletion: 'INCOMPLETE', registrationSuccess: 'UNKNOWN', score: 0.875 });
    await l.commit('sco-3', sco12('completed', 50));
    expect(summary(await l.progress())).toMatchObject({ registrationCompletion: 'INCOMPLETE', registrationSuccess: 'FAILED', score: 0.75, registrationCompletionAmount: 1 });
    await l.commit('sco-3', sco12('completed', 95));
    expect(summary(await l.progress())).toEqual({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: 0.9, registrationCompletionAmount: 1 });
  });

  it('COMPLETE_WHEN_ALL_UNITS_ARE_PASSED', async () => {
    const l = await learner('rollup12', { PlayerStatusRollupModeValue: 'COMPLETE_WHEN_ALL_UNITS_ARE_PASSED' });
    for (const id of SCOS) await l.commit(id, sco12('completed', 70));
    expect(summary(await l.progress())).toMatchObject({ registrationCompletion: 'INCOMPLETE', registrationSuccess: 'UNKNOWN' });
    for (const id of SCOS) await l.commit(id, sco12('passed', 70));
    expect(summary(await l.progress())).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: 0.7 });
  });

  it.each([
    ['FIXED_AVERAGE', { PlayerScoreRollupModeNumberOfScoringObjects: '4' }, 0.4],
    ['AVERAGE_SCORE_OF_ALL_UNITS_WITH_NONZERO_SCORES', {}, 0.8],
    ['AVERAGE_SCORE_OF_ALL_UNITS_WITH_SCORES', {}, 0.5333],
    ['AVERAGE_SCORE_OF_ALL_UNITS', {}, 0.5333],
    ['LAST_SCO_SCORE', {}, 0.9],
    ['SCORE_PROVIDED_BY_COURSE', {}, 0],
  ])('score rollup %s', async (mode, extra, expected) => {
    const l = await learner('rollup12', { PlayerScoreRollupModeValue: mode, ...extra });
    // Committed in the order sco-3, sco-1, sco-2: the course's "provided" score is the last one reported (sco-2's 0).
    await l.commit('sco-3', sco12('completed', 90));
    await l.commit('sco-1', sco12('completed', 70));
    await l.commit('sco-2', sco12('completed', 0));
    const p = await l.progress();
    expect(p.score.scaled).toBeCloseTo(expected, 4);
    expect(p.activityDetails.score.scaled).toBeCloseTo(expected, 4);
  });

  it('STATUS_PROVIDED_BY_COURSE: the course has the status the SCO that committed last reported', async () => {
    const l = await learner('rollup12', { PlayerStatusRollupModeValue: 'STATUS_PROVIDED_BY_COURSE', PlayerScoreRollupModeValue: 'SCORE_PROVIDED_BY_COURSE' });
    await l.commit('sco-2', sco12('passed', 75));
    expect(summary(await l.progress())).toEqual({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: 0.75, registrationCompletionAmount: 1 });
    await l.commit('sco-1', sco12('incomplete'));
    // No score in that commit: the course keeps the last score reported.
    expect(summary(await l.progress())).toMatchObject({ registrationCompletion: 'INCOMPLETE', registrationSuccess: 'UNKNOWN', score: 0.75 });
  });

  it('SCORM 2004 rolls up by the sequencing engine (the 1.2 modes do not apply): measure and progress rollup over every tracked child', async () => {
    const l = await learner('rollup04', { PlayerStatusRollupModeValue: 'COMPLETE_WHEN_THRESHOLD_SCORE_IS_MET', PlayerScoreRollupModeValue: 'LAST_SCO_SCORE' });
    await l.commit('sco-1', {
      'cmi.completion_status': 'incomplete',
      'cmi.progress_measure': '0.5',
      'cmi.score.scaled': '0.9',
      'cmi.session_time': 'PT5S',
      'cmi.interactions.1.id': 'q2',
      'cmi.interactions.0.id': 'q1',
      'cmi.interactions.0.correct_responses.0.pattern': 'a',
      'cmi.interactions.0.result': 'correct',
      'cmi.objectives.0.id': 'obj-1',
      'cmi.objectives.0.success_status': 'passed',
    });
    await l.commit('sco-2', { 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed', 'cmi.session_time': 'PT5S' });
    let p = await l.progress();
    // SN book RB.1.1: the root's measure and progress are weighted over all three tracked children (0.9 / 3, 0.5 / 3:
    // sco-2 reported completion but no progress measure); the default completion rules wait for every child.
    expect(summary(p)).toEqual({ registrationCompletion: 'INCOMPLETE', registrationSuccess: 'UNKNOWN', score: 0.3, registrationCompletionAmount: 0.1667 });
    expect(p.activityDetails.children[0].completionAmount).toEqual({ scaled: 0.5 });
    expect(p.activityDetails.children[0].runtime.runtimeInteractions).toEqual([
      { id: 'q1', correctResponses: ['a'], objectives: [], result: 'correct' },
      { id: 'q2', correctResponses: [], objectives: [] },
    ]);
    await l.commit('sco-1', { 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed', 'cmi.score.scaled': '0.7' });
    await l.commit('sco-3', { 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed', 'cmi.score.scaled': '0.5' });
    p = await l.progress();
    expect(summary(p)).toEqual({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: 0.4, registrationCompletionAmount: 1 });
  });

  it('a commit without a postback URL reads the session and its instance in one query, and writes in one transaction', async () => {
    const l = await learner('rollup12');
    await l.commit('sco-1', sco12('incomplete'));
    // Let the jobs of the launch and that commit (launch statements) finish, so that only the commit below is counted;
    // a commit's launch statements job is stored after its answer (queued without waiting, maybe in a batch).
    await sleep(200);
    const jobs = s.app.get(DataSource);
    for (let i = 0; i < 200 && Number((await jobs.query(`SELECT COUNT(*) AS n FROM job WHERE status IN ('queued', 'running')`))[0].n) > 0; i++) await sleep(25);
    const counter = countQueries(s.app);
    try {
      // The common commit: the SCO saved its place (nothing a launch statement reports changed, so no job is queued).
      await l.commit('sco-1', { ...sco12('incomplete'), 'cmi.core.lesson_location': 'page-7', 'cmi.suspend_data': 'x'.repeat(200) });
      // One read (session joined with its instance), then one transaction: the instance update, the registration's
      // (updated_at) and the launch history's; SQLite also counts its BEGIN and COMMIT.
      expect(counter.count).toBe(process.env.LCDS_TEST_DATABASE_URL ? 4 : 6);
    } finally {
      counter.stop();
    }
    await l.commit('sco-1', sco12('completed', 50));
    const p = await l.progress();
    expect(summary(p)).toEqual({ registrationCompletion: 'INCOMPLETE', registrationSuccess: 'UNKNOWN', score: 0.5, registrationCompletionAmount: 0.3333 });
    expect(p.firstAccessDate).toBeDefined();
    expect(p.completedDate).toBeUndefined();
    // The launch's history row follows every commit; the final one (unload) ends the launch.
    let history = (await call(`${s.api}/registrations/${l.registrationId}/launchHistory`, { auth: app })).body.launchHistory;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ completionStatus: 'INCOMPLETE', totalSecondsTracked: 10 });
    expect(history[0].lastRuntimeUpdate).toBeDefined();
    expect(history[0].exitTime).toBeUndefined();
    await l.commit('sco-2', sco12('completed', 100));
    await l.commit('sco-3', sco12('completed', 100), true);
    history = (await call(`${s.api}/registrations/${l.registrationId}/launchHistory`, { auth: app })).body.launchHistory;
    expect(history[0]).toMatchObject({ completionStatus: 'COMPLETED', totalSecondsTracked: 30, score: { scaled: 0.8333333 } });
    expect(history[0].exitTime).toBeDefined();
    const done = await l.progress();
    expect(done.completedDate).toBeDefined();
    expect(done.firstAccessDate).toBe(p.firstAccessDate);
  });
});
