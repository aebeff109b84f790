/**
 * The first middleware of every request (http/request-entry): security headers, the request id, the request's
 * logger bound for nestjs-pino's loggers, one `request completed` line (the fields pino-http wrote) and the request
 * counted in the metrics. Served by a real node:http server; the log goes to a real pino logger.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PinoLogger } from 'nestjs-pino';
import { pino } from 'pino';
import { requestEntry } from '../../../src/platform/http/request-entry';
import { redactQuery } from '../../../src/platform/logging/logging.module';
import { RequestLog } from '../../../src/platform/logging/request-log';
import { httpRequests, type OperationTagged } from '../../../src/platform/metrics/metrics';

describe('requestEntry', () => {
  const lines: Array<Record<string, any>> = [];
  const root = pino({ level: 'info', base: { service: 'lcds', role: 'all' } }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, any>) });
  const entry = requestEntry(new RequestLog(root, redactQuery), ['/api/v2']);
  // nestjs-pino's logger, as every class of the service logs through it (the root is the one given to LoggerModule).
  const nestLogger = new PinoLogger({ pinoHttp: { logger: root } });
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      entry(req, res, () => {
        const status = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('status') ?? 200);
        (req as OperationTagged).lcdsOperation = 'TestOperation';
        setImmediate(() => {
          // A line written while the request is handled, after an asynchronous step.
          if (req.url?.includes('say')) nestLogger.info({ msg: 'inside the request' });
          res.statusCode = status;
          res.end('{}');
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  async function waitForLines(n: number): Promise<void> {
    for (let i = 0; i < 100 && lines.length < n; i++) await new Promise((r) => setTimeout(r, 10));
  }

  it('writes one request line per request with the id, method, redacted URL, status and time; binds the id to lines written meanwhile', async () => {
    lines.length = 0;
    const r = await fetch(`${base}/api/v2/ping?say=1&token=secret`, { headers: { 'x-request-id': 'trace-1', authorization: 'Basic c2VjcmV0OnNlY3JldA==' } });
    expect(r.headers.get('x-request-id')).toBe('trace-1');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('cache-control')).toBe('no-store');
    await waitForLines(2);
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, service: 'lcds', role: 'all', reqId: 'trace-1', msg: 'inside the request' }),
      {
        level: 30,
        time: expect.any(Number),
        service: 'lcds',
        role: 'all',
        reqId: 'trace-1',
        req: { id: 'trace-1', method: 'GET', url: '/api/v2/ping?say=1&token=[redacted]' },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
        msg: 'request completed',
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain('c2VjcmV0');
  });

  it('logs 4xx at warn and 5xx at error, makes an id when the given one is malformed, and no line or id for health checks', async () => {
    lines.length = 0;
    const made = await fetch(`${base}/console/x?status=404`, { headers: { 'x-request-id': 'bad id' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(made.headers.get('cache-control')).toBeNull();
    await fetch(`${base}/api/v2/x?status=503`);
    const health = await fetch(`${base}/health/live`);
    expect(health.headers.get('x-request-id')).toBeNull();
    expect(health.headers.get('x-content-type-options')).toBe('nosniff');
    await waitForLines(2);
    await new Promise((r) => setTimeout(r, 50));
    expect(lines.map((l) => [l.level, l.msg, l.res.statusCode])).toEqual([
      [40, 'request completed', 404],
      [50, 'request errored', 503],
    ]);
    expect(lines[0].reqId).toBe(made.headers.get('x-request-id'));
    expect(lines[1].err).toEqual(expect.objectContaining({ message: 'failed with status code 503' }));
  });

  it('counts each answered request once in the metrics, health checks included', async () => {
    const count = async (status: string) => ((await httpRequests.get()).values.find((v) => v.labels.operation === 'TestOperation' && v.labels.status === status)?.value ?? 0);
    const before = await count('201');
    await fetch(`${base}/api/v2/x?status=201`);
    await fetch(`${base}/health/ready?status=201`);
    await new Promise((r) => setTimeout(r, 50));
    expect(await count('201')).toBe(before + 2);
  });
});
