import { importCourse } from '../support/courses';
import { scoPackage, zipOf } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * The player's sequencing endpoint over HTTP, without a browser: what it refuses (400), what a refused navigation
 * answers, and the registration-scoped global objectives: kept across launches, cleared by DeleteRegistrationGlobalData.
 */
const NS = `xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss"`;
const item = (id: string, seq: string) => `<item identifier="${id}" identifierref="R" parameters="?id=${id}"><title>${id}</title><imsss:sequencing>${seq}</imsss:sequencing></item>`;
const MANIFEST = `<?xml version="1.0"?><manifest identifier="M" ${NS}>
<metadata><schema>ADL SCORM</schema><schemaversion>2004 3rd Edition</schemaversion></metadata>
<organizations default="ORG"><organization identifier="ORG"><title>Shared</title>
${item('w', '<imsss:objectives><imsss:primaryObjective objectiveID="w-p"/><imsss:objective objectiveID="w-obj"><imsss:mapInfo targetObjectiveID="g.shared" readSatisfiedStatus="false" writeSatisfiedStatus="true"/></imsss:objective></imsss:objectives>')}
${item('b', '<imsss:objectives><imsss:primaryObjective objectiveID="b-p"/><imsss:objective objectiveID="from-g"><imsss:mapInfo targetObjectiveID="g.shared" readSatisfiedStatus="true" writeSatisfiedStatus="false"/></imsss:objective></imsss:objectives>')}
<imsss:sequencing><imsss:controlMode choice="true" flow="true"/></imsss:sequencing></organization></organizations>
<resources><resource identifier="R" type="webcontent" adlcp:scormType="sco" href="sco.html"><file href="sco.html"/></resource></resources></manifest>`;

type Cmi = Record<string, string>;
/** The value of cmi.objectives.n.<field> for the objective `id`, or undefined. */
const objective = (cmi: Cmi, id: string, field: string): string | undefined => {
  const key = Object.keys(cmi).find((k) => /^cmi\.objectives\.\d+\.id$/.test(k) && cmi[k] === id);
  return key ? cmi[key.replace(/id$/, field)] : undefined;
};

describe('player: SCORM 2004 sequencing over HTTP', () => {
  let s: TestServer;
  let app: string;

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'shared04', { name: 'shared04.zip', data: await zipOf({ 'imsmanifest.xml': MANIFEST, 'sco.html': '<html></html>' }), type: 'application/zip' });
    await importCourse(s.api, app, 'one12', { name: 'one12.zip', data: await scoPackage('1.2', ''), type: 'application/zip' });
    for (const [id, course] of [['sh', 'shared04'], ['old', 'one12']]) {
      expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: id, courseId: course, learner: { id: 'l-seq' } } })).status).toBe(204);
    }
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  /** Opens a player session for a registration (as the browser would) and returns its URL. */
  const launch = async (registrationId: string): Promise<string> => {
    const link = await call(`${s.api}/registrations/${registrationId}/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    const res = await fetch(link.body.launchLink as string, { redirect: 'manual' });
    expect(res.status).toBe(303);
    return new URL(res.headers.get('location')!, s.baseUrl).toString();
  };
  const post = async (url: string, body: unknown) => {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: r.status, body: await r.json() };
  };

  it('refuses what is not a navigation request (400), and a course without sequencing', async () => {
    const player = await launch('sh');
    for (const body of [{ request: 'fly' }, { request: 'choice' }, { request: 42 }, {}, { request: '{target=b}continue' }]) {
      const r = await post(`${player}nav`, body);
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/navigation request/);
    }
    const old = await post(`${await launch('old')}nav`, { request: 'continue' });
    expect(old.status).toBe(400);
    expect(old.body.message).toMatch(/sequencing/);
    // A valid request the rules refuse: 200 with the reason; the current activity runs on.
    const refused = await post(`${player}nav`, { request: '{target=nowhere}choice' });
    expect(refused.status).toBe(200);
    expect(refused.body.error).toBeDefined();
    expect(refused.body.launch.activityId).toBe('w');
    expect(refused.body.nav).toMatchObject({ continue: true, choice: ['w', 'b'] });
    expect((await post(`${player}nav`, { request: 'exitAll' })).body).toMatchObject({ ended: true });
  });

  it('names of Object.prototype as activity ids are unknown activities (200 with the refusal or a 4xx), never a server error', async () => {
    const player = await launch('sh');
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      for (const kind of ['choice', 'jump']) {
        for (const check of [false, true]) {
          const r = await post(`${player}nav`, { request: `{target=${name}}${kind}`, check });
          expect([r.status, name, kind]).toEqual([200, name, kind]);
          expect(r.body.error).toMatch(/not|no /i);
        }
      }
      const activity = await post(`${player}activity`, { activityId: name });
      expect(activity.status).toBeGreaterThanOrEqual(400);
      expect(activity.status).toBeLessThan(500);
      const commit = await post(`${player}commit`, { seq: 1, activityId: name, cmi: {} });
      expect(commit.status).toBe(400);
    }
    // The session is unharmed: w still runs, and continue goes on to b.
    expect((await post(`${player}nav`, { request: 'continue' })).body.launch.activityId).toBe('b');
    expect((await post(`${player}nav`, { request: 'exitAll' })).body).toMatchObject({ ended: true });
  });

  it('a course whose items, objectives and shared objectives are named __proto__ and constructor plays and reports like any other', async () => {
    const objectives = (id: string) =>
      `<imsss:objectives><imsss:primaryObjective objectiveID="${id}"><imsss:mapInfo targetObjectiveID="${id}" writeSatisfiedStatus="true"/></imsss:primaryObjective></imsss:objectives>`;
    const manifest = `<?xml version="1.0"?><manifest identifier="P" ${NS}>
<metadata><schema>ADL SCORM</schema><schemaversion>2004 3rd Edition</schemaversion></metadata>
<organizations default="ORG"><organization identifier="ORG"><title>Proto</title>
${item('__proto__', objectives('__proto__'))}${item('constructor', objectives('constructor'))}
<imsss:sequencing><imsss:controlMode choice="true" flow="true"/></imsss:sequencing></organization></organizations>
<resources><resource identifier="R" type="webcontent" adlcp:scormType="sco" href="sco.html"><file href="sco.html"/></resource></resources></manifest>`;
    await importCourse(s.api, app, 'proto04', { name: 'proto04.zip', data: await zipOf({ 'imsmanifest.xml': manifest, 'sco.html': '<html></html>' }), type: 'application/zip' });
    const course = await call(`${s.api}/courses/proto04`, { auth: app });
    expect(course.body.rootActivity.children.map((c: { itemIdentifier: string }) => c.itemIdentifier)).toEqual(['__proto__', 'constructor']);
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'proto', courseId: 'proto04', learner: { id: 'l-seq' } } })).status).toBe(204);
    const player = await launch('proto');
    for (const [seq, id] of [[1, '__proto__'], [2, 'constructor']] as const) {
      const cmi = { 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed', 'cmi.objectives.0.id': id, 'cmi.objectives.0.success_status': 'passed', 'cmi.exit': 'normal' };
      expect((await post(`${player}commit`, { seq, activityId: id, cmi, final: true })).status).toBe(200);
      const next = await post(`${player}nav`, { request: 'continue' });
      expect(next.status).toBe(200);
      if (id === '__proto__') expect(next.body.launch.activityId).toBe('constructor');
    }
    const p = await call(`${s.api}/registrations/proto?includeChildResults=true`, { auth: app });
    expect(p.body).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED' });
    expect(p.body.activityDetails.children.map((c: { id: string; activityCompletion: string }) => [c.id, c.activityCompletion])).toEqual([
      ['__proto__', 'COMPLETED'],
      ['constructor', 'COMPLETED'],
    ]);
    expect(p.body.globalObjectives.map((g: { id: string; objectiveSuccess: string }) => [g.id, g.objectiveSuccess]).sort()).toEqual([
      ['__proto__', 'PASSED'],
      ['constructor', 'PASSED'],
    ]);
    // Nothing of it reached the objects of this process (the test server runs in it).
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(({} as Record<string, unknown>).satisfiedStatus).toBeUndefined();
  });

  it('check: a request tried without running it (a bad check is a 400); PlayerForceDisableRootChoice refuses choosing the root', async () => {
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'root', courseId: 'shared04', learner: { id: 'l-seq' } } })).status).toBe(204);
    const set = await call(`${s.api}/registrations/root/configuration`, { method: 'POST', auth: app, json: { settings: [{ settingId: 'PlayerForceDisableRootChoice', value: 'YES' }] } });
    expect(set.status).toBe(204);
    const player = await launch('root');
    expect((await post(`${player}nav`, { request: 'continue', check: 'yes' })).status).toBe(400);
    // A valid request, only checked: nothing is delivered and the session stays on w.
    const checked = await post(`${player}nav`, { request: 'continue', check: true });
    expect(checked).toMatchObject({ status: 200, body: { nav: { continue: true } } });
    expect(checked.body.launch).toBeUndefined();
    expect(checked.body.error).toBeUndefined();
    const root = await post(`${player}nav`, { request: '{target=ORG}choice', check: true });
    expect(root.body.error).toMatch(/may not be started again/);
    // Run for real, the refused root choice changes nothing: w runs again, resumed.
    const again = await post(`${player}nav`, { request: '{target=ORG}choice' });
    expect(again.body).toMatchObject({ launch: { activityId: 'w', cmi: { 'cmi.entry': 'resume' } } });
    expect((await post(`${player}nav`, { request: 'continue' })).body.launch.activityId).toBe('b');
  });

  it('global objectives: kept with the registration across launches, cleared by DeleteRegistrationGlobalData', async () => {
    let player = await launch('sh');
    // w writes the shared objective through its map.
    const c = await post(`${player}commit`, { seq: 1, activityId: 'w', cmi: { 'cmi.objectives.0.id': 'w-obj', 'cmi.objectives.0.success_status': 'passed' } });
    expect(c.body).toMatchObject({ applied: true, nav: { continue: true } });
    // The registration's globalObjectives (RegistrationSchema) show the shared objective.
    const reg = async () => (await call(`${s.api}/registrations/sh`, { auth: app })).body as { globalObjectives: Array<Record<string, unknown>> };
    expect((await reg()).globalObjectives).toEqual([{ id: 'g.shared', primary: false, objectiveCompletion: 'UNKNOWN', objectiveSuccess: 'PASSED' }]);
    let toB = await post(`${player}nav`, { request: '{target=b}choice' });
    expect(toB.body.launch.activityId).toBe('b');
    expect(objective(toB.body.launch.cmi, 'from-g', 'success_status')).toBe('passed');
    expect((await post(`${player}nav`, { request: 'exitAll' })).body).toMatchObject({ ended: true });

    // A new launch (the state comes from the database): b still reads the shared objective.
    player = await launch('sh');
    toB = await post(`${player}nav`, { request: '{target=b}choice' });
    expect(objective(toB.body.launch.cmi, 'from-g', 'success_status')).toBe('passed');
    expect((await post(`${player}nav`, { request: 'exitAll' })).body).toMatchObject({ ended: true });

    expect((await call(`${s.api}/registrations/sh/globalData`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect((await reg()).globalObjectives).toEqual([]);
    player = await launch('sh');
    toB = await post(`${player}nav`, { request: '{target=b}choice' });
    expect(toB.body.launch.activityId).toBe('b');
    expect(objective(toB.body.launch.cmi, 'from-g', 'success_status')).toBeUndefined();
    expect(objective(toB.body.launch.cmi, 'from-g', 'id')).toBe('from-g');
  });
});
