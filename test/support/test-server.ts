import { createServer } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHttpApp } from '../../src/bootstrap';
import { loadConfig, type AppConfig } from '../../src/config/app-config';
import { BootstrapService, FirstStartCredentials } from '../../src/modules/applications/bootstrap.service';
import { createTestStack, TestStack } from './test-stack';

export interface TestServer {
  app: NestExpressApplication;
  config: AppConfig;
  stack: TestStack;
  baseUrl: string;
  /** `${baseUrl}/api/v2` */
  api: string;
  /** The applications of the first start. */
  firstStart: FirstStartCredentials;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function bootNode(stack: TestStack, env: Record<string, string>) {
  const port = await freePort();
  const config = loadConfig({ ...stack.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}`, ...env });
  const app = await createHttpApp(config);
  await app.listen(port, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${port}`;
  return { app, config, baseUrl, api: `${baseUrl}/api/v2` };
}

/** The real service, in this process, on a throw-away stack (embedded, or MySQL + Redis when configured). */
export async function startTestServer(env: Record<string, string> = {}, existingStack?: TestStack): Promise<TestServer> {
  const stack = existingStack ?? (await createTestStack());
  const node = await bootNode(stack, env);
  const firstStart = await node.app.get(BootstrapService).runFirstStart();
  if (!firstStart) throw new Error('expected a first start on a fresh stack');
  return {
    ...node,
    stack,
    firstStart,
    close: async () => {
      await node.app.close();
      if (!existingStack) await stack.destroy();
    },
  };
}

/** Another node of the same installation (same database, Redis and master key), as behind a load balancer. */
export async function startExtraNode(stack: TestStack, env: Record<string, string> = {}) {
  const node = await bootNode(stack, env);
  return { ...node, close: () => node.app.close() };
}

export function basic(appId: string, secret: string): string {
  return `Basic ${Buffer.from(`${appId}:${secret}`).toString('base64')}`;
}

export interface CallResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A small fetch wrapper: JSON in, JSON (or text) out. */
export async function call<T = any>(
  url: string,
  init: { method?: string; auth?: string; json?: unknown; body?: string | URLSearchParams | Uint8Array<ArrayBuffer>; headers?: Record<string, string> } = {},
): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.auth) headers.authorization = init.auth;
  let body: string | URLSearchParams | Uint8Array<ArrayBuffer> | undefined = init.body;
  if (init.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(init.json);
  }
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/** A second application of the server's realm (through Application Management), as Basic auth: another application's ids must look like 404s. */
export async function otherApplication(s: TestServer, name = 'Other'): Promise<string> {
  const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
  const child = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name } });
  const cred = await call(`${s.api}/appManagement/${child.body.id}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'k', active: true } });
  return basic(child.body.id, cred.body.credential);
}
