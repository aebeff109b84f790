import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { storage } from 'nestjs-pino/storage';
import type { Logger } from 'pino';

const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** Paths with no request line and no request id: the health checks, probed every few seconds. */
const QUIET_PATHS = new Set(['/health/live', '/health/ready']);

/**
 * What nestjs-pino's loggers read while a request is handled (its `Store`): the request's child logger, which binds
 * `reqId`. Made on the first line the request writes: most requests write none but their `request completed` line,
 * which the root logger writes with the id itself.
 */
class RequestLogStore {
  private own: Logger | undefined;
  readonly responseLogger = undefined;

  constructor(
    private readonly root: Logger,
    private readonly reqId: string,
  ) {}

  get logger(): Logger {
    return (this.own ??= this.root.child({ reqId: this.reqId }));
  }

  /** nestjs-pino's `PinoLogger.assign` replaces it with a child carrying more fields. */
  set logger(value: Logger) {
    this.own = value;
  }
}

/**
 * The request log: an id for every request (X-Request-Id, taken from the client when well-formed, else generated,
 * echoed on the response), bound to every line logged while the request is handled (`reqId`), and one
 * `request completed` line when it ends (2xx/3xx info, 4xx warn, 5xx error as `request errored`). The lines are
 * those pino-http wrote, written by the root logger directly: no child loggers, serializers or listeners per request.
 */
export class RequestLog {
  constructor(
    readonly root: Logger,
    private readonly redactUrl: (url: string) => string,
  ) {}

  /** Whether the request gets an id and a request line (all but the health checks). */
  logs(url: string): boolean {
    const q = url.indexOf('?');
    return !QUIET_PATHS.has(q < 0 ? url : url.slice(0, q));
  }

  /** Gives the request its id (also on the response); returns it. */
  identify(req: IncomingMessage, res: ServerResponse): string {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', id);
    (req as { id?: unknown }).id = id;
    return id;
  }

  /** Runs `next` (the rest of the request's handling) with the request's logger bound for nestjs-pino's loggers. */
  bind(id: string, next: () => void): void {
    storage.run(new RequestLogStore(this.root, id), next);
  }

  /** The request's last line. */
  completed(id: string, req: IncomingMessage, res: ServerResponse, responseTimeMs: number): void {
    const status = res.statusCode;
    const fields: Record<string, unknown> = {
      reqId: id,
      req: { id, method: req.method, url: this.redactUrl(req.url ?? '') },
      res: { statusCode: status },
      responseTime: responseTimeMs,
    };
    if (status >= 500) {
      fields.err = new Error(`failed with status code ${status}`);
      this.root.error(fields, 'request errored');
    } else if (status >= 400) {
      this.root.warn(fields, 'request completed');
    } else {
      this.root.info(fields, 'request completed');
    }
  }
}
