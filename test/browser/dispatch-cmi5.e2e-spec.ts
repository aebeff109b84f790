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
    setLaunchData: (d: Record<string, unknown>) => void (launchData = d),
    serve: (path: string, data: Buffer) => void files.set(path, data),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * #20: cmi5 and xAPI dispatch packages. The stand-in LMS launches the cmi5 AU (LCDS's page) with the cmi5 launch
 * parameters in Chromium; the learner completes the course in LCDS's player; the LMS's LRS receives the cmi5-defined
 * statements. The xAPI package's page, served by the LMS, sends the learner on to LCDS with the Tin Can parameters.
 */
describe('cmi5 and xAPI dispatch packages', () => {
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
    s = await startTestServer();
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
});
