import { aiccLaunchOf, aiccPackage, hacp } from '../support/aicc';
import { fixture, importCourse } from '../support/courses';
import { learnerRegistrations } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

describe('AICC over HACP: launch parameters, GetParam/PutParam/ExitAU, results through /api/v2', () => {
  let s: TestServer;
  let app: string;
  const learner = { id: 'learner-a', firstName: 'Ada', lastName: 'Lovelace' };
  const { createReg, link, progress } = learnerRegistrations(() => s, () => app, learner);

  /** Launches a registration and returns the AU's HACP session id and URL, as the player frames the AU. */
  const launch = async (registrationId: string) => {
    const launched = await fetch(await link(registrationId), { redirect: 'manual' });
    const page = new URL(launched.headers.get('location')!, s.baseUrl).toString();
    return { page, ...aiccLaunchOf(await (await fetch(page)).text()) };
  };

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    const pkg = await aiccPackage('<!doctype html><title>AU</title><p>AU</p>', { masteryScore: '80', coreVendor: 'vendor=42' });
    await importCourse(s.api, app, 'gen-aicc', { name: 'gen-aicc.zip', data: pkg, type: 'application/zip' });
    await importCourse(s.api, app, 'complex', fixture('aicc-complex-pre-ort.zip'));
  }, 60_000);
  afterAll(async () => s?.close());

  it('launches the AU with AICC_SID and an absolute, URL-encoded aicc_url under PUBLIC_URL', async () => {
    await createReg('r-launch', 'gen-aicc');
    const launched = await fetch(await link('r-launch'), { redirect: 'manual' });
    const html = await (await fetch(new URL(launched.headers.get('location')!, s.baseUrl))).text();
    const { sid, url, contentUrl } = aiccLaunchOf(html);
    expect(contentUrl).toMatch(/^content\/au\/index\.html\?AICC_SID=[0-9a-f]+&AICC_URL=http%3A%2F%2F/);
    expect(sid).toMatch(/^[0-9a-f]{64}$/);
    expect(url).toBe(`${s.config.publicUrl}/player/hacp`);
    // The page's own SCORM API records nothing for an AICC course: the AU reports over HACP.
    expect(html).toContain('"tracking":false');
  });

  it('round-trips GetParam, PutParam (abbreviated and full forms), PutInteractions, PutObjectives, ExitAU into the registration', async () => {
    await createReg('r-hacp', 'gen-aicc');
    const { sid, url } = await launch('r-hacp');

    const first = await hacp(url, 'GetParam', sid);
    expect(first).toMatchObject({ error: '0', errorText: 'Successful' });
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    expect(first.data.split('\r\n')).toEqual(
      expect.arrayContaining([
        '[Core]',
        'Student_ID=learner-a',
        'Student_Name=Lovelace, Ada',
        'Lesson_Location=',
        'Credit=credit',
        'Lesson_Status=not attempted, ab-initio',
        'Lesson_Mode=normal',
        '[Core_Vendor]',
        'vendor=42',
        '[Student_Data]',
        'Mastery_Score=80',
        'Max_Time_Allowed=00:30:00',
      ]),
    );

    // Halfway: incomplete with the suspend flag abbreviated, a bookmark and suspend data.
    const put = await hacp(url, 'putparam', sid, '[Core]\r\nLesson_Location=page-3\r\nLesson_Status=i,s\r\nScore=\r\nTime=0:00:20\r\n[Core_Lesson]\r\nviewed=1,2,3\r\n');
    expect(put).toMatchObject({ error: '0', errorText: 'Successful', data: '' });
    let p = await progress('r-hacp');
    expect(p).toMatchObject({ registrationCompletion: 'INCOMPLETE', registrationSuccess: 'UNKNOWN', totalSecondsTracked: 20 });
    expect(p.activityDetails.children[0].runtime).toMatchObject({ completionStatus: 'incomplete', location: 'page-3', suspendData: 'viewed=1,2,3', exit: 'suspend' });
    expect(p.activityDetails.children[0].suspended).toBe(true);

    const again = await hacp(url, 'GETPARAM', sid);
    expect(again.error).toBe('0');
    expect(again.data).toContain('Lesson_Location=page-3\r\n');
    expect(again.data).toContain('[Core_Lesson]\r\nviewed=1,2,3\r\n');

    const interactions = [
      '"course_id","student_id","lesson_id","date","time","interaction_id","objective_id","type_interaction","correct_response","student_response","result","weighting","latency"',
      '"gen-aicc","learner-a","A1","2026/11/22","10:00:00","q1","obj-1","C","a","a","C","1","00:00:05"',
      '"gen-aicc","learner-a","A1","2026/11/22","10:00:10","q2","obj-1","T","t","f","W","1","00:00:04"',
    ].join('\r\n');
    expect((await hacp(url, 'PutInteractions', sid, interactions)).error).toBe('0');
    expect((await hacp(url, 'PutObjectives', sid, '"course_id","student_id","lesson_id","j_id","j_score","j_status"\r\n"gen-aicc","learner-a","A1","obj-1","90,100,0","P"\r\n')).error).toBe('0');
    expect((await hacp(url, 'PutComments', sid, '<1>Nice lesson<e.1>')).error).toBe('0');
    expect((await hacp(url, 'PutPath', sid, '')).error).toBe('0');
    expect((await hacp(url, 'PutPerformance', sid, '')).error).toBe('0');

    // Done: a full status word, score raw,max,min and the session time so far.
    expect((await hacp(url, 'PutParam', sid, '[Core]\r\nLesson_Location=end\r\nLesson_Status=passed\r\nScore=85,100,0\r\nTime=00:01:30\r\n')).error).toBe('0');
    expect((await hacp(url, 'ExitAU', sid)).error).toBe('0');

    p = (await call(`${s.api}/registrations/r-hacp?includeRuntime=true&includeChildResults=true&includeInteractionsAndObjectives=true`, { auth: app })).body;
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: { scaled: 0.85 }, totalSecondsTracked: 90, registrationCompletionAmount: 1 });
    const leaf = p.activityDetails.children[0];
    expect(leaf).toMatchObject({ id: 'A1', activityCompletion: 'COMPLETED', activitySuccess: 'PASSED', attempts: 1, suspended: false, timeTracked: '0000:01:30' });
    expect(leaf.runtime).toMatchObject({ completionStatus: 'completed', runtimeSuccessStatus: 'PASSED', location: 'end', scoreRaw: '85', scoreMax: '100', scoreMin: '0', suspendData: 'viewed=1,2,3' });
    expect(leaf.runtime.runtimeInteractions).toHaveLength(2);
    // Reported under the schema's names: type Choice, learnerResponse, SCORM 1.2's "wrong" as "incorrect".
    expect(leaf.runtime.runtimeInteractions[0]).toMatchObject({ id: 'q1', type: 'Choice', result: 'correct', learnerResponse: 'a', latency: '00:00:05' });
    expect(leaf.runtime.runtimeInteractions[1]).toMatchObject({ id: 'q2', type: 'TrueFalse', result: 'incorrect' });
    expect(leaf.runtime.runtimeObjectives[0]).toMatchObject({ id: 'obj-1', runtimeObjectiveSuccessStatus: 'PASSED', runtimeObjectiveCompletionStatus: 'COMPLETED', scoreRaw: '90' });
    const history = (await call(`${s.api}/registrations/r-hacp/launchHistory`, { auth: app })).body.launchHistory;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ completionStatus: 'COMPLETED', successStatus: 'PASSED', totalSecondsTracked: 90 });
    expect(history[0].exitTime).toBeDefined();
  });

  it('applies the AU mastery score like SCORM 1.2 and accepts "completed, logout" forms', async () => {
    await createReg('r-mastery', 'gen-aicc');
    const { sid, url } = await launch('r-mastery');
    expect((await hacp(url, 'PutParam', sid, '[CORE]\r\nlesson_status=Completed, Logout\r\nscore=70\r\ntime=00:00:10\r\n')).error).toBe('0');
    const p = await progress('r-mastery');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'FAILED', totalSecondsTracked: 10 });
    expect(p.activityDetails.children[0].runtime).toMatchObject({ exit: 'logout', scoreRaw: '70' });
  });

  it('answers bad session ids, unknown commands and malformed data with HACP error codes, never HTTP errors', async () => {
    await createReg('r-bad', 'gen-aicc');
    const { sid, url } = await launch('r-bad');
    for (const bad of ['', 'nope', sid.replace(/.$/, (c) => (c === '0' ? '1' : '0')), '0'.repeat(64)]) {
      expect(await hacp(url, 'GetParam', bad)).toMatchObject({ error: '3', errorText: 'Invalid Session ID', data: '' });
    }
    expect(await hacp(url, 'FlyAway', sid)).toMatchObject({ error: '1', errorText: 'Invalid Command' });
    expect(await hacp(url, '', sid)).toMatchObject({ error: '1', errorText: 'Invalid Command' });
    const malformed = await hacp(url, 'PutParam', sid, '[Core]\r\nLesson_Status=sleeping\r\n');
    expect(malformed.error).toBe('1');
    expect(malformed.errorText).toMatch(/Lesson_Status "sleeping"/);
    expect((await hacp(url, 'PutParam', sid, '[Core]\r\nTime=ten minutes\r\n')).errorText).toMatch(/Time "ten minutes"/);
    expect((await progress('r-bad')).registrationCompletion).toBe('UNKNOWN');
    // The launch's history log has the commands of its session, with their data and the error codes answered.
    const log = (await call(`${s.api}/registrations/r-bad/launchHistory?includeHistoryLog=true`, { auth: app })).body.launchHistory[0].historyLog as string;
    expect(log).toMatch(/ hacp FlyAway: error 1 \(Invalid Command\)\n/);
    expect(log).toMatch(/ hacp PutParam aicc_data="\[Core\]\\r\\nLesson_Status=sleeping": error 1 \(Invalid aicc_data: .*Lesson_Status "sleeping".*\)\n/);
    expect(log).not.toMatch(/GetParam/); // the bad session ids reach no launch
    // Sections and keys named after Object.prototype are data like any other: they reach no object of the process.
    for (const data of ['[__proto__]\r\npolluted=yes\r\n', '[Core]\r\n__proto__=yes\r\nconstructor=x\r\n', '[constructor]\r\nprototype=yes\r\n', '[Objectives_Status]\r\nJ_ID.1=__proto__\r\nJ_Status.1=passed\r\n']) {
      expect(['0', '1']).toContain((await hacp(url, 'PutParam', sid, data)).error);
      expect((await hacp(url, 'PutObjectives', sid, '"system_id","__proto__","constructor"\r\n"obj","a","b"\r\n')).error).toMatch(/^[0-9]+$/);
    }
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(Object, 'prototype') && (Object as unknown as Record<string, unknown>).prototype === Object.prototype).toBe(true);
    expect(await hacp(url, 'GetParam', sid)).toMatchObject({ error: '0' });
    // A preflight for XHR variants is answered for any origin.
    const pre = await fetch(url, { method: 'OPTIONS', headers: { origin: 'https://content.example.com', 'access-control-request-method': 'POST' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('runs the multi-AU fixture: each AU gets its own session id, the one left behind is refused, rollup covers all AUs', async () => {
    await createReg('r-complex', 'complex');
    const { page, sid, url } = await launch('r-complex');
    const aus = ['A1', 'A2', 'A3'];
    let currentSid = sid;
    for (const [i, au] of aus.entries()) {
      if (i > 0) {
        const switched = await fetch(`${page}activity`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ activityId: au }) });
        const next = (await switched.json()) as { activityId: string; contentUrl: string };
        expect(next.activityId).toBe(au);
        const nextSid = new URL(next.contentUrl, 'http://x/').searchParams.get('AICC_SID')!;
        expect(nextSid).not.toBe(currentSid);
        // The AU the player left can no longer report.
        expect((await hacp(url, 'GetParam', currentSid)).error).toBe('3');
        currentSid = nextSid;
      }
      const got = await hacp(url, 'GetParam', currentSid);
      expect(got.data).toContain('[Core_Vendor]\r\nExample Corp\r\n');
      expect(got.data).toContain(`Mastery_Score=${au === 'A2' ? '' : au === 'A1' ? '80' : '75'}\r\n`);
      expect((await hacp(url, 'PutParam', currentSid, `[Core]\r\nLesson_Status=${au === 'A3' ? 'P' : 'C'}\r\nScore=${au === 'A3' ? '90' : ''}\r\nTime=00:01:00\r\n`)).error).toBe('0');
      expect((await hacp(url, 'ExitAU', currentSid)).error).toBe('0');
      const p = await progress('r-complex');
      expect(p.registrationCompletion).toBe(i === aus.length - 1 ? 'COMPLETED' : 'INCOMPLETE');
    }
    const p = await progress('r-complex');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', totalSecondsTracked: 180 });
    const leaves = p.activityDetails.children;
    expect(leaves.map((l: { id: string; activityCompletion: string }) => [l.id, l.activityCompletion])).toEqual([
      ['A1', 'COMPLETED'],
      ['A2', 'COMPLETED'],
      ['A3', 'COMPLETED'],
    ]);
    expect(leaves[2]).toMatchObject({ activitySuccess: 'PASSED', score: { scaled: 0.9 } });
  });
});
