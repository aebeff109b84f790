import { importCourse } from '../support/courses';
import { scoPackage } from '../support/player';
import { basic, call, startTestServer, type TestServer } from '../support/test-server';

/** Reads one sample of the Prometheus text: the value of `name{labels}` (labels in any order), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return 0;
}

/** #22 point 2: GET /metrics in the Prometheus text format, behind METRICS_TOKEN. */
describe('metrics: GET /metrics', () => {
  let s: TestServer;
  let app: string;
  const TOKEN = 'metrics-secret-token';
  const scrape = async () => {
    const r = await fetch(`${s.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return r.text();
  };

  beforeAll(async () => {
    s = await startTestServer({ METRICS_TOKEN: TOKEN });
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
  }, 120_000);
  afterAll(async () => s?.close());

  it('needs the bearer METRICS_TOKEN when it is set', async () => {
    expect((await fetch(`${s.baseUrl}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${s.baseUrl}/metrics`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('Bearer');
    expect((await fetch(`${s.baseUrl}/metrics`, { headers: { authorization: app } })).status).toBe(401);
  });

  it('counts requests by operationId and status, with their latency', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++) expect((await call(`${s.api}/ping`, { auth: app })).status).toBe(200);
    expect((await call(`${s.api}/ping`)).status).toBe(401);
    expect((await call(`${s.api}/courses/nope`, { auth: app })).status).toBe(404);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('lcds_http_requests_total', { operation: 'PingAppId', method: 'GET', status: '200' })).toBe(3);
    expect(delta('lcds_http_requests_total', { operation: 'PingAppId', method: 'GET', status: '401' })).toBe(1);
    expect(delta('lcds_http_requests_total', { operation: 'GetCourse', method: 'GET', status: '404' })).toBe(1);
    expect(delta('lcds_http_request_duration_seconds_count', { operation: 'PingAppId', status: '200' })).toBe(3);
    expect(sample(after, 'lcds_http_request_duration_seconds_bucket', { operation: 'PingAppId', status: '200', le: '+Inf' })).toBeGreaterThanOrEqual(3);
  });

  it('counts LRS statements stored, jobs run and runtime commits with their latency', async () => {
    const before = await scrape();
    const lrs = await call(`${s.api}/xapi/credentials/m1`, { method: 'PUT', auth: app, json: { name: 'm', secret: 'metrics-lrs', isEnabled: true, auth: 'BASICAUTH', permissionsLevel: 'ROOT' } });
    expect(lrs.status).toBe(204);
    const statement = (n: number) => ({ actor: { mbox: `mailto:m${n}@example.com` }, verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' }, object: { id: `http://example.com/a/${n}` } });
    const posted = await call(`${s.baseUrl}/lrs/${s.firstStart.application.appId}/statements`, {
      method: 'POST',
      auth: basic('m1', 'metrics-lrs'),
      json: [statement(1), statement(2)],
      headers: { 'x-experience-api-version': '1.0.3' },
    });
    expect(posted.status).toBe(200);

    await importCourse(s.api, app, 'metrics-c', { name: 'm.zip', data: await scoPackage('2004', '') });
    expect((await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'metrics-r', courseId: 'metrics-c', learner: { id: 'ml' } } })).status).toBe(204);
    const link = await call(`${s.api}/registrations/metrics-r/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    const res = await fetch(link.body.launchLink as string, { redirect: 'manual' });
    const player = new URL(res.headers.get('location')!, s.baseUrl).toString();
    const commit = (seq: number) =>
      fetch(`${player}commit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seq, activityId: 'sco-1', cmi: { 'cmi.location': `p${seq}` } }) });
    expect((await commit(1)).status).toBe(200);
    expect((await commit(2)).status).toBe(200);
    expect((await fetch(`${s.baseUrl}/player/s/not-a-session/commit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBeGreaterThanOrEqual(400);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('lcds_lrs_statements_stored_total')).toBeGreaterThanOrEqual(2);
    expect(delta('lcds_player_commits_total', { outcome: 'ok' })).toBe(2);
    expect(delta('lcds_player_commits_total', { outcome: 'refused' })).toBe(1);
    expect(delta('lcds_player_commit_duration_seconds_count')).toBe(3);
    expect(after).toMatch(/lcds_job_runs_total\{queue="[\w-]*import[\w-]*",outcome="completed"\} [1-9]/);
    expect(after).toMatch(/lcds_job_duration_seconds_count\{queue="[\w-]*import[\w-]*",outcome="completed"\} [1-9]/);
  });

  it('reports process memory, event-loop lag, the database pool and jobs by state', async () => {
    const text = await scrape();
    expect(sample(text, 'lcds_process_resident_memory_bytes')).toBeGreaterThan(10 * 1024 * 1024);
    expect(text).toMatch(/^lcds_nodejs_eventloop_lag_p99_seconds \d/m);
    expect(sample(text, 'lcds_db_pool_connections', { state: 'open' })).toBeGreaterThanOrEqual(1);
    expect(text).toContain('# TYPE lcds_jobs gauge');
  });
});
