import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * Names of Object.prototype (`__proto__`, `constructor`, `toString`, …) given where a route takes an id or a key: the
 * API answers as for any unknown id (404) or bad input (400), the LRS as the xAPI specification says, never 500, and
 * nothing reaches Object.prototype of the process (the test server runs in it). The player's and HACP's routes are
 * covered in player-sequencing and player-aicc.
 */
const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];

describe('names of Object.prototype as ids and keys', () => {
  let s: TestServer;
  let app: string;
  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });
  const before = Object.getOwnPropertyNames(Object.prototype).sort();
  afterEach(() => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each(NAMES)('API routes with %s as an id or key answer as for any other id or key, never 500', async (n) => {
    const e = encodeURIComponent(n);
    const gets = [`courses/${e}`, `courses/${e}/versions`, `courses/${e}/configuration`, `courses/${e}/tags`, `registrations/${e}`, `registrations/${e}/configuration`, `registrations/${e}/launchHistory`, `registrations?courseId=${e}&learnerId=${e}`, `courses?tags=${e}`, `xapi/credentials/${e}`, `xapi/statementPipes/${e}`, `courses/${e}/asset?relativePath=${e}`];
    for (const path of gets) {
      const r = await call(`${s.api}/${path}`, { auth: app });
      expect([path, r.status < 500]).toEqual([path, true]);
    }
    const posts: Array<[string, string, unknown]> = [
      ['POST', 'appManagement/configuration', { settings: [{ settingId: n, value: '1' }] }],
      ['PUT', `courses/${e}/tags`, { tags: [n] }],
      ['POST', 'registrations', { registrationId: n, courseId: n, learner: { id: n } }],
      ['POST', `registrations/${e}/launchLink`, { redirectOnExitUrl: n }],
      ['PUT', 'courses/tags', { courses: [n], tags: [n] }],
      ['POST', 'xapi/credentials', { name: n, [n]: { polluted: true } }],
    ];
    for (const [method, path, json] of posts) {
      const r = await call(`${s.api}/${path}`, { method, auth: app, json });
      expect([method, path, r.status < 500, typeof r.body?.message === 'string' || r.status < 300]).toEqual([method, path, true, true]);
    }
    // A body whose own keys are these names (JSON.parse makes __proto__ an own key).
    const raw = await fetch(`${s.api}/registrations`, { method: 'POST', headers: { authorization: app, 'content-type': 'application/json' }, body: `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"registrationId":"${n}"}` });
    expect(raw.status).toBeLessThan(500);
  });

  it.each(NAMES)('LRS routes with %s as an id or key answer as xAPI says, never 500', async (n) => {
    const lrs = `${s.baseUrl}/lrs/${s.firstStart.application.appId}`;
    const h = { 'X-Experience-API-Version': '1.0.3' };
    const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:a@example.com' }));
    const e = encodeURIComponent(n);
    for (const path of [`activities/state?stateId=${e}&activityId=http://x.example/${e}&agent=${agent}`, `activities/profile?profileId=${e}&activityId=http://x.example/a`, `agents/profile?profileId=${e}&agent=${agent}`, `statements?statementId=${e}`, `statements?verb=${e}`, `activities?activityId=${e}`]) {
      const r = await call(`${lrs}/${path}`, { auth: app, headers: h });
      expect([path, r.status < 500]).toEqual([path, true]);
    }
    const doc = await call(`${lrs}/activities/state?stateId=${e}&activityId=http://x.example/a&agent=${agent}`, { method: 'POST', auth: app, headers: h, json: JSON.parse(`{"${n}":{"polluted":true},"k":1}`) });
    expect(doc.status).toBe(204);
    const merged = await call(`${lrs}/activities/state?stateId=${e}&activityId=http://x.example/a&agent=${agent}`, { method: 'POST', auth: app, headers: h, json: JSON.parse(`{"${n}":{"again":true}}`) });
    expect(merged.status).toBe(204);
    const read = await fetch(`${lrs}/activities/state?stateId=${e}&activityId=http://x.example/a&agent=${agent}`, { headers: { authorization: app, ...h } });
    expect(Object.keys(JSON.parse(await read.text())).sort()).toEqual([n, 'k'].sort());
    const st = await call(`${lrs}/statements`, {
      method: 'POST',
      auth: app,
      headers: h,
      json: JSON.parse(`{"actor":{"mbox":"mailto:a@example.com"},"verb":{"id":"http://x.example/v","display":{"en":"did"}},"object":{"id":"http://x.example/o","definition":{"extensions":{"http://x.example/${n}":{"${n}":1}}}},"result":{"extensions":{"http://x.example/r":{"${n}":{"polluted":true}}}}}`),
    });
    expect(st.status).toBe(200);
  });
});
