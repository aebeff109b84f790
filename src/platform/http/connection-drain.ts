import { Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The open connections of each tracked server (one entry per connection, not per request). */
const connections = new WeakMap<Server, Set<Socket>>();
const draining = new WeakSet<Server>();

/** Keeps the open connections of a server, so that a drain can reach the responses under way. */
export function trackConnections(server: Server): void {
  if (connections.has(server)) return;
  const open = new Set<Socket>();
  connections.set(server, open);
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
}

/**
 * From now on, every connection of the server ends once its response is out: a response under way whose headers
 * are not sent yet, and every later one, says `Connection: close`; idle keep-alive sockets are closed now, and one
 * whose response had already promised keep-alive is closed as soon as it falls idle. Without this, a client holding
 * a keep-alive socket keeps `server.close()` waiting for the keep-alive timeout (65 s by default). Idempotent.
 */
export function drainConnections(server: Server): void {
  if (draining.has(server)) return;
  draining.add(server);
  server.on('request', (_req, res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  });
  for (const socket of connections.get(server) ?? []) {
    // The response a socket is writing: Node's own field, the one graceful-stop libraries read too.
    const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (res && !res.headersSent) res.setHeader('Connection', 'close');
  }
  server.closeIdleConnections();
  // Node closes the idle sockets once, when close() is called; a socket that finishes a keep-alive response later would stay.
  const sweep = setInterval(() => server.closeIdleConnections(), 200);
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
}

/** Drains the HTTP connections as soon as the application begins to close: before the jobs and the database. */
@Injectable()
export class ConnectionDrain implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(private readonly host: HttpAdapterHost) {}

  private get server(): Server | undefined {
    return this.host.httpAdapter?.getHttpServer() as Server | undefined;
  }

  onApplicationBootstrap(): void {
    if (this.server) trackConnections(this.server);
  }

  onModuleDestroy(): void {
    if (this.server) drainConnections(this.server);
  }
}
