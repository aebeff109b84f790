import { createHash, createSign, generateKeyPairSync, randomUUID } from 'node:crypto';
import { basic, call, CallResult, startTestServer, TestServer } from '../support/test-server';

/**
 * The LRS features content and browsers rely on: statements with attachments in multipart/mixed (SHA-2 matching,
 * fileUrl-only attachments, signed statements, `attachments=true`), CORS, and xAPI 1.0's alternate request syntax.
 */
describe('LRS: attachments, CORS and the alternate request syntax', () => {
  let s: TestServer;
  let auth: string;
  let lrs: string;

  const SIGNATURE = 'http://adlnet.gov/expapi/attachments/signature';
  const statement = (over: Record<string, unknown> = {}) => ({
    actor: { objectType: 'Agent', mbox: 'mailto:ann@example.com' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
    object: { id: 'http://example.com/activities/essay' },
    ...over,
  });
  const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const attachment = (content: Buffer, over: Record<string, unknown> = {}) => ({
    usageType: 'http://example.com/usage/essay',
    display: { 'en-US': 'essay' },
    contentType: 'text/plain',
    length: content.length,
    sha2: sha256(content),
    ...over,
  });

  /** A multipart/mixed body: the JSON first, then each part with its own headers. */
  function multipart(json: unknown, parts: Array<{ content: Buffer; headers: Record<string, string> }>): { body: Buffer; type: string } {
    const boundary = `b${randomUUID()}`;
    const chunks: Buffer[] = [Buffer.from(`--${boundary}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(json)}`)];
    for (const p of parts) {
      const headers = Object.entries(p.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      chunks.push(Buffer.from(`\r\n--${boundary}\r\n${headers}\r\n`), p.content);
    }
    chunks.push(Buffer.from(`\r\n--${boundary}--`));
    return { body: Buffer.concat(chunks), type: `multipart/mixed; boundary=${boundary}` };
  }
  const part = (content: Buffer, contentType = 'text/plain') => ({ content, headers: { 'Content-Type': contentType, 'Content-Transfer-Encoding': 'binary', 'X-Experience-API-Hash': sha256(content) } });

  async function send(path: string, method: string, body: { body: Buffer; type: string }): Promise<CallResult> {
    const res = await fetch(`${lrs}${path}`, { method, body: new Uint8Array(body.body), headers: { authorization: auth, 'x-experience-api-version': '1.0.3', 'content-type': body.type } });
    const text = await res.text();
    return { status: res.status, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text, headers: res.headers };
  }

  beforeAll(async () => {
    s = await startTestServer();
    const appId = s.firstStart.application.appId;
    auth = basic(appId, s.firstStart.application.secretKey);
    lrs = `${s.baseUrl}/lrs/${appId}`;
  });
  afterAll(async () => s?.close());

  it('stores attachments sent as parts and returns them with attachments=true', async () => {
    const essay = Buffer.from('My essay about golf.\r\n--not a boundary\r\n');
    const image = Buffer.from([0, 1, 2, 255, 13, 10, 45, 45]);
    const id = randomUUID();
    const put = await send(`/statements?statementId=${id}`, 'PUT', multipart(statement({ attachments: [attachment(essay), attachment(image, { contentType: 'image/png' })] }), [part(essay), part(image, 'image/png')]));
    expect(put.status).toBe(204);

    const res = await fetch(`${lrs}/statements?statementId=${id}&attachments=true`, { headers: { authorization: auth, 'x-experience-api-version': '1.0.3' } });
    expect(res.status).toBe(200);
    const type = res.headers.get('content-type')!;
    expect(type).toMatch(/^multipart\/mixed; boundary=/);
    const raw = Buffer.from(await res.arrayBuffer());
    const boundary = type.split('boundary=')[1];
    const parts = raw.toString('latin1').split(`--${boundary}`).slice(1, -1);
    expect(parts).toHaveLength(3);
    const [head, body] = parts[0].split('\r\n\r\n');
    expect(head).toMatch(/Content-Type: application\/json/);
    expect(JSON.parse(body).id).toBe(id);
    const contents = parts.slice(1).map((p) => ({ hash: /X-Experience-API-Hash: (\w+)/.exec(p)![1], content: Buffer.from(p.slice(p.indexOf('\r\n\r\n') + 4, -2), 'latin1') }));
    expect(contents.find((c) => c.hash === sha256(essay))!.content).toEqual(essay);
    expect(contents.find((c) => c.hash === sha256(image))!.content).toEqual(image);

    // Without attachments=true: plain JSON.
    const plain = await call(`${lrs}/statements?statementId=${id}`, { auth, headers: { 'x-experience-api-version': '1.0.3' } });
    expect(plain.body.attachments).toHaveLength(2);
  });

  it('accepts fileUrl attachments as JSON and rejects parts that do not match', async () => {
    const linked = await call(`${lrs}/statements`, {
      method: 'POST',
      auth,
      headers: { 'x-experience-api-version': '1.0.3' },
      json: statement({ attachments: [attachment(Buffer.from('x'), { fileUrl: 'http://example.com/essay.txt' })] }),
    });
    expect(linked.status).toBe(200);
    const essay = Buffer.from('essay');
    const cases: Array<[string, { body: Buffer; type: string }, RegExp]> = [
      ['content missing', { body: Buffer.from(JSON.stringify(statement({ attachments: [attachment(essay)] }))), type: 'application/json' }, /no fileUrl and no multipart\/mixed part/],
      ['part missing', multipart(statement({ attachments: [attachment(essay)] }), []), /no fileUrl and no multipart\/mixed part/],
      ['extra part', multipart(statement({ attachments: [attachment(essay)] }), [part(essay), part(Buffer.from('more'))]), /not the sha2 of any attachment/],
      ['wrong bytes', multipart(statement({ attachments: [attachment(essay)] }), [{ ...part(essay), content: Buffer.from('other') }]), /does not have the SHA-2 hash/],
      ['no hash header', multipart(statement({ attachments: [attachment(essay)] }), [{ content: essay, headers: { 'Content-Type': 'text/plain', 'Content-Transfer-Encoding': 'binary' } }]), /no X-Experience-API-Hash/],
      ['statements not first', { ...multipart(statement(), []), body: Buffer.from('--x\r\nContent-Type: text/plain\r\n\r\nhi\r\n--x--') , type: 'multipart/mixed; boundary=x' }, /first part .* must be the statements/],
      ['no boundary', { body: Buffer.from('x'), type: 'multipart/mixed' }, /boundary/],
    ];
    for (const [name, body, message] of cases) {
      const res = await send('/statements', 'POST', body);
      expect({ name, status: res.status, message: res.body.message }).toEqual({ name, status: 400, message: expect.stringMatching(message) });
    }
  });

  it('verifies the structure of signed statements', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jws = (payload: unknown, alg = 'RS256') => {
      const input = `${Buffer.from(JSON.stringify({ alg })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
      const signature = alg.startsWith('RS') ? createSign(`RSA-SHA${alg.slice(2)}`).update(input).sign(privateKey).toString('base64url') : 'c2ln';
      return Buffer.from(`${input}.${signature}`);
    };
    const signed = (payload: unknown, alg?: string, contentType = 'application/octet-stream') => {
      const original = { ...statement(), id: randomUUID() };
      const sig = jws(payload ?? original, alg);
      return multipart({ ...original, attachments: [attachment(sig, { usageType: SIGNATURE, contentType })] }, [part(sig, 'application/octet-stream')]);
    };
    const ok = await send('/statements', 'POST', signed(undefined));
    expect(ok.status).toBe(200);
    for (const alg of ['RS384', 'RS512']) expect((await send('/statements', 'POST', signed(undefined, alg))).status).toBe(200);
    const hmac = await send('/statements', 'POST', signed(undefined, 'HS256'));
    expect(hmac.status).toBe(400);
    expect(hmac.body.message).toMatch(/RS256, RS384 or RS512/);
    const tampered = await send('/statements', 'POST', signed(statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/failed' } })));
    expect(tampered.status).toBe(400);
    expect(tampered.body.message).toMatch(/payload differs/);
    expect((await send('/statements', 'POST', signed(undefined, 'RS256', 'text/plain'))).status).toBe(400);
  });

  it('answers CORS preflights and exposes the xAPI headers', async () => {
    const preflight = await fetch(`${lrs}/activities/state`, {
      method: 'OPTIONS',
      headers: { origin: 'https://content.example.com', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization,x-experience-api-version,if-match,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://content.example.com');
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/PUT/);
    for (const h of ['Authorization', 'X-Experience-API-Version', 'If-Match', 'If-None-Match', 'Content-Type']) expect(preflight.headers.get('access-control-allow-headers')).toContain(h);
    const get = await fetch(`${lrs}/statements`, { headers: { origin: 'https://content.example.com', authorization: auth, 'x-experience-api-version': '1.0.3' } });
    expect(get.headers.get('access-control-allow-origin')).toBe('https://content.example.com');
    for (const h of ['ETag', 'Last-Modified', 'X-Experience-API-Consistent-Through']) expect(get.headers.get('access-control-expose-headers')).toContain(h);
    // Even an error tells the browser it may read it, and statement GETs carry Consistent-Through whatever their status.
    const bad = await fetch(`${lrs}/statements?LIMIT=1`, { headers: { origin: 'https://content.example.com', authorization: auth, 'x-experience-api-version': '1.0.3' } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe('https://content.example.com');
    expect(bad.headers.get('x-experience-api-consistent-through')).toMatch(/^\d{4}-/);
  });

  it('understands the alternate request syntax of xAPI 1.0 (and refuses it in 2.0)', async () => {
    const form = (fields: Record<string, string>) => new URLSearchParams(fields);
    const post = (query: string, fields: Record<string, string>) => call(`${lrs}/statements?${query}`, { method: 'POST', body: form(fields) });
    const id = randomUUID();
    const put = await post('method=PUT', { statementId: id, content: JSON.stringify(statement()), Authorization: auth, 'X-Experience-API-Version': '1.0.3' });
    expect(put.status).toBe(204);
    const got = await post('method=GET', { statementId: id, Authorization: auth, 'X-Experience-API-Version': '1.0.3' });
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(id);

    // Documents too: headers such as If-None-Match and Content-Type travel as form fields.
    const doc = { activityId: 'http://example.com/a', agent: JSON.stringify({ mbox: 'mailto:ann@example.com' }), profileId: 'p' };
    const stateCall = (method: string, fields: Record<string, string>) =>
      call(`${lrs}/activities/profile?method=${method}`, { method: 'POST', body: form({ ...doc, Authorization: auth, 'X-Experience-API-Version': '1.0.3', ...fields }) });
    const { profileId: _p, agent: _a, ...activityDoc } = doc;
    expect((await call(`${lrs}/activities/profile?method=PUT`, { method: 'POST', body: form({ ...activityDoc, profileId: 'p', Authorization: auth, 'X-Experience-API-Version': '1.0.3', 'If-None-Match': '*', 'Content-Type': 'text/plain', content: 'hello' }) })).status).toBe(204);
    const read = await call(`${lrs}/activities/profile?method=GET`, { method: 'POST', body: form({ ...activityDoc, profileId: 'p', Authorization: auth, 'X-Experience-API-Version': '1.0.3' }) });
    expect(read.status).toBe(200);
    expect(read.body).toBe('hello');
    expect(read.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await stateCall('DELETE', {})).status).toBe(400); // agent is not a parameter of the Activity Profile resource

    expect((await post(`method=PUT&statementId=${randomUUID()}`, { content: JSON.stringify(statement()), Authorization: auth, 'X-Experience-API-Version': '1.0.3' })).status).toBe(400);
    expect((await post('method=PUT', { statementId: randomUUID(), Authorization: auth, 'X-Experience-API-Version': '1.0.3' })).status).toBe(400);
    expect((await post('method=PATCH', { Authorization: auth, 'X-Experience-API-Version': '1.0.3' })).status).toBe(400);
    // Its content is parsed here, not by the body parsers: nested too deep is a 400 all the same (a stack overflow was a 500).
    const deep = statement({ result: { extensions: { 'http://example.com/x': JSON.parse(`${'['.repeat(150)}${']'.repeat(150)}`) as unknown } } });
    const tooDeep = await post('method=PUT', { statementId: randomUUID(), content: JSON.stringify(deep), Authorization: auth, 'X-Experience-API-Version': '1.0.3' });
    expect({ status: tooDeep.status, message: tooDeep.body.message }).toEqual({ status: 400, message: expect.stringMatching(/nested deeper than 100 levels/) });
    expect((await post('method=GET', { 'X-Experience-API-Version': '1.0.3' })).status).toBe(401);
    const v2 = await post('method=GET', { Authorization: auth, 'X-Experience-API-Version': '2.0.0' });
    expect(v2.status).toBe(400);
    expect(v2.body.message).toMatch(/2\.0 has no alternate request syntax/);
  });
});
