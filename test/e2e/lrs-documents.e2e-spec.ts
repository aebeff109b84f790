import { basic, call, CallResult, startTestServer, TestServer } from '../support/test-server';

/**
 * The document resources of each application's LRS: State, Activity Profile and Agent Profile documents (ETag,
 * If-Match / If-None-Match, 409 and 412, JSON merge on POST, binary content, `since` lists, deletion), the Agents
 * and Activities resources, and isolation between applications.
 */
describe('LRS: document resources', () => {
  let s: TestServer;
  let appId: string;
  let auth: string;
  let lrs: string;
  let otherLrs: string;
  let otherAuth: string;

  const ann = { objectType: 'Agent', mbox: 'mailto:ann@example.com' };
  const activityId = 'http://example.com/activities/golf';
  const q = (params: Record<string, unknown>) =>
    new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString();

  function lrsCall(path: string, init: { method?: string; json?: unknown; body?: string; headers?: Record<string, string>; version?: string; as?: 'other' } = {}): Promise<CallResult> {
    const headers: Record<string, string> = { 'x-experience-api-version': init.version ?? '1.0.3', ...(init.headers ?? {}) };
    return call(`${init.as === 'other' ? otherLrs : lrs}${path}`, { method: init.method, auth: init.as === 'other' ? otherAuth : auth, json: init.json, body: init.body, headers });
  }

  beforeAll(async () => {
    s = await startTestServer();
    appId = s.firstStart.application.appId;
    auth = basic(appId, s.firstStart.application.secretKey);
    lrs = `${s.baseUrl}/lrs/${appId}`;
    const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    const other = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'other' } });
    const key = await call(`${s.api}/appManagement/${other.body.id}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'k' } });
    otherAuth = basic(other.body.id, key.body.credential);
    otherLrs = `${s.baseUrl}/lrs/${other.body.id}`;
  });
  afterAll(async () => s?.close());

  it('stores, merges, lists and deletes State documents', async () => {
    const scope = { activityId, agent: ann, registration: 'A1B2C3D4-0000-4000-8000-000000000001' };
    const doc = (stateId: string) => `/activities/state?${q({ ...scope, stateId })}`;
    expect((await lrsCall(doc('bookmark'), { method: 'PUT', json: { page: 3, score: 10 } })).status).toBe(204);
    // State documents are overwritten without preconditions in 1.0.3.
    expect((await lrsCall(doc('bookmark'), { method: 'PUT', json: { page: 4 } })).status).toBe(204);
    const merged = await lrsCall(doc('bookmark'), { method: 'POST', json: { visited: true } });
    expect(merged.status).toBe(204);
    const got = await lrsCall(doc('bookmark'));
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ page: 4, visited: true });
    expect(got.headers.get('etag')).toMatch(/^"[0-9a-f]{40}"$/);
    expect(new Date(got.headers.get('last-modified')!).getTime()).toBeGreaterThan(Date.now() - 60_000);

    // Binary content comes back byte for byte with its content type; it cannot be merged into.
    const bytes = '\u0000\u0001binary\u00ff';
    expect((await lrsCall(doc('blob'), { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } })).status).toBe(204);
    const blob = await fetch(`${lrs}${doc('blob')}`, { headers: { authorization: auth, 'x-experience-api-version': '1.0.3' } });
    expect(blob.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await blob.arrayBuffer())).toEqual(Buffer.from(bytes));
    const noMerge = await lrsCall(doc('blob'), { method: 'POST', json: { a: 1 } });
    expect(noMerge.status).toBe(400);
    expect(noMerge.body.message).toMatch(/not application\/json/);
    expect((await lrsCall(doc('bookmark'), { method: 'POST', json: [1, 2] })).status).toBe(400);

    // Lists: the ids, optionally those updated after `since`; the registration is part of the scope.
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await lrsCall(doc('late'), { method: 'PUT', json: { x: 1 } });
    expect((await lrsCall(`/activities/state?${q(scope)}`)).body.sort()).toEqual(['blob', 'bookmark', 'late']);
    expect((await lrsCall(`/activities/state?${q({ ...scope, since: before })}`)).body).toEqual(['late']);
    expect((await lrsCall(`/activities/state?${q({ activityId, agent: ann })}`)).body).toEqual([]);

    expect((await lrsCall(doc('late'), { method: 'DELETE' })).status).toBe(204);
    expect((await lrsCall(doc('late'))).status).toBe(404);
    expect((await lrsCall(`/activities/state?${q(scope)}`, { method: 'DELETE' })).status).toBe(204);
    expect((await lrsCall(`/activities/state?${q(scope)}`)).body).toEqual([]);
  });

  it('rejects bad document parameters with 400 naming the parameter', async () => {
    const cases: Array<[string, RegExp]> = [
      [`/activities/state?${q({ agent: ann, stateId: 'x' })}`, /activityId parameter is required/],
      [`/activities/state?${q({ activityId: 'not an iri', agent: ann, stateId: 'x' })}`, /activityId must be an IRI/],
      [`/activities/state?${q({ activityId, agent: { name: 'nobody' }, stateId: 'x' })}`, /inverse functional identifier/],
      [`/activities/state?activityId=${encodeURIComponent(activityId)}&agent=notjson&stateId=x`, /JSON-encoded Agent/],
      [`/activities/state?${q({ activityId, agent: ann, stateId: 'x', registration: 'nope' })}`, /registration must be a UUID/],
      [`/activities/state?${q({ activityId, agent: ann, stateId: 'x', color: 'red' })}`, /Unknown parameter color/],
      [`/agents/profile?${q({ profileId: 'x' })}`, /agent parameter is required/],
      [`/activities/profile?${q({ activityId, profileId: 'x', since: 'yesterday' })}`, /since must be an ISO 8601/],
      ['/agents', /agent parameter is required/],
      ['/activities', /activityId parameter is required/],
    ];
    for (const [path, message] of cases) {
      const res = await lrsCall(path);
      expect({ path, status: res.status, message: res.body.message }).toEqual({ path, status: 400, message: expect.stringMatching(message) });
    }
  });

  it.each([
    ['Activity Profile', '/activities/profile', { activityId }],
    ['Agent Profile', '/agents/profile', { agent: ann }],
  ])('applies ETag concurrency to %s documents', async (_name, path, scope) => {
    const doc = `${path}?${q({ ...scope, profileId: 'prefs' })}`;
    // A client must say whether it creates (If-None-Match: *) or replaces (If-Match) a profile document.
    const bare = await lrsCall(doc, { method: 'PUT', json: { a: 1 } });
    expect(bare.status).toBe(400);
    expect(bare.body.message).toMatch(/If-Match .* or If-None-Match/);
    expect((await lrsCall(doc, { method: 'PUT', json: { a: 1 }, headers: { 'if-match': '"0000"' } })).status).toBe(412);
    expect((await lrsCall(doc, { method: 'PUT', json: { a: 1 }, headers: { 'if-none-match': '*' } })).status).toBe(204);
    expect((await lrsCall(doc, { method: 'PUT', json: { a: 2 }, headers: { 'if-none-match': '*' } })).status).toBe(412);
    const conflict = await lrsCall(doc, { method: 'PUT', json: { a: 2 } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toMatch(/ETag/);
    const first = await lrsCall(doc);
    expect(first.body).toEqual({ a: 1 });
    const etag = first.headers.get('etag')!;
    expect((await lrsCall(doc, { method: 'PUT', json: { a: 2 }, headers: { 'if-match': etag } })).status).toBe(204);
    // The old ETag no longer matches: a lost update is refused, for PUT, POST and DELETE alike.
    expect((await lrsCall(doc, { method: 'PUT', json: { a: 3 }, headers: { 'if-match': etag } })).status).toBe(412);
    expect((await lrsCall(doc, { method: 'POST', json: { b: 1 }, headers: { 'if-match': etag } })).status).toBe(412);
    expect((await lrsCall(doc, { method: 'DELETE', headers: { 'if-match': etag } })).status).toBe(412);
    const second = await lrsCall(doc);
    expect(second.body).toEqual({ a: 2 });
    expect(second.headers.get('etag')).not.toBe(etag);
    // POST merges without a precondition.
    expect((await lrsCall(doc, { method: 'POST', json: { b: 1 } })).status).toBe(204);
    expect((await lrsCall(doc)).body).toEqual({ a: 2, b: 1 });
    expect((await lrsCall(`${path}?${q(scope)}`)).body).toEqual(['prefs']);
    expect((await lrsCall(doc, { method: 'DELETE', headers: { 'if-match': (await lrsCall(doc)).headers.get('etag')! } })).status).toBe(204);
    expect((await lrsCall(doc)).status).toBe(404);
    expect((await lrsCall(`${path}?${q(scope)}`, { method: 'DELETE' })).status).toBe(400);
  });

  it('lets exactly one of many concurrent creations of a document win, and stores a statement sent twice at once once', async () => {
    const doc = `/agents/profile?${q({ agent: ann, profileId: 'race' })}`;
    const results = await Promise.all(Array.from({ length: 8 }, (_v, i) => lrsCall(doc, { method: 'PUT', json: { i }, headers: { 'if-none-match': '*' } })));
    expect(results.map((r) => r.status).sort()).toEqual([204, 412, 412, 412, 412, 412, 412, 412]);
    const id = '5f0c1c2e-7d3a-4c55-9d1e-2b6f2a9c0d11';
    const sameStatement = { id, actor: ann, verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' }, object: { id: activityId } };
    const posts = await Promise.all(Array.from({ length: 6 }, () => lrsCall('/statements', { method: 'POST', json: sameStatement })));
    expect(posts.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect((await lrsCall(`/statements?statementId=${id}`)).status).toBe(200);
  });

  it('puts State documents under the 409 rule from xAPI 2.0 on', async () => {
    const doc = `/activities/state?${q({ activityId, agent: ann, stateId: 'v2' })}`;
    expect((await lrsCall(doc, { method: 'PUT', json: { a: 1 }, version: '2.0.0' })).status).toBe(204);
    expect((await lrsCall(doc, { method: 'PUT', json: { a: 2 }, version: '2.0.0' })).status).toBe(409);
    const etag = (await lrsCall(doc, { version: '2.0.0' })).headers.get('etag')!;
    expect((await lrsCall(doc, { method: 'PUT', json: { a: 2 }, version: '2.0.0', headers: { 'if-match': etag } })).status).toBe(204);
  });

  it('answers Agents with a Person and Activities with everything statements define', async () => {
    const person = await lrsCall(`/agents?${q({ agent: { name: 'Ann', mbox: 'mailto:ann@example.com' } })}`);
    expect(person.status).toBe(200);
    expect(person.body).toEqual({ objectType: 'Person', name: ['Ann'], mbox: ['mailto:ann@example.com'] });
    const id = 'http://example.com/activities/meeting';
    const post = (name: Record<string, string>) =>
      lrsCall('/statements', { method: 'POST', json: { actor: ann, verb: { id: 'http://adlnet.gov/expapi/verbs/attended' }, object: { id, definition: { name, type: 'http://adlnet.gov/expapi/activities/meeting' } } } });
    expect((await post({ 'en-US': 'meeting' })).status).toBe(200);
    expect((await post({ 'fr-FR': 'réunion' })).status).toBe(200);
    const activity = await lrsCall(`/activities?${q({ activityId: id })}`);
    expect(activity.body).toEqual({ objectType: 'Activity', id, definition: { type: 'http://adlnet.gov/expapi/activities/meeting', name: { 'en-US': 'meeting', 'fr-FR': 'réunion' } } });
    // Another application has never heard of it.
    expect((await lrsCall(`/activities?${q({ activityId: id })}`, { as: 'other' })).body).toEqual({ objectType: 'Activity', id });
  });

  it('keeps each application’s documents to itself', async () => {
    const doc = `/activities/profile?${q({ activityId, profileId: 'secret' })}`;
    expect((await lrsCall(doc, { method: 'PUT', json: { mine: true }, headers: { 'if-none-match': '*' } })).status).toBe(204);
    expect((await lrsCall(doc, { as: 'other' })).status).toBe(404);
    expect((await lrsCall(`/activities/profile?${q({ activityId })}`, { as: 'other' })).body).toEqual([]);
    // The other application may have a document of the same name, and deleting it leaves ours alone.
    expect((await lrsCall(doc, { method: 'PUT', json: { theirs: true }, headers: { 'if-none-match': '*' }, as: 'other' })).status).toBe(204);
    expect((await lrsCall(doc, { method: 'DELETE', as: 'other' })).status).toBe(204);
    expect((await lrsCall(doc)).body).toEqual({ mine: true });
    // Without credentials of the application, nothing.
    expect((await call(`${lrs}${doc}`, { auth: otherAuth, headers: { 'x-experience-api-version': '1.0.3' } })).status).toBe(401);
  });
});
