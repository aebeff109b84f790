import { DataSource } from 'typeorm';
import { CreateRegistrationDto } from '../../src/modules/registrations/dto/registration.dto';
import { RegistrationStatistics, TREE_SAMPLE_LIMIT } from '../../src/modules/registrations/registration-statistics';
import { RegistrationCreation } from '../../src/modules/registrations/registration-creation';
import { fixture, importCourse } from '../support/courses';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * Progress per activity and question analysis come from counters kept with the report summaries: a course report
 * counts every registration (here more than the TREE_SAMPLE_LIMIT a scan reads), and a registration's deletion or
 * reset is reflected at the next report.
 */
describe('report activity counters', () => {
  let s: TestServer;
  let app: string;
  let appId: string;
  const RIGHT = 3500;
  const WRONG = 2500;

  /** A tree of two activities whose SCO holds the learner's final answer to q1 (an earlier, wrong one first). */
  const tree = (answer: 'a' | 'b') => ({
    id: 'root',
    title: 'Quiz',
    attempts: 1,
    activityCompletion: 'COMPLETED',
    activitySuccess: answer === 'a' ? 'PASSED' : 'FAILED',
    timeTracked: 'PT0S',
    suspended: false,
    objectives: [],
    children: [
      {
        id: 'sco-1',
        title: 'Question page',
        attempts: 1,
        activityCompletion: 'COMPLETED',
        activitySuccess: answer === 'a' ? 'PASSED' : 'FAILED',
        timeTracked: 'PT0S',
        suspended: false,
        objectives: [],
        children: [],
        runtime: {
          runtimeInteractions: [
            { id: 'q1', type: 'choice', description: 'Pick a', learnerResponse: 'c', result: 'incorrect', latency: 'PT5S' },
            { id: 'q1', type: 'choice', description: 'Pick a', learnerResponse: answer, result: answer === 'a' ? 'correct' : 'incorrect', latency: 'PT10S' },
          ],
        },
      },
    ],
  });

  beforeAll(async () => {
    s = await startTestServer();
    appId = s.firstStart.application.appId;
    app = basic(appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'bulk', fixture('scorm2004-3rd-golf-runtime-basic.zip'));
    const bodies = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, k) => Object.assign(new CreateRegistrationDto(), { courseId: 'bulk', registrationId: `${prefix}-${String(k).padStart(5, '0')}`, learner: { id: `${prefix}-learner-${k}` } }));
    const registrations = s.app.get(RegistrationCreation);
    await registrations.createMany(appId, bodies('right', RIGHT));
    await registrations.createMany(appId, bodies('wrong', WRONG));
    // Their trees written directly (as runtime commits would leave them).
    const ds = s.app.get(DataSource);
    for (const [prefix, answer] of [['right', 'a'], ['wrong', 'b']] as const) {
      await ds.query('UPDATE registration_instance SET activity_details = ? WHERE app_id = ? AND registration_id LIKE ?', [JSON.stringify(tree(answer)), appId, `${prefix}-%`]);
    }
  }, 300_000);
  afterAll(async () => s?.close());

  it('a course report counts every registration, beyond what a scan of the newest trees reads', async () => {
    expect(RIGHT + WRONG).toBeGreaterThan(TREE_SAMPLE_LIMIT);
    const res = await call(`${s.api}/lcds/reports/courses/bulk`, { auth: app });
    expect(res.status).toBe(200);
    expect(res.body.sampled).toBe(RIGHT + WRONG);
    expect(res.body.activities).toEqual([
      { id: 'root', title: 'Quiz', depth: 0, attempted: RIGHT + WRONG, completed: RIGHT + WRONG, passed: RIGHT },
      { id: 'sco-1', title: 'Question page', depth: 1, attempted: RIGHT + WRONG, completed: RIGHT + WRONG, passed: RIGHT },
    ]);
    // Only the final answer counts (not the earlier wrong "c").
    expect(res.body.questions).toEqual([
      { id: 'q1', description: 'Pick a', type: 'choice', answered: RIGHT + WRONG, correct: RIGHT, wrongAnswers: [{ response: 'b', count: WRONG }], averageLatencySeconds: 10 },
    ]);
    // A scan (what the report read before) stops at the newest TREE_SAMPLE_LIMIT.
    const scan = await s.app.get(RegistrationStatistics).activityAnalysis(appId, { courseId: 'bulk' }, 'scan');
    expect(scan.sampled).toBe(TREE_SAMPLE_LIMIT);
  });

  it("a registration's deletion and another's reset are reflected at the next report", async () => {
    expect((await call(`${s.api}/registrations/wrong-00001`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect((await call(`${s.api}/registrations/wrong-00002`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect((await call(`${s.api}/registrations/right-00001/progress`, { method: 'DELETE', auth: app })).status).toBe(204);
    const res = await call(`${s.api}/lcds/reports/courses/bulk`, { auth: app });
    expect(res.status).toBe(200);
    expect(res.body.sampled).toBe(RIGHT + WRONG - 2);
    const [q1] = res.body.questions as Array<{ answered: number; correct: number; wrongAnswers: unknown }>;
    expect(q1).toMatchObject({ answered: RIGHT + WRONG - 3, correct: RIGHT - 1, wrongAnswers: [{ response: 'b', count: WRONG - 2 }] });
    // The reset registration's new tree is the course's (golf), never attempted: its activities are listed with nothing attempted.
    const root = (res.body.activities as Array<{ id: string; attempted: number; passed: number }>).find((a) => a.id === 'root');
    expect(root).toMatchObject({ attempted: RIGHT + WRONG - 3, passed: RIGHT - 1 });
  });

  it('a filter the counters cannot answer (a learner) reads the trees', async () => {
    const res = await call(`${s.api}/lcds/reports/courses/bulk?learnerId=right-learner-7`, { auth: app });
    expect(res.status).toBe(200);
    expect(res.body.sampled).toBe(1);
    expect(res.body.questions[0]).toMatchObject({ answered: 1, correct: 1 });
  });
});
