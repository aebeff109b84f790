import { request, Agent } from 'node:http';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * Idle keep-alive connections stay open longer than a load balancer's idle timeout (LCDS_KEEP_ALIVE_TIMEOUT_MS,
 * 65 s): Node's own 5 s would close connections a balancer is about to reuse (its 502s).
 */
describe('keep-alive connections', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.close());

  const ping = (agent: Agent) =>
    new Promise<{ status: number; keepAlive: string | undefined; port: number }>((resolve, reject) => {
      const req = request(`${s.api}/ping`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, keepAlive: res.headers['keep-alive']?.toString(), port: req.socket!.localPort! }));
      });
      req.on('error', reject);
      req.end();
    });

  it('announces 65 s and serves a second request on the same connection after 6 idle seconds', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const first = await ping(agent);
    expect(first.keepAlive).toBe('timeout=65');
    await new Promise((r) => setTimeout(r, 6000));
    const second = await ping(agent);
    expect(second.status).toBe(first.status);
    expect(second.port).toBe(first.port);
    agent.destroy();
  }, 20_000);
});
