import { randomUUID } from 'node:crypto';
import { basic, call, CallResult, startExtraNode, startTestServer, TestServer } from '../support/test-server';

/**
 * The LRS of each application at /lrs/{appId}/ (xAPI Statement Resource): authentication with xAPI credentials or
 * the application's keys, permissions levels, the version header, PUT/POST/GET, voiding, filters, paging with
 * `more`, conflicts, validation, and tenant isolation.
 */
describe('LRS: statements resource', () => {
  let s: TestServer;
  let appId: string;
  let appAuth: string;
  let lrs: string;
  let otherAppId: string;
  let otherAuth: string;
  const creds: Record<string, string> = {};

  const VOIDED = 'http://adlnet.gov/expapi/verbs/voided';
  const statement = (over: Record<string, unknown> = {}) => ({
    actor: { objectType: 'Agent', name: 'Ann', mbox: 'mailto:ann@example.com' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced', display: { 'en-US': 'experienced' } },
    object: { id: 'http://example.com/activities/golf', definition: { name: { 'en-US': 'Golf' } } },
    ...over,
  });

  function lrsCall(path: string, init: { method?: string; auth?: string; json?: unknown; version?: string | null; headers?: Record<string, string>; base?: string } = {}): Promise<CallResult> {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (init.version !== null) headers['x-experience-api-version'] = init.version ?? '1.0.3';
    return call(`${init.base ?? lrs}${path}`, { method: init.method, auth: init.auth ?? appAuth, json: init.json, headers });
  }

  async function makeCredential(id: string, permissionsLevel: string, extra: Record<string, unknown> = {}) {
    const res = await call(`${s.api}/xapi/credentials/${id}`, {
      method: 'PUT',
      auth: appAuth,
      json: { name: `cred ${id}`, secret: `secret-${id}`, isEnabled: true, auth: 'BASICAUTH', permissionsLevel, ...extra },
    });
    expect(res.status).toBe(204);
    creds[id] = basic(id, `secret-${id}`);
  }

  beforeAll(async () => {
    s = await startTestServer();
    appId = s.firstStart.application.appId;
    appAuth = basic(appId, s.firstStart.application.secretKey);
    lrs = `${s.baseUrl}/lrs/${appId}`;
    const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    const other = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'other' } });
    otherAppId = other.body.id;
    const key = await call(`${s.api}/appManagement/${otherAppId}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'k' } });
    otherAuth = basic(otherAppId, key.body.credential);
    await makeCredential('writer', 'DEFAULT');
    await makeCredential('writer2', 'USER');
    await makeCredential('reader', 'READONLY');
    await makeCredential('sender', 'WRITEONLY');
    await makeCredential('root', 'ROOT');
    await makeCredential('off', 'ROOT', { isEnabled: false });
  });
  afterAll(async () => s?.close());

  it('answers About without credentials, and requires a supported version header elsewhere', async () => {
    const about = await lrsCall('/about', { auth: '', version: null });
    expect(about.status).toBe(200);
    expect(about.body.version).toEqual(expect.arrayContaining(['1.0.3', '2.0.0']));
    const missing = await lrsCall('/statements', { version: null });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/X-Experience-API-Version/);
    // xAPI 2.0 (IEEE 9274.1.1) Communication 3.3: the LRS answers 2.0.0 unless the client asks for 1.0.x.
    expect(missing.headers.get('x-experience-api-version')).toBe('2.0.0');
    expect((await lrsCall('/about', { auth: '', version: null })).headers.get('x-experience-api-version')).toBe('2.0.0');
    expect((await lrsCall('/statements', { version: '0.95' })).status).toBe(400);
    const v2 = await lrsCall('/statements', { version: '2.0.0' });
    expect(v2.status).toBe(200);
    expect(v2.headers.get('x-experience-api-version')).toBe('2.0.0');
    expect(v2.headers.get('x-experience-api-consistent-through')).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/));
    expect((await lrsCall('/statements', { version: '1.0.1' })).headers.get('x-experience-api-version')).toBe('1.0.3');
  });

  it('answers 1.0.3 to requests without a version header with LCDS_LRS_UNVERSIONED_ANSWER=1.0.3 (ADL 1.0.3 suite)', async () => {
    const other = await startExtraNode(s.stack, { LCDS_LRS_UNVERSIONED_ANSWER: '1.0.3' });
    try {
      const { appId, secretKey } = s.firstStart.application;
      const missing = await call(`${other.baseUrl}/lrs/${appId}/statements`, { auth: basic(appId, secretKey) });
      expect(missing.status).toBe(400);
      expect(missing.headers.get('x-experience-api-version')).toBe('1.0.3');
      const v2 = await call(`${other.baseUrl}/lrs/${appId}/statements`, { auth: basic(appId, secretKey), headers: { 'x-experience-api-version': '2.0.0' } });
      expect(v2.headers.get('x-experience-api-version')).toBe('2.0.0');
    } finally {
      await other.close();
    }
  });

  it('stores more concurrent batches than the node has database connections, from its first request on', async () => {
    const node = await startExtraNode(s.stack, { DATABASE_POOL_SIZE: '2' });
    try {
      const { appId, secretKey } = s.firstStart.application;
      const posts = Array.from({ length: 8 }, () =>
        call(`${node.baseUrl}/lrs/${appId}/statements`, {
          method: 'POST',
          auth: basic(appId, secretKey),
          headers: { 'x-experience-api-version': '1.0.3' },
          json: Array.from({ length: 5 }, () => statement()),
        }),
      );
      const results = await Promise.all(posts);
      expect(results.map((r) => r.status)).toEqual(new Array(8).fill(200));
      const ids = results.flatMap((r) => r.body as string[]);
      expect(new Set(ids).size).toBe(40);
      const back = await lrsCall(`/statements?statementId=${ids[39]}`, { auth: creds.root });
      expect(back.status).toBe(200);
    } finally {
      await node.close();
    }
  }, 30_000);

  it('authenticates with xAPI credentials of the application or its own keys, and refuses everything else', async () => {
    expect((await lrsCall('/statements', { auth: '' })).status).toBe(401);
    const wrong = await lrsCall('/statements', { auth: basic('writer', 'nope') });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect((await lrsCall('/statements', { auth: creds.off })).status).toBe(401);
    expect((await lrsCall('/statements', { auth: `Bearer abc` })).status).toBe(401);
    expect((await lrsCall('/statements', { auth: creds.root })).status).toBe(200);
    expect((await lrsCall('/statements', { auth: appAuth })).status).toBe(200);
    // Credentials of app A are nothing on app B's LRS, in either direction.
    expect((await lrsCall('/statements', { auth: creds.root, base: `${s.baseUrl}/lrs/${otherAppId}` })).status).toBe(401);
    expect((await lrsCall('/statements', { auth: appAuth, base: `${s.baseUrl}/lrs/${otherAppId}` })).status).toBe(401);
    expect((await lrsCall('/statements', { auth: otherAuth })).status).toBe(401);
    // An OAUTH credential cannot be used with basic authentication.
    await makeCredential('oauthy', 'ROOT', { auth: { xapiCredentialAuthType: 'OAUTH' } });
    expect((await lrsCall('/statements', { auth: creds.oauthy })).status).toBe(401);
  });

  it('stores with PUT (204, idempotent, 409 on a different statement under the same id) and reads it back', async () => {
    const id = randomUUID();
    const put = await lrsCall(`/statements?statementId=${id}`, { method: 'PUT', auth: creds.writer, json: statement() });
    expect(put.status).toBe(204);
    expect(put.headers.get('x-experience-api-version')).toBe('1.0.3');
    expect((await lrsCall(`/statements?statementId=${id}`, { method: 'PUT', auth: creds.writer, json: statement() })).status).toBe(204);
    const conflict = await lrsCall(`/statements?statementId=${id}`, { method: 'PUT', auth: creds.writer, json: statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/completed' } }) });
    expect(conflict.status).toBe(409);
    expect((await lrsCall(`/statements?statementId=${randomUUID()}`, { method: 'PUT', auth: creds.writer, json: statement({ id }) })).status).toBe(400);
    expect((await lrsCall('/statements', { method: 'PUT', auth: creds.writer, json: statement() })).status).toBe(400);

    const got = await lrsCall(`/statements?statementId=${id}`, { auth: creds.writer });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id, actor: { mbox: 'mailto:ann@example.com' }, version: '1.0.0' });
    expect(got.body.stored).toEqual(expect.stringMatching(/Z$/));
    expect(got.body.timestamp).toBe(got.body.stored);
    expect(got.body.authority).toEqual({ objectType: 'Agent', name: 'cred writer', account: { homePage: `${s.config.publicUrl}/lrs/${appId}/`, name: 'writer' } });
    expect(got.headers.get('x-experience-api-consistent-through')).toBeTruthy();
    // The id with upper-case hex is the same statement.
    expect((await lrsCall(`/statements?statementId=${id.toUpperCase()}`, { auth: creds.root })).body.id).toBe(id);
    expect((await lrsCall(`/statements?statementId=${randomUUID()}`, { auth: creds.root })).status).toBe(404);
    expect((await lrsCall(`/statements?statementId=${id}&verb=http://x.y/z`, { auth: creds.root })).status).toBe(400);
    expect((await lrsCall(`/statements?statementId=${id}&voidedStatementId=${id}`, { auth: creds.root })).status).toBe(400);
  });

  it('stores with POST, single or batch, all or nothing; the LRS sets stored and authority', async () => {
    const own = randomUUID();
    const one = await lrsCall('/statements', { method: 'POST', auth: creds.root, json: statement({ id: own, authority: { mbox: 'mailto:spoof@example.com' }, stored: '2001-01-01T00:00:00Z' }) });
    expect(one.status).toBe(200);
    expect(one.body).toEqual([own]);
    const got = await lrsCall(`/statements?statementId=${own}`, { auth: creds.root });
    expect(got.body.authority.account.name).toBe('root');
    expect(got.body.stored).not.toBe('2001-01-01T00:00:00Z');

    const batch = await lrsCall('/statements', { method: 'POST', auth: creds.root, json: [statement(), statement({ timestamp: '2024-02-01T10:00:00+02:00' })] });
    expect(batch.status).toBe(200);
    expect(batch.body).toHaveLength(2);
    for (const id of batch.body) expect(id).toMatch(/^[0-9a-f-]{36}$/);

    // One bad statement: nothing of the batch is stored.
    const ok = randomUUID();
    const bad = await lrsCall('/statements', { method: 'POST', auth: creds.root, json: [statement({ id: ok }), statement({ verb: { id: 'not an iri' } })] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/statements\[1\]\.verb\.id must be an IRI/);
    expect((await lrsCall(`/statements?statementId=${ok}`, { auth: creds.root })).status).toBe(404);
    // Conflict with a stored id: 409, and the new one of the batch is not stored either.
    const conflict = await lrsCall('/statements', { method: 'POST', auth: creds.root, json: [statement({ id: ok }), statement({ id: own, verb: { id: 'http://x.y/other' } })] });
    expect(conflict.status).toBe(409);
    expect((await lrsCall(`/statements?statementId=${ok}`, { auth: creds.root })).status).toBe(404);
    // The same statement again under its id is fine.
    expect((await lrsCall('/statements', { method: 'POST', auth: creds.root, json: statement({ id: own }) })).status).toBe(200);
    expect((await lrsCall('/statements', { method: 'POST', auth: creds.root, json: [statement({ id: ok }), statement({ id: ok })] })).status).toBe(400);
    expect((await lrsCall('/statements', { method: 'POST', auth: creds.root, json: [] })).status).toBe(400);
    // Version 2.0 clients get 2.0.0 statements.
    const v2 = await lrsCall('/statements', { method: 'POST', auth: creds.root, json: statement(), version: '2.0.0' });
    expect((await lrsCall(`/statements?statementId=${v2.body[0]}`, { auth: creds.root })).body.version).toBe('2.0.0');
  });

  it('rejects invalid statements with a 400 naming the rule', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [statement({ id: 'not-a-uuid' }), /id must be a UUID/],
      [{ verb: statement().verb, object: statement().object }, /actor is required/],
      [statement({ actor: { mbox: 'mailto:a@b.c', openid: 'http://openid.example.com/a' } }), /exactly one inverse functional identifier/],
      [statement({ actor: { name: 'nobody' } }), /exactly one inverse functional identifier/],
      [statement({ actor: { mbox: 'a@b.c' } }), /mailto/],
      [statement({ verb: { display: { 'en-US': 'x' } } }), /verb\.id must be an IRI/],
      [statement({ verb: undefined }), /verb is required/],
      [statement({ object: undefined }), /object is required/],
      [statement({ timestamp: 'yesterday' }), /timestamp must be an ISO 8601 timestamp/],
      [statement({ result: { score: { scaled: 1.5 } } }), /score\.scaled must be between -1 and 1/],
      [statement({ result: { score: { raw: 5, min: 6 } } }), /raw must not be less than min/],
      [statement({ result: { duration: '90 minutes' } }), /ISO 8601 duration/],
      [statement({ context: { registration: 'abc' } }), /context\.registration must be a UUID/],
      [statement({ foo: 1 }), /statement\.foo is not a property/],
      [statement({ verb: { id: 'http://x.y/z', display: { 'not a tag!': 'x' } } }), /language tag/],
      [statement({ object: { objectType: 'Foo', id: 'http://x.y' } }), /objectType must be/],
      [statement({ verb: { id: VOIDED }, object: { id: 'http://example.com/a' } }), /voiding statement must be a StatementRef/],
      [statement({ object: { objectType: 'SubStatement', actor: statement().actor, verb: statement().verb, object: { objectType: 'SubStatement' } } }), /must not contain another SubStatement/],
      [statement({ context: { platform: 'x' }, object: { objectType: 'Agent', mbox: 'mailto:x@y.z' } }), /platform may only be used when the object is an Activity/],
    ];
    for (const [body, message] of cases) {
      const res = await lrsCall('/statements', { method: 'POST', auth: creds.root, json: body });
      expect({ body, status: res.status, message: res.body.message }).toEqual({ body, status: 400, message: expect.stringMatching(message) });
    }
    const notJson = await call(`${lrs}/statements`, { method: 'POST', auth: creds.root, body: 'x', headers: { 'content-type': 'text/plain', 'x-experience-api-version': '1.0.3' } });
    expect(notJson.status).toBe(400);
    const noStatements = await call(`${lrs}/statements`, { method: 'POST', auth: creds.root, body: '--b--', headers: { 'content-type': 'multipart/mixed; boundary=b', 'x-experience-api-version': '1.0.3' } });
    expect(noStatements.status).toBe(400);
  });

  it('enforces permissions levels: DEFAULT/USER read their own, READONLY reads all, WRITEONLY only writes, ROOT all', async () => {
    const mine = (await lrsCall('/statements', { method: 'POST', auth: creds.writer2, json: statement() })).body[0];
    expect((await lrsCall('/statements', { method: 'POST', auth: creds.reader, json: statement() })).status).toBe(403);
    expect((await lrsCall(`/statements?statementId=${randomUUID()}`, { method: 'PUT', auth: creds.reader, json: statement() })).status).toBe(403);
    const sent = await lrsCall('/statements', { method: 'POST', auth: creds.sender, json: statement() });
    expect(sent.status).toBe(200);
    expect((await lrsCall('/statements', { auth: creds.sender })).status).toBe(403);
    expect((await lrsCall(`/statements?statementId=${sent.body[0]}`, { auth: creds.sender })).status).toBe(403);

    // USER (like DEFAULT) sees only what it stored.
    const own = await lrsCall('/statements?limit=0', { auth: creds.writer2 });
    expect(own.body.statements.map((x: any) => x.id)).toEqual([mine]);
    expect((await lrsCall(`/statements?statementId=${sent.body[0]}`, { auth: creds.writer2 })).status).toBe(404);
    expect((await lrsCall(`/statements?statementId=${mine}`, { auth: creds.writer2 })).status).toBe(200);
    // READONLY, ROOT and the application's keys see everything.
    for (const auth of [creds.reader, creds.root, appAuth]) {
      const all = await lrsCall('/statements?limit=0', { auth });
      expect(all.body.statements.map((x: any) => x.id)).toEqual(expect.arrayContaining([mine, sent.body[0]]));
    }
  });

  it('voids: the target disappears from queries and statementId, is found by voidedStatementId; a voiding statement cannot be voided', async () => {
    const target = (await lrsCall('/statements', { method: 'POST', auth: creds.root, json: statement({ verb: { id: 'http://example.com/verbs/to-void' } }) })).body[0];
    const voiding = await lrsCall('/statements', { method: 'POST', auth: creds.root, json: statement({ verb: { id: VOIDED }, object: { objectType: 'StatementRef', id: target } }) });
    expect(voiding.status).toBe(200);
    expect((await lrsCall(`/statements?statementId=${target}`, { auth: creds.root })).status).toBe(404);
    const voided = await lrsCall(`/statements?voidedStatementId=${target}`, { auth: creds.root });
    expect(voided.status).toBe(200);
    expect(voided.body.id).toBe(target);
    expect((await lrsCall(`/statements?voidedStatementId=${voiding.body[0]}`, { auth: creds.root })).status).toBe(404);
    const byVerb = await lrsCall(`/statements?verb=${encodeURIComponent('http://example.com/verbs/to-void')}`, { auth: creds.root });
    // The target is gone; the voiding statement, whose StatementRef targets a statement of that verb, is returned.
    expect(byVerb.body.statements.map((x: any) => x.id)).toEqual([voiding.body[0]]);
    // The voiding statement itself is returned by queries.
    const voidings = await lrsCall(`/statements?verb=${encodeURIComponent(VOIDED)}`, { auth: creds.root });
    expect(voidings.body.statements.map((x: any) => x.id)).toContain(voiding.body[0]);
    const again = await lrsCall('/statements', { method: 'POST', auth: creds.root, json: statement({ verb: { id: VOIDED }, object: { objectType: 'StatementRef', id: voiding.body[0] } }) });
    expect(again.status).toBe(400);
    expect(again.body.message).toMatch(/voiding statement/);
    // A statement that arrives after the statement voiding it is voided from the start.
    const late = randomUUID();
    await lrsCall('/statements', { method: 'POST', auth: creds.root, json: statement({ verb: { id: VOIDED }, object: { objectType: 'StatementRef', id: late } }) });
    await lrsCall(`/statements?statementId=${late}`, { method: 'PUT', auth: creds.root, json: statement() });
    expect((await lrsCall(`/statements?statementId=${late}`, { auth: creds.root })).status).toBe(404);
    expect((await lrsCall(`/statements?voidedStatementId=${late}`, { auth: creds.root })).status).toBe(200);
  });

  it('filters by agent, verb, activity, registration, related_*, since/until, and formats ids', async () => {
    const registration = randomUUID();
    const bob = { objectType: 'Agent', name: 'Bob', account: { homePage: 'http://example.com', name: 'bob' } };
    const before = new Date(Date.now() - 1).toISOString();
    const [a, b, c] = (
      await lrsCall('/statements', {
        method: 'POST',
        auth: creds.root,
        json: [
          statement({ actor: bob, verb: { id: 'http://example.com/verbs/filter' }, context: { registration, contextActivities: { parent: { id: 'http://example.com/courses/c1' } } } }),
          statement({ verb: { id: 'http://example.com/verbs/filter' }, object: { id: 'http://example.com/activities/other' }, context: { instructor: bob } }),
          statement({ actor: bob, verb: { id: 'http://example.com/verbs/filter2' }, object: { id: 'http://example.com/activities/other' } }),
        ],
      })
    ).body as string[];
    const ids = async (query: string) => {
      const res = await lrsCall(`/statements?${query}`, { auth: creds.root });
      expect({ query, status: res.status }).toEqual({ query, status: 200 });
      return (res.body.statements as any[]).map((x) => x.id);
    };
    const agent = encodeURIComponent(JSON.stringify({ account: bob.account }));
    expect(await ids(`agent=${agent}`)).toEqual([c, a]);
    expect(await ids(`agent=${agent}&related_agents=true`)).toEqual([c, b, a]);
    expect(await ids(`agent=${agent}&ascending=true`)).toEqual([a, c]);
    expect(await ids(`verb=${encodeURIComponent('http://example.com/verbs/filter')}`)).toEqual([b, a]);
    expect(await ids(`activity=${encodeURIComponent('http://example.com/activities/other')}`)).toEqual([c, b]);
    expect(await ids(`activity=${encodeURIComponent('http://example.com/courses/c1')}`)).toEqual([]);
    expect(await ids(`activity=${encodeURIComponent('http://example.com/courses/c1')}&related_activities=true`)).toEqual([a]);
    expect(await ids(`registration=${registration}`)).toEqual([a]);
    expect(await ids(`registration=${registration}&verb=${encodeURIComponent('http://example.com/verbs/filter2')}`)).toEqual([]);
    const since = await ids(`since=${encodeURIComponent(before)}&ascending=true`);
    expect(since.slice(0, 3)).toEqual([a, b, c]);
    expect(await ids(`until=${encodeURIComponent(before)}&agent=${agent}`)).toEqual([]);

    const idsFormat = await lrsCall(`/statements?statementId=${a}&format=ids`, { auth: creds.root });
    expect(idsFormat.body.actor).toEqual({ objectType: 'Agent', account: bob.account });
    expect(idsFormat.body.verb).toEqual({ id: 'http://example.com/verbs/filter' });
    expect(idsFormat.body.object).toEqual({ id: 'http://example.com/activities/golf' });
    expect(idsFormat.body.context.contextActivities.parent).toEqual([{ id: 'http://example.com/courses/c1' }]);
    const exact = await lrsCall(`/statements?statementId=${a}&format=exact`, { auth: creds.root });
    expect(exact.body.actor.name).toBe('Bob');
    // contextActivities come back as arrays even when a single activity was sent.
    expect(exact.body.context.contextActivities.parent).toEqual([{ id: 'http://example.com/courses/c1' }]);

    // agent matches the actor or an agent object, without related_agents.
    const aboutBob = (await lrsCall('/statements', { method: 'POST', auth: creds.root, json: statement({ verb: { id: 'http://example.com/verbs/mentored' }, object: bob }) })).body[0];
    expect(await ids(`agent=${agent}&verb=${encodeURIComponent('http://example.com/verbs/mentored')}`)).toEqual([aboutBob]);

    for (const bad of ['agent=notjson', 'agent=%7B%22name%22%3A%22x%22%7D', 'registration=abc', 'since=yesterday', 'limit=-1', 'format=full', 'ascending=yes', 'unknownParam=1']) {
      expect({ bad, status: (await lrsCall(`/statements?${bad}`, { auth: creds.root })).status }).toEqual({ bad, status: 400 });
    }
    expect((await lrsCall('/statements?attachments=maybe', { auth: creds.root })).status).toBe(400);
  });

  it('returns statements whose StatementRef targets a statement meeting the filters, even a voided one', async () => {
    const verb = { id: `http://example.com/verbs/ref-${randomUUID()}` };
    const target = randomUUID();
    const voiding = randomUUID();
    const referring = randomUUID();
    expect((await lrsCall('/statements', { method: 'POST', auth: creds.root, json: statement({ id: target, verb }) })).status).toBe(200);
    expect((await lrsCall('/statements', { method: 'POST', auth: creds.root, json: statement({ id: voiding, verb: { id: VOIDED }, object: { objectType: 'StatementRef', id: target } }) })).status).toBe(200);
    const other = { id: 'http://example.com/verbs/commented' };
    expect((await lrsCall('/statements', { method: 'POST', auth: creds.root, json: statement({ id: referring, verb: other, object: { objectType: 'StatementRef', id: target } }) })).status).toBe(200);
    const byVerb = await lrsCall(`/statements?verb=${encodeURIComponent(verb.id)}`, { auth: creds.root });
    expect(byVerb.body.statements.map((x: any) => x.id).sort()).toEqual([voiding, referring].sort());
    // Paging walks the merged list in order, once each.
    const first = await lrsCall(`/statements?verb=${encodeURIComponent(verb.id)}&limit=1&ascending=true`, { auth: creds.root });
    expect(first.body.statements.map((x: any) => x.id)).toEqual([voiding]);
    const second = await call(`${s.baseUrl}${first.body.more}`, { auth: creds.root, headers: { 'x-experience-api-version': '1.0.3' } });
    expect(second.body.statements.map((x: any) => x.id)).toEqual([referring]);
    expect((await lrsCall(`/statements?verb=${encodeURIComponent(other.id)}&limit=0`, { auth: creds.root })).body.statements.map((x: any) => x.id)).toContain(referring);
  });

  it('reduces language maps to the Accept-Language choice with format=canonical', async () => {
    const id = randomUUID();
    const multilingual = statement({
      id,
      verb: { id: 'http://adlnet.gov/expapi/verbs/attended', display: { 'en-US': 'attended', 'fr-FR': 'a assisté', 'de-DE': 'besuchte' } },
      object: { id: 'http://example.com/activities/meeting', definition: { name: { 'en-US': 'meeting', 'fr-FR': 'réunion' }, description: { 'en-US': 'a meeting', 'fr-FR': 'une réunion' } } },
    });
    expect((await lrsCall('/statements', { method: 'POST', auth: creds.root, json: multilingual })).status).toBe(200);
    const fr = await lrsCall(`/statements?statementId=${id}&format=canonical`, { auth: creds.root, headers: { 'accept-language': 'fr;q=0.9, ja' } });
    expect(fr.body.verb.display).toEqual({ 'fr-FR': 'a assisté' });
    expect(fr.body.object.definition).toEqual({ name: { 'fr-FR': 'réunion' }, description: { 'fr-FR': 'une réunion' } });
    expect(fr.body.actor).toEqual(multilingual.actor);
    const fallback = await lrsCall(`/statements?verb=${encodeURIComponent('http://adlnet.gov/expapi/verbs/attended')}&format=canonical`, { auth: creds.root });
    expect(fallback.body.statements[0].verb.display).toEqual({ 'en-US': 'attended' });
    const exact = await lrsCall(`/statements?statementId=${id}`, { auth: creds.root, headers: { 'accept-language': 'fr' } });
    expect(Object.keys(exact.body.verb.display)).toHaveLength(3);
  });

  it('pages with limit and a relative more URL that carries the filters', async () => {
    const verb = 'http://example.com/verbs/paged';
    const posted = (await lrsCall('/statements', { method: 'POST', auth: creds.root, json: Array.from({ length: 7 }, () => statement({ verb: { id: verb } })) })).body as string[];
    const seen: string[] = [];
    let res = await lrsCall(`/statements?verb=${encodeURIComponent(verb)}&limit=3&ascending=true`, { auth: creds.root });
    for (;;) {
      expect(res.status).toBe(200);
      seen.push(...res.body.statements.map((x: any) => x.id));
      if (!res.body.more) break;
      expect(res.body.more).toMatch(new RegExp(`^/lrs/${appId}/statements\\?more=`));
      res = await call(`${s.baseUrl}${res.body.more}`, { auth: creds.root, headers: { 'x-experience-api-version': '1.0.3' } });
    }
    expect(res.body.more).toBe('');
    expect(seen).toEqual(posted);
    // Default limit and the maximum: 100 without limit.
    const bulk = await lrsCall('/statements', { method: 'POST', auth: creds.root, json: Array.from({ length: 110 }, () => statement({ verb: { id: 'http://example.com/verbs/bulk' } })) });
    const page = await lrsCall(`/statements?verb=${encodeURIComponent('http://example.com/verbs/bulk')}`, { auth: creds.root });
    expect(page.body.statements).toHaveLength(100);
    expect(page.body.more).not.toBe('');
    // A batch is stored in several INSERTs (64 + 32 + 8 + 4 + 2 rows): still in the order posted, each found by its verb.
    const rest = await call(`${s.baseUrl}${page.body.more}`, { auth: creds.root, headers: { 'x-experience-api-version': '1.0.3' } });
    const newestFirst = [...page.body.statements, ...rest.body.statements].map((x: { id: string }) => x.id);
    expect(newestFirst).toEqual([...(bulk.body as string[])].reverse());
    // A token of this application means nothing on another's LRS, nor to a tampering client.
    const token = new URL(`${s.baseUrl}${page.body.more}`).searchParams.get('more')!;
    expect((await lrsCall(`/statements?more=${encodeURIComponent(`${token}x`)}`, { auth: creds.root })).status).toBe(400);
    expect((await lrsCall(`/statements?more=${encodeURIComponent(token)}`, { auth: otherAuth, base: `${s.baseUrl}/lrs/${otherAppId}` })).status).toBe(400);
    // A DEFAULT credential cannot use a ROOT reader's token to see others' statements.
    expect((await lrsCall(`/statements?more=${encodeURIComponent(token)}`, { auth: creds.writer })).status).toBe(400);
  });

  it('keeps applications apart', async () => {
    const mine = (await lrsCall('/statements', { method: 'POST', auth: creds.root, json: statement() })).body[0];
    const otherLrs = `${s.baseUrl}/lrs/${otherAppId}`;
    const theirs = await lrsCall('/statements', { method: 'POST', auth: otherAuth, base: otherLrs, json: statement() });
    expect(theirs.status).toBe(200);
    expect((await lrsCall(`/statements?statementId=${mine}`, { auth: otherAuth, base: otherLrs })).status).toBe(404);
    expect((await lrsCall(`/statements?statementId=${theirs.body[0]}`, { auth: creds.root })).status).toBe(404);
    const list = await lrsCall('/statements?limit=0', { auth: otherAuth, base: otherLrs });
    expect(list.body.statements.map((x: any) => x.id)).toEqual([theirs.body[0]]);
    // The same statement id may exist in two applications.
    expect((await lrsCall(`/statements?statementId=${mine}`, { method: 'PUT', auth: otherAuth, base: otherLrs, json: statement({ verb: { id: 'http://x.y/z' } }) })).status).toBe(204);
  });
});
