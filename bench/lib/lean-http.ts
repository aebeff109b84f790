import { connect, Socket } from 'node:net';

/**
 * A minimal HTTP/1.1 keep-alive client for load generators: one socket, one request in flight, requests written as
 * one buffer, answers read by Content-Length (what LCDS's lean routes send). On a 2-CPU machine the load generator
 * shares the cores with the service and its database; Node's `http.request` costs about 0.2 ms of CPU a request,
 * this about a quarter of it, so more of the machine measures the service. Anything it does not understand (no
 * Content-Length, a closed socket) fails the request; it is not a general client.
 */
export class LeanHttpConnection {
  private socket: Socket | null = null;
  private buffered: Buffer = Buffer.alloc(0);
  private pending: { resolve(r: { status: number; text: string }): void; reject(e: Error): void } | null = null;

  constructor(private readonly url: URL) {}

  /** POSTs `body` (JSON) to `path` and answers the status and body text. */
  post(path: string, body: string): Promise<{ status: number; text: string }> {
    const payload = Buffer.from(body);
    const head = `POST ${path} HTTP/1.1\r\nHost: ${this.url.host}\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`;
    return this.send(Buffer.concat([Buffer.from(head), payload]));
  }

  /** GETs `path` (a redirect is answered as it is, not followed) and answers the status and body text. */
  get(path: string): Promise<{ status: number; text: string }> {
    return this.send(Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${this.url.host}\r\n\r\n`));
  }

  private send(request: Buffer): Promise<{ status: number; text: string }> {
    if (this.pending) return Promise.reject(new Error('one request at a time'));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      const socket = this.socket ?? this.open();
      socket.write(request);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private open(): Socket {
    const socket = connect({ host: this.url.hostname, port: Number(this.url.port || 80), noDelay: true });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    const fail = (err: Error) => {
      this.socket = null;
      this.buffered = Buffer.alloc(0);
      const p = this.pending;
      this.pending = null;
      p?.reject(err);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
    this.socket = socket;
    return socket;
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.buffered.subarray(0, end).toString('latin1');
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!length) {
      this.socket?.destroy(new Error(`no Content-Length in the answer: ${head.split('\r\n')[0]}`));
      return;
    }
    const total = end + 4 + Number(length[1]);
    if (this.buffered.length < total) return;
    const status = Number(head.slice(9, 12));
    const text = this.buffered.subarray(end + 4, total).toString('utf8');
    this.buffered = this.buffered.subarray(total);
    const p = this.pending;
    this.pending = null;
    if (/\r\nconnection:\s*close/i.test(head)) this.close();
    p?.resolve({ status, text });
  }
}
