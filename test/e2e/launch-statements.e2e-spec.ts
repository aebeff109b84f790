import { LAUNCH_STATEMENTS_BATCH_QUEUE } from '../../src/modules/xapi/launch-statements/launch-statements';
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
    // Nothing more arrives later (each job states only what changed).
    await new Promise((r) => setTimeout(r, 500));
    expect(await statementsOf('xs-12')).toHaveLength(expected.length);
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
  const commitStatementsOf = async (registrationId: string) => {
    const registration = (await call(`${s.api}/registrations/${registrationId}`, { auth: app })).body.xapiRegistrationId as string;
    const r = await fetch(`${s.config.publicUrl}/lrs/${s.firstStart.application.appId}/statements?registration=${registration}&ascending=true&limit=100`, { headers: { authorization: app, 'x-experience-api-version': '1.0.3' } });
    const list = ((await r.json()) as { statements: Array<{ id: string; verb: { id: string }; object: { id: string }; result?: unknown }> }).statements;
    return list.filter((x) => !/(launched|initialized)$/.test(x.verb.id)).map((x) => ({ id: x.id, verb: x.verb.id.replace(ADL, ''), object: x.object.id.split('/').pop(), result: x.result }));
  };
  const register = async (registrationId: string) => {
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId, courseId: 'golf12', learner } })).status).toBe(204);
    return launch(registrationId, 'golf12');
  };

  it('commits of several registrations gathered into jobs give the statements, in order, that recording each commit on its own gives', async () => {
    // The reference: each commit's statements are in before the next commit is sent.
    const alone = await register('xs-alone');
    for (const [i, step] of steps.entries()) {
      await alone(i + 1, step.cmi, step.final);
      const want = i === steps.length - 1 ? stepVerbs.length : [1, 2, 3, 4, 6][i];
      await waitFor(() => commitStatementsOf('xs-alone'), (l) => l.length >= want);
    }
    const reference = await commitStatementsOf('xs-alone');
    expect(reference.map((x) => x.verb)).toEqual(stepVerbs);

    // The same commits of three registrations at once, each registration's in order: they share jobs.
    const ids = ['xs-many-1', 'xs-many-2', 'xs-many-3'];
    const commits = await Promise.all(ids.map(register));
    await Promise.all(commits.map(async (commit) => {
      for (const [i, step] of steps.entries()) await commit(i + 1, step.cmi, step.final);
    }));
    for (const id of ids) {
      const list = await waitFor(() => commitStatementsOf(id), (l) => l.length >= stepVerbs.length);
      expect(list.map(({ verb, object, result }) => ({ verb, object, result }))).toEqual(reference.map(({ verb, object, result }) => ({ verb, object, result })));
    }
    await new Promise((r) => setTimeout(r, 500));
    for (const id of ids) expect(await commitStatementsOf(id)).toHaveLength(stepVerbs.length);
  });

  it('a job whose statements could not be stored is retried and states them once', async () => {
    // The last commit's job fails: no later job can move the activity on meanwhile.
    const statements = s.app.get(XapiStatementsService);
    const store = statements.storeStatements.bind(statements);
    let failed = 0;
    const spy = jest.spyOn(statements, 'storeStatements').mockImplementation(async (appId, input, ...rest) => {
      if (failed === 0 && input.some((x) => /terminated$/.test((x as { verb: { id: string } }).verb.id))) {
        failed++;
        throw new Error('the LRS tables are locked for a moment');
      }
      return store(appId, input, ...rest);
    });
    try {
      const commit = await register('xs-retried');
      for (const [i, step] of steps.entries()) await commit(i + 1, step.cmi, step.final);
      const list = await waitFor(() => commitStatementsOf('xs-retried'), (l) => l.length >= stepVerbs.length);
      expect(failed).toBe(1);
      expect(list.map((x) => x.verb)).toEqual(stepVerbs);
      await new Promise((r) => setTimeout(r, 500));
      expect(await commitStatementsOf('xs-retried')).toHaveLength(stepVerbs.length);
    } finally {
      spy.mockRestore();
    }
  });

  it('a batch that runs before the batch of the commits before it (another worker process took that one) waits for it: no interaction goes unstated', async () => {
    const jobs = s.app.get(JobQueue);
    const enqueue = jobs.enqueue.bind(jobs);
    let held: (() => Promise<string>) | null = null;
    const spy = jest.spyOn(jobs, 'enqueue').mockImplementation(async (queue, payload, options) => {
      const items = (payload as { items?: Array<{ registrationId: string }> }).items;
      if (queue === LAUNCH_STATEMENTS_BATCH_QUEUE && held === null && items?.some((x) => x.registrationId === 'xs-overtaken')) {
        // The first batch reaches the queue only later, as if another process had taken it and were slow.
        held = () => enqueue(queue, payload, options);
        return 'held';
      }
      return enqueue(queue, payload, options);
    });
    try {
      const commit = await register('xs-overtaken');
      await commit(1, steps[0].cmi);
      for (let i = 0; i < 100 && held === null; i++) await new Promise((r) => setTimeout(r, 20));
      expect(held).not.toBeNull();
      // The second batch (Q2 is new; Q1 was in the held batch) runs first and must not state around the gap.
      await commit(2, steps[2].cmi);
      await new Promise((r) => setTimeout(r, 400));
      expect((await commitStatementsOf('xs-overtaken')).filter((x) => x.verb === 'responded')).toEqual([]);
      await held!();
      const list = await waitFor(() => commitStatementsOf('xs-overtaken'), (l) => l.filter((x) => x.verb === 'responded').length >= 2);
      expect(list.filter((x) => x.verb === 'responded').map((x) => x.object)).toEqual(['q1', 'q2']);
      await new Promise((r) => setTimeout(r, 500));
      expect((await commitStatementsOf('xs-overtaken')).filter((x) => x.verb === 'responded')).toHaveLength(2);
    } finally {
      spy.mockRestore();
    }
  }, 60_000);

  it('a batch job with a malformed commit fails at once, saying what is wrong, and states nothing', async () => {
    const jobs = s.app.get(JobQueue);
    const appId = s.firstStart.application.appId;
    const good = { kind: 'commit', appId, registrationId: 'nobody', instance: 0, activityId: 'sco', standard: '2004', at: Date.now(), key: '1', seq: 1, cmi: {} };
    const bad = { ...good, instance: -1, standard: '2005', cmi: 'no' };
    const id = await jobs.enqueue(LAUNCH_STATEMENTS_BATCH_QUEUE, { items: [good, bad] } as never, { appId });
    const job = await waitFor(() => jobs.get(id), (j) => j?.status === 'failed');
    expect(job?.attempts).toBe(1);
    expect(job?.error).toContain('items[1].instance must be an integer ≥ 0');
    expect(job?.error).toContain('items[1].standard must be 1.2 or 2004');
    expect(job?.error).toContain('items[1].cmi must be an object');
    expect(job?.error).not.toContain('items[0]');
  });
});
