import { DataSource } from 'typeorm';
import { XapiStatementsService } from '../../src/modules/xapi/xapi-statements.service';
import { JobQueue } from '../../src/platform/queue/job-queue';
import { fixture, importCourse } from '../support/courses';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

type ApiStatement = { id: string; verb: { id: string }; objectActivity?: { id: string; definition?: { type?: string; interactionType?: string; name?: Record<string, string> } }; result?: Record<string, any>; context?: Record<string, any>; actor: any };

/**
 * SCORM launches produce xAPI statements in the application's LRS (ADL xAPI SCORM Profile), without a browser: a
 * launch link is opened over HTTP and runtime commits are posted to the player's commit endpoint, as the player
 * page does. The registration's xAPIStatements endpoint then shows them.
 */
describe('statements from SCORM launches', () => {
  let s: TestServer;
  let app: string;
  const learner = { id: 'learner-7', firstName: 'Grace', lastName: 'Hopper' };
  const ADL = 'http://adlnet.gov/expapi/verbs/';

  const waitFor = async <T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await read();
      if (ok(v) || Date.now() > deadline) return v;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  /** Opens a launch link of the registration; returns the commit function of its session and the activity id. */
  const launch = async (registrationId: string, courseId: string) => {
    const linkRes = await call(`${s.api}/registrations/${registrationId}/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    expect(linkRes.status).toBe(200);
    const res = await fetch(linkRes.body.launchLink as string, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const playerUrl = new URL(res.headers.get('location')!, s.baseUrl).toString();
    const progress = await call(`${s.api}/registrations/${registrationId}?includeChildResults=true`, { auth: app });
    const activityId = progress.body.activityDetails.children[0].id as string;
    expect(courseId).toBeTruthy();
    return async (seq: number, cmi: Record<string, string>, final = false) => {
      const r = await fetch(`${playerUrl}commit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seq, activityId, cmi, ...(final ? { final } : {}) }) });
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ applied: true });
    };
  };

  const statementsOf = async (registrationId: string): Promise<ApiStatement[]> => {
    const r = await call(`${s.api}/registrations/${registrationId}/xAPIStatements`, { auth: app });
    expect(r.status).toBe(200);
    return r.body.statements as ApiStatement[];
  };
  const verbs = (list: ApiStatement[]) => list.map((x) => x.verb.id.replace(ADL, ''));

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'golf12', fixture('scorm12-golf-runtime-basic.zip'));
    await importCourse(s.api, app, 'golf2004', fixture('scorm2004-3rd-golf-runtime-basic.zip'));
  });
  afterAll(async () => s?.close());

  it('SCORM 1.2: launched, initialized, responded, completed, passed (with score), terminated — once each, in the registration', async () => {
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'xs-12', courseId: 'golf12', learner } })).status).toBe(204);
    const reg = (await call(`${s.api}/registrations/xs-12`, { auth: app })).body;
    const commit = await launch('xs-12', 'golf12');
    await commit(1, { 'cmi.core.lesson_status': 'incomplete', 'cmi.interactions.0.id': 'q1', 'cmi.interactions.0.type': 'choice', 'cmi.interactions.0.student_response': 'b', 'cmi.interactions.0.result': 'correct' });
    await commit(2, {
      'cmi.core.lesson_status': 'passed',
      'cmi.core.score.raw': '80',
      'cmi.core.score.min': '0',
      'cmi.core.score.max': '100',
      'cmi.interactions.0.id': 'q1',
      'cmi.interactions.0.type': 'choice',
      'cmi.interactions.0.student_response': 'b',
      'cmi.interactions.0.result': 'correct',
      'cmi.interactions.1.id': 'q2',
      'cmi.interactions.1.type': 'true-false',
      'cmi.interactions.1.student_response': 'f',
      'cmi.interactions.1.result': 'wrong',
    });
    await commit(3, { 'cmi.core.lesson_status': 'passed', 'cmi.core.score.raw': '80', 'cmi.core.score.min': '0', 'cmi.core.score.max': '100', 'cmi.core.session_time': '00:01:30', 'cmi.core.exit': '' }, true);

    const expected = ['launched', 'initialized', 'responded', 'completed', 'passed', 'responded', 'terminated'];
    const list = await waitFor(() => statementsOf('xs-12'), (l) => l.length >= expected.length);
    expect([...verbs(list)].sort()).toEqual([...expected].sort());
    for (const st of list) {
      expect(st.context?.registration).toBe(reg.xapiRegistrationId);
      expect(st.actor).toMatchObject({ name: 'Grace Hopper', account: { name: 'learner-7' } });
      expect(st.context?.contextActivities?.category).toEqual([expect.objectContaining({ id: 'https://w3id.org/xapi/scorm' })]);
    }
    const by = (v: string) => list.filter((x) => x.verb.id === `${ADL}${v}`);
    expect(by('passed')[0].result).toMatchObject({ success: true, score: { scaled: 0.8, raw: 80, min: 0, max: 100 } });
    expect(by('completed')[0].result).toMatchObject({ completion: true });
    expect(by('terminated')[0].result).toMatchObject({ duration: 'PT90S' });
    expect(by('launched')[0].objectActivity?.definition?.type).toBe('http://adlnet.gov/expapi/activities/lesson');
    // The commits' statements name the SCO and the course as the launch's do (the session keeps what it launched).
    const named = (st: ApiStatement) => [st.objectActivity?.id, st.objectActivity?.definition?.name, JSON.stringify(st.context?.contextActivities?.parent)];
    expect(named(by('launched')[0])[1]).toEqual({ und: expect.any(String) });
    for (const v of ['completed', 'passed', 'terminated']) expect(named(by(v)[0])).toEqual(named(by('launched')[0]));
    expect(by('responded').map((x) => [x.objectActivity?.id.split('/').pop(), x.objectActivity?.definition?.interactionType, x.result?.response, x.result?.success])).toEqual(
      expect.arrayContaining([
        ['q1', 'choice', 'b', true],
        ['q2', 'true-false', 'f', false],
      ]),
    );
    // Stored in order: the launch's when it opened, then each commit's with it.
    expect(verbs(await statementsOf('xs-12'))).toEqual(expected);
  });

  it('a SCO that re-sends its whole interactions journal with every commit: each interaction is responded once, as it comes', async () => {
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'xs-journal', courseId: 'golf2004', learner } })).status).toBe(204);
    const commit = await launch('xs-journal', 'golf2004');
    const journal = (n: number) => {
      const cmi: Record<string, string> = { 'cmi.completion_status': 'incomplete', 'cmi.session_time': `PT${n}S` };
      for (let i = 0; i < n; i++) Object.assign(cmi, { [`cmi.interactions.${i}.id`]: `j${i}`, [`cmi.interactions.${i}.type`]: 'choice', [`cmi.interactions.${i}.learner_response`]: `r${i}`, [`cmi.interactions.${i}.result`]: 'correct' });
      return cmi;
    };
    // Commits 1-4 each add an interaction and re-send the earlier ones; commit 5 only re-sends them.
    for (let seq = 1; seq <= 5; seq++) await commit(seq, journal(Math.min(seq, 4)), seq === 5);
    const list = await waitFor(() => statementsOf('xs-journal'), (l) => verbs(l).includes('terminated'));
    const responded = list.filter((x) => x.verb.id === `${ADL}responded`).map((x) => [x.objectActivity?.id.split('/').pop(), x.result?.response]);
    expect(responded.sort()).toEqual([
      ['j0', 'r0'],
      ['j1', 'r1'],
      ['j2', 'r2'],
      ['j3', 'r3'],
    ]);
  });

  it('SCORM 2004: suspended on exit=suspend, resumed at the next launch, failed when success_status says so', async () => {
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'xs-2004', courseId: 'golf2004', learner } })).status).toBe(204);
    const first = await launch('xs-2004', 'golf2004');
    await first(1, { 'cmi.completion_status': 'incomplete', 'cmi.exit': 'suspend', 'cmi.session_time': 'PT20S' }, true);
    await waitFor(() => statementsOf('xs-2004'), (l) => verbs(l).includes('suspended'));
    const second = await launch('xs-2004', 'golf2004');
    await second(1, { 'cmi.completion_status': 'completed', 'cmi.success_status': 'failed', 'cmi.score.scaled': '0.4', 'cmi.exit': 'normal' }, true);
    const expected = ['launched', 'initialized', 'suspended', 'launched', 'resumed', 'completed', 'failed', 'terminated'];
    const list = await waitFor(() => statementsOf('xs-2004'), (l) => l.length >= expected.length);
    expect([...verbs(list)].sort()).toEqual([...expected].sort());
    expect(list.find((x) => x.verb.id === `${ADL}failed`)?.result).toMatchObject({ success: false, score: { scaled: 0.4 } });
  });

  /** SCORM 1.2 commits whose statements depend on what the commits before them reported. */
  const SCORE = { 'cmi.core.score.min': '0', 'cmi.core.score.max': '100' };
  const Q1 = { 'cmi.interactions.0.id': 'q1', 'cmi.interactions.0.type': 'choice', 'cmi.interactions.0.student_response': 'b', 'cmi.interactions.0.result': 'correct' };
  const Q2 = { 'cmi.interactions.1.id': 'q2', 'cmi.interactions.1.type': 'true-false', 'cmi.interactions.1.student_response': 't', 'cmi.interactions.1.result': 'wrong' };
  const steps: Array<{ cmi: Record<string, string>; final?: boolean }> = [
    { cmi: { 'cmi.core.lesson_status': 'incomplete', ...Q1 } },
    { cmi: { 'cmi.core.lesson_status': 'incomplete', 'cmi.core.score.raw': '50', ...SCORE, ...Q1 } },
    { cmi: { 'cmi.core.lesson_status': 'incomplete', 'cmi.core.score.raw': '50', ...SCORE, ...Q1, ...Q2 } },
    { cmi: { 'cmi.core.lesson_status': 'incomplete', 'cmi.core.score.raw': '70', ...SCORE, ...Q1, ...Q2 } },
    { cmi: { 'cmi.core.lesson_status': 'passed', 'cmi.core.score.raw': '70', ...SCORE, ...Q1, ...Q2 } },
    { cmi: { 'cmi.core.lesson_status': 'passed', 'cmi.core.score.raw': '70', ...SCORE, ...Q1, ...Q2, 'cmi.core.session_time': '00:00:42' }, final: true },
  ];
  const stepVerbs = ['responded', 'scored', 'responded', 'scored', 'completed', 'passed', 'terminated'];
  /** The commits' statements of a registration in the order the LRS stored them: verb, object and result. */
  /** `related`: only those that mention this activity anywhere (found through the statements' links). */
  const commitStatementsOf = async (registrationId: string, related?: string) => {
    const registration = (await call(`${s.api}/registrations/${registrationId}`, { auth: app })).body.xapiRegistrationId as string;
    const filter = related ? `&activity=${encodeURIComponent(related)}&related_activities=true` : '';
    const r = await fetch(`${s.config.publicUrl}/lrs/${s.firstStart.application.appId}/statements?registration=${registration}${filter}&ascending=true&limit=100`, {
      headers: { authorization: app, 'x-experience-api-version': '1.0.3' },
    });
    const list = ((await r.json()) as { statements: Array<{ id: string; verb: { id: string }; object: { id: string }; result?: unknown }> }).statements;
    return list.filter((x) => !/(launched|initialized)$/.test(x.verb.id)).map((x) => ({ id: x.id, verb: x.verb.id.replace(ADL, ''), object: x.object.id.split('/').pop(), result: x.result }));
  };
  const register = async (registrationId: string) => {
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId, courseId: 'golf12', learner } })).status).toBe(204);
    return launch(registrationId, 'golf12');
  };

  it('a commit is answered once its statements are stored: each commit states, at once and in order, what it changed', async () => {
    const commit = await register('xs-alone');
    const wants = [['responded'], ['scored'], ['responded'], ['scored'], ['completed', 'passed'], ['terminated']];
    let seen = 0;
    for (const [i, step] of steps.entries()) {
      await commit(i + 1, step.cmi, step.final);
      // No waiting: the commit's transaction stored them.
      const list = await commitStatementsOf('xs-alone');
      expect(list.slice(seen).map((x) => x.verb)).toEqual(wants[i]);
      seen = list.length;
    }
    expect((await commitStatementsOf('xs-alone')).map((x) => x.verb)).toEqual(stepVerbs);
  });

  it('commits of several registrations at once (written together) give the statements, in order, that each commit alone gives', async () => {
    // The reference: one learner's commits, each answered before the next is sent.
    const alone = await register('xs-reference');
    for (const [i, step] of steps.entries()) await alone(i + 1, step.cmi, step.final);
    const reference = await commitStatementsOf('xs-reference');
    expect(reference.map((x) => x.verb)).toEqual(stepVerbs);
    const ids = ['xs-many-1', 'xs-many-2', 'xs-many-3', 'xs-many-4'];
    const commits = await Promise.all(ids.map(register));
    await Promise.all(
      commits.map(async (commit) => {
        for (const [i, step] of steps.entries()) await commit(i + 1, step.cmi, step.final);
      }),
    );
    const course = `${s.config.publicUrl}/xapi/activities/course/golf12`;
    for (const id of ids) {
      const list = await commitStatementsOf(id);
      expect(list.map(({ verb, object, result }) => ({ verb, object, result }))).toEqual(reference.map(({ verb, object, result }) => ({ verb, object, result })));
      // Every one mentions the course: its links (written with the seqs the batch's insert gave) find them all.
      expect(await commitStatementsOf(id, course)).toEqual(list);
    }
  });

  it('a commit whose statements cannot be stored is not applied at all; the player\'s retry applies it and states it once', async () => {
    const statements = s.app.get(XapiStatementsService);
    const writeOwn = statements.writeOwn.bind(statements);
    let failures = 0;
    let locked = true;
    const spy = jest.spyOn(statements, 'writeOwn').mockImplementation(async (writer, list) => {
      // The LRS tables are locked for a moment: the batch fails, and so would its item-by-item retry.
      if (locked && list.some((x) => x.valuesAt(new Date()).some((v: unknown) => typeof v === 'string' && v.includes('/verbs/terminated')))) {
        failures++;
        throw new Error('the LRS tables are locked for a moment');
      }
      return writeOwn(writer, list);
    });
    try {
      const commit = await register('xs-retried');
      for (const [i, step] of steps.slice(0, -1).entries()) await commit(i + 1, step.cmi, step.final);
      const last = steps[steps.length - 1];
      const before = await call(`${s.api}/registrations/xs-retried?includeChildResults=true&includeRuntime=true`, { auth: app });
      await expect(commit(steps.length, last.cmi, last.final)).rejects.toThrow();
      expect(failures).toBeGreaterThanOrEqual(1);
      // Nothing of the failed commit: neither its statements nor its progress (the session time it reported).
      expect((await commitStatementsOf('xs-retried')).map((x) => x.verb)).toEqual(stepVerbs.slice(0, -1));
      const after = await call(`${s.api}/registrations/xs-retried?includeChildResults=true&includeRuntime=true`, { auth: app });
      expect(after.body.activityDetails).toEqual(before.body.activityDetails);
      locked = false;
      await commit(steps.length, last.cmi, last.final);
      expect((await commitStatementsOf('xs-retried')).map((x) => x.verb)).toEqual(stepVerbs);
    } finally {
      spy.mockRestore();
    }
  });

  it('the statements of a launch the LRS could not take at once are stored by a job, once', async () => {
    const statements = s.app.get(XapiStatementsService);
    const store = statements.storeStatements.bind(statements);
    let failed = 0;
    const spy = jest.spyOn(statements, 'storeStatements').mockImplementation(async (appId, input, ...rest) => {
      if (failed === 0 && input.some((x) => /launched$/.test((x as { verb: { id: string } }).verb.id))) {
        failed++;
        throw new Error('the LRS tables are locked for a moment');
      }
      return store(appId, input, ...rest);
    });
    try {
      const commit = await register('xs-launch-retried');
      expect(failed).toBe(1);
      await commit(1, steps[0].cmi);
      const list = await waitFor(() => statementsOf('xs-launch-retried'), (l) => verbs(l).includes('launched'));
      expect([...verbs(list)].sort()).toEqual(['initialized', 'launched', 'responded']);
      await new Promise((r) => setTimeout(r, 500));
      expect(await statementsOf('xs-launch-retried')).toHaveLength(3);
    } finally {
      spy.mockRestore();
    }
  });

  it('what an activity reported goes with its instance: after a progress reset, completing it again is stated again', async () => {
    const done = { 'cmi.core.lesson_status': 'completed' };
    const first = await register('xs-reset');
    await first(1, done);
    await first(2, done);
    expect((await commitStatementsOf('xs-reset')).map((x) => x.verb)).toEqual(['completed']);
    expect((await call(`${s.api}/registrations/xs-reset/progress`, { method: 'DELETE', auth: app })).status).toBe(204);
    const again = await launch('xs-reset', 'golf12');
    await again(1, done);
    expect((await commitStatementsOf('xs-reset')).map((x) => x.verb)).toEqual(['completed', 'completed']);
  });

  it('a session opened by an earlier version (its settings name no statement subject) states its commits, naming what the rows say', async () => {
    const ds = s.app.get(DataSource);
    const done = { 'cmi.core.lesson_status': 'completed' };
    const reference = await register('xs-subject-new');
    await reference(1, done);
    const commit = await register('xs-subject-old');
    const [row] = await ds.query<Array<{ id: string; settings: string }>>('SELECT id, settings FROM player_session WHERE registration_id = ?', ['xs-subject-old']);
    const settings = JSON.parse(row.settings) as Record<string, unknown>;
    expect(settings.statements).toBeDefined();
    delete settings.statements;
    await ds.query('UPDATE player_session SET settings = ? WHERE id = ?', [JSON.stringify(settings), row.id]);
    await commit(1, done);
    const named = async (id: string) => (await statementsOf(id)).filter((x) => /completed$/.test(x.verb.id)).map((x) => [x.objectActivity?.id.split('/').slice(-3), x.objectActivity?.definition?.name, x.actor.name]);
    expect(await named('xs-subject-old')).toEqual(await named('xs-subject-new'));
    expect(await named('xs-subject-old')).toHaveLength(1);
  });

  it('a batch of commits queued by an earlier version (its statements were made by jobs) is taken off the queue, stating nothing', async () => {
    const jobs = s.app.get(JobQueue);
    const appId = s.firstStart.application.appId;
    const commit = await register('xs-legacy');
    await commit(1, steps[0].cmi);
    const item = { kind: 'commit', appId, registrationId: 'xs-legacy', instance: 0, activityId: 'sco', standard: '1.2', at: Date.now(), key: '99', seq: 99, cmi: {} };
    const before = (await commitStatementsOf('xs-legacy')).length;
    expect(before).toBe(1);
    const id = await jobs.enqueue({ name: 'xapi-launch-statements-batch', check: () => [] }, { items: [item] }, { appId });
    const job = await waitFor(() => jobs.get(id), (j) => j?.status === 'completed');
    expect(job?.status).toBe('completed');
    expect(await commitStatementsOf('xs-legacy')).toHaveLength(before);
  });
});
