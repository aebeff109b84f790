import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { importCourse } from '../support/courses';
import { finishSco, PASSING_SCO_12, unzip } from '../support/dispatch-lms';
import { launchBrowser, openPage, scoPackage, waitFor } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

type Statement = { actor: unknown; verb: { id: string }; object: { id: string }; result?: Record<string, any>; context: Record<string, any>; auth: string };

/**
 * A stand-in LMS with an LRS on another origin: its cmi5 fetch URL hands out an auth token, its state API answers
 * LMS.LaunchData, its statements API records what it receives (checking the token). CORS as an LRS answers it.
 */
async function startStandInLrs() {
  const statements: Statement[] = [];
  const hacp: Array<{ command: string; sid: string; data: string }> = [];
  const token = 'dG9rZW4tZnJvbS10aGUtbG1z';
  let launchData: Record<string, unknown> = {};
  const body = (req: IncomingMessage) => new Promise<string>((r) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => r(text));
  });
  const files = new Map<string, Buffer>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      res.setHeader('Access-Control-Allow-Origin', '*');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { 'Access-Control-Allow-Headers': 'Authorization, Content-Type, X-Experience-API-Version', 'Access-Control-Allow-Methods': 'GET, POST, PUT, OPTIONS' }).end();
        return;
      }
      if (req.method === 'POST' && url.pathname === '/hacp') {
        const form = new URLSearchParams(await body(req));
        hacp.push({ command: form.get('command') ?? '', sid: form.get('session_id') ?? '', data: form.get('aicc_data') ?? '' });
        const known = form.get('session_id') === 'aicc-session-1';
        const answer = !known
          ? 'error=3\r\nerror_text=Invalid Session ID\r\n'
          : form.get('command') === 'GetParam'
            ? 'error=0\r\nerror_text=Successful\r\naicc_data=[Core]\r\nStudent_ID=aicc-learner-1\r\nStudent_Name=Turing, Alan\r\nLesson_Location=\r\nCredit=C\r\nLesson_Status=n\r\nScore=\r\nTime=00:00:00\r\n[Core_Lesson]\r\n'
            : 'error=0\r\nerror_text=Successful\r\n';
        res.writeHead(200, { 'content-type': 'text/plain' }).end(answer);
        return;
      }
      if (req.method === 'POST' && url.pathname === '/fetch') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ 'auth-token': token }));
        return;
      }
      const auth = req.headers.authorization ?? '';
      if (url.pathname === '/xapi/activities/state' && req.method === 'GET') {
        if (auth !== `Basic ${token}` || url.searchParams.get('stateId') !== 'LMS.LaunchData') return void res.writeHead(401).end();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(launchData));
        return;
      }
      if (url.pathname === '/xapi/statements' && req.method === 'POST') {
        if (req.headers['x-experience-api-version'] !== '1.0.3') return void res.writeHead(400).end();
        const s = JSON.parse(await body(req)) as Statement;
        statements.push({ ...s, auth });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([randomUUID()]));
        return;
      }
      const file = files.get(url.pathname);
      if (file) return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(file);
      res.writeHead(404).end();
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    token,
    statements,
    hacp,
    setLaunchData: (d: Record<string, unknown>) => void (launchData = d),
    serve: (path: string, data: Buffer) => void files.set(path, data),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * #20: cmi5, xAPI and AICC dispatch packages. The stand-in LMS launches the cmi5 AU (LCDS's page) with the cmi5 launch
 * parameters in Chromium; the learner completes the course in LCDS's player; the LMS's LRS receives the cmi5-defined
 * statements. The xAPI package's page, served by the LMS, sends the learner on to LCDS with the Tin Can parameters.
 * The AICC AU is launched with aicc_sid and aicc_url; LCDS talks HACP with the stand-in (GetParam, PutParam, ExitAU).
 */
describe('cmi5, xAPI and AICC dispatch packages', () => {
  let s: TestServer;
  let lrs: Awaited<ReturnType<typeof startStandInLrs>>;
  let app: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  const zip = async (type: string) => {
    const res = await fetch(`${s.api}/dispatch/dispatches/dx/zip?type=${type}`, { headers: { authorization: app } });
    expect(res.status).toBe(200);
    return unzip(Buffer.from(await res.arrayBuffer()));
  };
  const verbs = (list: Statement[]) => list.map((x) => x.verb.id.replace('http://adlnet.gov/expapi/verbs/', ''));

  beforeAll(async () => {
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true' });
    lrs = await startStandInLrs();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'xc', { name: 'xc.zip', data: await scoPackage('1.2', PASSING_SCO_12), type: 'application/zip' });
    expect((await call(`${s.api}/dispatch/destinations`, { method: 'POST', auth: app, json: { destinations: [{ id: 'lms', data: { name: 'cmi5 LMS' } }] } })).status).toBe(204);
    expect((await call(`${s.api}/dispatch/dispatches`, { method: 'POST', auth: app, json: { dispatches: [{ id: 'dx', data: { destinationId: 'lms', courseId: 'xc' } }] } })).status).toBe(204);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await lrs?.close();
    await s?.close();
  });

  it('CMI5: cmi5.xml of one AU on LCDS; launched by the LMS, it reports initialized, completed, passed (score, mastery) and terminated', async () => {
    const files = await zip('CMI5');
    expect([...files.keys()]).toEqual(['cmi5.xml']);
    const xml = files.get('cmi5.xml')!.toString();
    expect(xml).toContain('<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">');
    const auId = /<au id="([^"]+)" moveOn="CompletedOrPassed"/.exec(xml)![1];
    const auUrl = /<url>([^<]+)<\/url>/.exec(xml)![1].replace(/&amp;/g, '&');
    expect(auUrl).toMatch(new RegExp(`^${s.baseUrl}/dispatch/cmi5/[A-Za-z0-9_-]+/[A-Za-z0-9_-]{43}$`));
    expect(xml).not.toContain(s.firstStart.application.secretKey);

    const sessionId = randomUUID();
    const courseIri = /<course id="([^"]+)"/.exec(xml)![1];
    lrs.setLaunchData({
      contextTemplate: { contextActivities: { grouping: [{ id: courseIri }] }, extensions: { 'https://w3id.org/xapi/cmi5/context/extensions/sessionid': sessionId } },
      launchMode: 'Normal',
      moveOn: 'CompletedOrPassed',
      masteryScore: 0.8,
    });
    const actor = { objectType: 'Agent', account: { homePage: lrs.origin, name: 'cmi5-learner-1' }, name: 'Ada Lovelace' };
    const registration = randomUUID();
    const params = new URLSearchParams({ endpoint: `${lrs.origin}/xapi/`, fetch: `${lrs.origin}/fetch`, actor: JSON.stringify(actor), registration, activityId: auId });
    // Refused: a link not from the package (the signature altered), or without the fetch URL.
    expect((await fetch(`${auUrl.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))}?${params}`)).status).toBe(400);
    const noFetch = new URLSearchParams(params);
    noFetch.delete('fetch');
    expect((await fetch(`${auUrl}?${noFetch}`)).status).toBe(400);

    const page = await openPage(browser.context, `${auUrl}?${params}`);
    await finishSco(page);
    const got = await waitFor(() => Promise.resolve(lrs.statements.filter((x) => x.context.registration === registration)), (l) => verbs(l).includes('terminated'), 30_000);
    expect(verbs(got)).toEqual(['initialized', 'completed', 'passed', 'terminated']);
    for (const st of got) {
      expect(st.auth).toBe(`Basic ${lrs.token}`);
      expect(st.actor).toEqual(actor);
      expect(st.object.id).toBe(auId);
      expect(st.context.extensions['https://w3id.org/xapi/cmi5/context/extensions/sessionid']).toBe(sessionId);
      expect(st.context.contextActivities.grouping).toEqual([{ id: courseIri }]);
      expect(st.context.contextActivities.category).toContainEqual({ id: 'https://w3id.org/xapi/cmi5/context/categories/cmi5' });
    }
    const passed = got[2];
    expect(passed.result).toMatchObject({ success: true, score: { scaled: 0.85 } });
    expect(passed.result!.duration).toMatch(/^PT[\d.]+S$/);
    expect(passed.context.extensions['https://w3id.org/xapi/cmi5/context/extensions/masteryscore']).toBe(0.8);
    expect(passed.context.contextActivities.category).toContainEqual({ id: 'https://w3id.org/xapi/cmi5/context/categories/moveon' });
    expect(got[1].result).toMatchObject({ completion: true });
    const regs = (await call(`${s.api}/registrations?courseId=xc`, { auth: app })).body.registrations;
    expect(regs).toContainEqual(expect.objectContaining({ registrationSuccess: 'PASSED', learner: expect.objectContaining({ id: 'cmi5-learner-1', firstName: 'Ada Lovelace' }) }));
    await page.close();
  }, 90_000);

  it('XAPI: tincan.xml of one activity; its page sends the learner to LCDS, which reports attempted, completed, passed and terminated with the launch auth', async () => {
    const files = await zip('XAPI');
    expect([...files.keys()].sort()).toEqual(['index.html', 'tincan.xml']);
    const xml = files.get('tincan.xml')!.toString();
    expect(xml).toContain('<launch lang="en-US">index.html</launch>');
    const activityId = /<activity id="([^"]+)"/.exec(xml)![1];
    lrs.serve('/courses/xapi/index.html', files.get('index.html')!);
    const actor = { objectType: 'Agent', mbox: 'mailto:grace@lms.example', name: 'Grace Hopper' };
    const registration = randomUUID();
    const params = new URLSearchParams({ endpoint: `${lrs.origin}/xapi/`, auth: 'Basic eGFwaTpsbXM=', actor: JSON.stringify(actor), registration, activity_id: activityId });
    const page = await openPage(browser.context, `${lrs.origin}/courses/xapi/index.html?${params}`);
    await finishSco(page);
    const got = await waitFor(() => Promise.resolve(lrs.statements.filter((x) => x.context.registration === registration)), (l) => verbs(l).includes('terminated'), 30_000);
    expect(verbs(got)).toEqual(['attempted', 'completed', 'passed', 'terminated']);
    expect(got.every((x) => x.auth === 'Basic eGFwaTpsbXM=' && x.object.id === activityId)).toBe(true);
    expect(got[2].result).toMatchObject({ success: true, score: { scaled: 0.85 } });
    expect(got[2].context.contextActivities?.category).toBeUndefined();
    const regs = (await call(`${s.api}/registrations?courseId=xc`, { auth: app })).body.registrations;
    expect(regs).toContainEqual(expect.objectContaining({ registrationSuccess: 'PASSED', learner: expect.objectContaining({ id: 'grace@lms.example' }) }));
    await page.close();
  }, 90_000);

  it('AICC: the four course structure files; the AU launched with aicc_sid/aicc_url: GetParam gives the learner, PutParam the result, ExitAU at the end', async () => {
    const files = await zip('AICC');
    expect([...files.keys()].sort()).toEqual(['course.au', 'course.crs', 'course.cst', 'course.des']);
    expect(files.get('course.crs')!.toString()).toMatch(/^\[Course\]\r\n[\s\S]*Total_AUs=1\r\n/);
    expect(files.get('course.cst')!.toString()).toBe('"Block","Member"\r\n"root","A1"\r\n');
    const au = files.get('course.au')!.toString().split('\r\n');
    const columns = au[0].split(',').map((c) => c.replace(/"/g, ''));
    const fileName = au[1].split(',')[columns.indexOf('File_Name')].replace(/"/g, '');
    expect(fileName).toMatch(new RegExp(`^${s.baseUrl}/dispatch/aicc/[A-Za-z0-9_-]+/[A-Za-z0-9_-]{43}$`));
    const launch = (sid: string) => `${fileName}?${new URLSearchParams({ aicc_sid: sid, aicc_url: `${lrs.origin}/hacp` })}`;
    // A session the LMS does not know: refused, nothing created.
    expect((await fetch(launch('unknown-session'))).status).toBe(400);

    const page = await openPage(browser.context, launch('aicc-session-1'));
    await finishSco(page);
    const got = await waitFor(() => Promise.resolve(lrs.hacp.filter((h) => h.sid === 'aicc-session-1')), (l) => l.some((h) => h.command === 'ExitAU'), 30_000);
    expect(got[0].command).toBe('GetParam');
    expect(got.at(-1)!.command).toBe('ExitAU');
    const last = got.filter((h) => h.command === 'PutParam').at(-1)!;
    expect(last.data).toMatch(/^\[Core\]\r\nLesson_Status=passed\r\nScore=85\r\nTime=\d\d:\d\d:\d\d\r\n$/);
    const regs = (await call(`${s.api}/registrations?courseId=xc`, { auth: app })).body.registrations;
    expect(regs).toContainEqual(expect.objectContaining({ registrationSuccess: 'PASSED', learner: expect.objectContaining({ id: 'aicc-learner-1', firstName: 'Alan', lastName: 'Turing' }) }));
    // The relay takes only LCDS's own tokens.
    expect((await fetch(`${s.baseUrl}/dispatch/aicc-relay/forged.token`, { method: 'POST' })).status).toBe(404);
    await page.close();
  }, 90_000);

  it('DispatchPollingFrequency (course level) is how often the relay pages poll the launch (default 1500 ms)', async () => {
    const auUrl = /<url>([^<]+)<\/url>/.exec((await zip('CMI5')).get('cmi5.xml')!.toString())![1];
    const actor = { objectType: 'Agent', account: { homePage: lrs.origin, name: 'poll-learner' } };
    const params = new URLSearchParams({ endpoint: `${lrs.origin}/xapi/`, fetch: `${lrs.origin}/fetch`, actor: JSON.stringify(actor), registration: randomUUID(), activityId: 'https://x.test/au' });
    expect(await (await fetch(`${auUrl}?${params}`)).text()).toContain('"every":1500');
    const set = await call(`${s.api}/courses/xc/configuration`, { method: 'POST', auth: app, json: { settings: [{ settingId: 'DispatchPollingFrequency', value: '700' }] } });
    expect(set.status).toBe(204);
    const page = await fetch(`${auUrl}?${params}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('"every":700');
  });
});
