import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A TLS-terminating reverse proxy, as LCDS runs behind in production (a load balancer or nginx in front of the nodes):
 * https://127.0.0.1:<port> with a self-signed certificate made by the system's openssl (for 127.0.0.1 and
 * localhost), forwarding every request to an HTTP upstream set once it is known, with X-Forwarded-Proto/-For.
 */
export interface TlsProxy {
  port: number;
  baseUrl: string;
  /** Where requests go (the LCDS node's port); requests before it is set answer 502. */
  setUpstream(port: number): void;
  close(): Promise<void>;
}

export async function startTlsProxy(): Promise<TlsProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'lcds-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
  let upstream = 0;
  const server: Server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    if (!upstream) {
      res.writeHead(502).end('no upstream');
      return;
    }
    const forwarded = request(
      { host: '127.0.0.1', port: upstream, agent: false, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-proto': 'https', 'x-forwarded-for': req.socket.remoteAddress ?? '' } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  rmSync(dir, { recursive: true, force: true });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    baseUrl: `https://127.0.0.1:${port}`,
    setUpstream: (p) => {
      upstream = p;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
