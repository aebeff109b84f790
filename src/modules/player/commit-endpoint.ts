import { playerCommitDuration, playerCommits } from '../../platform/metrics/metrics';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { describeHttpError } from '../../platform/http/all-exceptions.filter';
import { InvalidInputError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../platform/http/domain-errors';
import { PlayerError } from './player-errors';
import { CommitBody, PlayerCommitService } from './player-commit.service';
import { PlayerLaunchAuth } from './player-launch-auth';

/** `POST /player/s/<token>/commit` (a trailing slash and a query string allowed, as Express matches them). */
const COMMIT_PATH = /^\/player\/s\/([^/?#]+)\/commit\/?(?:\?.*)?$/;

/** Content types whose body is the commit's JSON: the player's fetch (application/json) and sendBeacon (text/plain). */
const JSON_TYPES = /^(?:application\/(?:[\w.+-]+\+)?json|text\/plain)$/;

/**
 * The commit route outside Express and Nest's pipeline (a commit every few seconds per learner, the service's hottest
 * request): the HTTP server hands this one path here and everything else to the Express app (see bootstrap). It
 * answers as the controller route did: the body limit and content types of the JSON parser with the same messages
 * (413, 400, 415), `{result, errorCode, ...}` on success, `{result: false, errorCode: 101, message}` for a player
 * error, and the error filter's status and body for anything else (a 5xx logged with its reference).
 */
@Injectable()
export class CommitEndpoint {
  private readonly logger = new Logger('HttpErrors');
  private readonly limit: number;

  constructor(
    private readonly commits: PlayerCommitService,
    private readonly launchAuth: PlayerLaunchAuth,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.limit = config.http.jsonBodyLimit;
  }

  /** Handles the request when it is a commit (true); false: not this route, for the Express app. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'POST') return false;
    const m = COMMIT_PATH.exec(req.url ?? '');
    if (!m) return false;
    let token: string;
    try {
      token = decodeURIComponent(m[1]);
    } catch {
      return false; // Express answers a malformed path itself
    }
    try {
      this.serve(req, res, token);
    } catch (err) {
      // This runs in the HTTP server's own listener: an error thrown here would end the process, not one request.
      this.fail(req, res, err, true);
    }
    return true;
  }

  private serve(req: IncomingMessage, res: ServerResponse, token: string): void {
    const problem = this.checkHeaders(req);
    if (problem) {
      this.fail(req, res, problem, true);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > this.limit) {
        done = true;
        req.off('data', onData);
        this.fail(req, res, new PayloadTooLargeError(`Request body is larger than the limit of ${this.limit} bytes`), true);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('error', () => {
      done = true;
    });
    req.once('end', () => {
      if (done) return;
      done = true;
      const declared = req.headers['content-length'];
      if (declared !== undefined && Number(declared) !== size) {
        this.fail(req, res, new InvalidInputError('The request body was cut short: request size did not match content length'), false);
        return;
      }
      let body: unknown = {};
      if (size > 0) {
        try {
          body = JSON.parse(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
        } catch (err) {
          this.fail(req, res, new InvalidInputError(`Malformed JSON in request body: ${(err as Error).message}`), false);
          return;
        }
      }
      this.run(req, res, token, typeof body === 'object' && body !== null ? (body as CommitBody) : ({} as CommitBody));
    });
  }

  /** The JSON parser's refusals before the body is read: declared size, content type, charset, encoding. */
  private checkHeaders(req: IncomingMessage): Error | null {
    const length = req.headers['content-length'];
    if (length !== undefined && Number(length) > this.limit) return new PayloadTooLargeError(`Request body is larger than the limit of ${this.limit} bytes`);
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return new UnsupportedMediaTypeError(`unsupported content encoding "${encoding}"`);
    const type = req.headers['content-type'];
    if (type === undefined) return null; // no body type: an empty commit, refused by the service with its message
    const [mediaType, ...params] = type.split(';');
    if (!JSON_TYPES.test(mediaType.trim().toLowerCase())) return new UnsupportedMediaTypeError(`A commit is JSON (application/json or text/plain), not ${mediaType.trim()}`);
    for (const param of params) {
      // A parameter without a value (`; charset`) is malformed; the JSON parser then reads the body as UTF-8, and so do we.
      const eq = param.indexOf('=');
      if (eq < 0) continue;
      const name = param.slice(0, eq).trim().toLowerCase();
      const value = param.slice(eq + 1).trim().toLowerCase().replace(/"/g, '');
      if (name === 'charset' && value !== 'utf-8') return new UnsupportedMediaTypeError(`unsupported charset "${value.toUpperCase()}"`);
    }
    return null;
  }

  private run(req: IncomingMessage, res: ServerResponse, token: string, body: CommitBody): void {
    const timer = playerCommitDuration.startTimer();
    // launchAuth: nothing to wait for unless the session has one (then its check runs first).
    const checked = this.launchAuth.check(req, token);
    (checked ? checked.then(() => this.commits.commit(token, body)) : this.commits.commit(token, body)).then(
      (outcome) => {
        send(res, 200, JSON.stringify({ result: true, errorCode: 0, ...outcome }));
        playerCommits.inc({ outcome: 'ok' });
        timer();
      },
      (err: unknown) => {
        if (err instanceof PlayerError) send(res, err.status, JSON.stringify({ result: false, errorCode: 101, message: err.message, ...(err.reason ? { reason: err.reason } : {}) }));
        else this.fail(req, res, err, false);
        playerCommits.inc({ outcome: res.statusCode >= 500 ? 'error' : 'refused' });
        timer();
      },
    );
  }

  /** The error filter's answer; `close`: the body is not read, so the connection is not reused. */
  private fail(req: IncomingMessage, res: ServerResponse, err: unknown, close: boolean): void {
    if (res.headersSent) {
      res.end();
      return;
    }
    const path = (req.url ?? '').split('?')[0];
    const { status, body, headers } = describeHttpError(err, 'POST', path, this.logger);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (close) {
      res.setHeader('Connection', 'close');
      req.resume();
    }
    send(res, status, JSON.stringify(body));
  }
}

function send(res: ServerResponse, status: number, json: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json), 'Cache-Control': 'no-store' });
  res.end(json);
}
