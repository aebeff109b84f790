import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small, real xAPI LRS over HTTP for tests (statements resource only): basic authentication, POST/PUT of
 * statements (idempotent by id), GET with `since`, `ascending`, `limit` and `more` paging. It can be taken down
 * (503) and slowed down, and counts how often each statement id was posted to it.
 */
export class LrsPeer {
  readonly statements: Array<Record<string, unknown>> = [];
  /** statement id → number of times it arrived in a POST/PUT body. */
  readonly received = new Map<string, number>();
  /** Answer 503 to everything. */
  down = false;
  /** Delay before answering a GET. */
  readDelayMs = 0;
  /** Number of GET /statements requests served. */
  reads = 0;
  url = '';
  private server!: Server;
  private clock = Date.parse('2020-01-01T00:00:00.000Z');

  constructor(private readonly auth = { user: 'peer', password: 'peer-secret' }) {}

  get authorization(): string {
    return `Basic ${Buffer.from(`${this.auth.user}:${this.auth.password}`).toString('base64')}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/xapi/`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Stores statements as if a client had posted them (not counted in `received`). */
  seed(list: Array<Record<string, unknown>>): void {
    for (const s of list) this.store(s);
  }

  private store(s: Record<string, unknown>): string {
    const id = typeof s.id === 'string' ? s.id : randomUUID();
    if (!this.statements.some((x) => x.id === id)) {
      this.clock += 1;
      this.statements.push({ ...s, id, stored: new Date(this.clock).toISOString(), authority: { objectType: 'Agent', account: { homePage: 'http://peer', name: this.auth.user } } });
    }
    return id;
  }

  private async handle(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    const send = (status: number, json?: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-experience-api-version': '1.0.3' }).end(json === undefined ? undefined : JSON.stringify(json));
    };
    const url = new URL(req.url ?? '/', 'http://peer');
    if (this.down) return send(503, { error: 'down for maintenance' });
    if (req.headers.authorization !== this.authorization) return send(401, { error: 'bad credentials' });
    if (!req.headers['x-experience-api-version']) return send(400, { error: 'X-Experience-API-Version required' });
    if (url.pathname !== '/xapi/statements') return send(404, { error: 'not found' });
    if (req.method === 'POST' || req.method === 'PUT') {
      const parsed: unknown = JSON.parse(body);
      const list = (Array.isArray(parsed) ? parsed : [parsed]) as Array<Record<string, unknown>>;
      if (req.method === 'PUT') list[0].id = url.searchParams.get('statementId');
      for (const s of list) if (typeof s.id === 'string') this.received.set(s.id, (this.received.get(s.id) ?? 0) + 1);
      const ids = list.map((s) => this.store(s));
      return req.method === 'PUT' ? send(204) : send(200, ids);
    }
    if (req.method !== 'GET') return send(405, { error: 'method not allowed' });
    this.reads++;
    if (this.readDelayMs > 0) await new Promise((r) => setTimeout(r, this.readDelayMs));
    const q = url.searchParams;
    const more = q.get('more');
    const offset = more ? Number(more) : 0;
    const since = q.get('since');
    const limit = Number(q.get('limit') ?? 100) || 100;
    let list = since ? this.statements.filter((s) => (s.stored as string) > new Date(since).toISOString()) : [...this.statements];
    if (q.get('ascending') !== 'true') list = list.reverse();
    // `more` pages carry the offset into the filtered list, as seen at the first request (enough for tests).
    const sinceParam = since ? `&since=${encodeURIComponent(since)}` : '';
    const page = list.slice(offset, offset + limit);
    const next = offset + limit < list.length ? `/xapi/statements?more=${offset + limit}&limit=${limit}&ascending=${q.get('ascending') ?? 'false'}${sinceParam}` : '';
    return send(200, { statements: page, more: next });
  }
}
