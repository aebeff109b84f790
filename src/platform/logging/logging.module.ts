import { DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import type { AppConfig } from '../../config/app-config';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Structured logs: one JSON line per event in production (LOG_FORMAT=json), readable lines on a terminal.
 * Every line written while a request is handled carries its request id (X-Request-Id, taken from the
 * client when well-formed, else generated, and echoed on the response).
 */
@Module({})
export class LoggingModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: {
            level: config.log.level,
            quietReqLogger: true,
            genReqId: (req: IncomingMessage, res: ServerResponse) => {
              const given = req.headers['x-request-id'];
              const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
              res.setHeader('X-Request-Id', id);
              return id;
            },
            customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
            serializers: {
              req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: redactQuery(req.url) }),
              res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
            },
            redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], remove: true },
            base: { service: 'lcds', role: config.role },
            ...(config.log.format === 'pretty'
              ? { transport: { target: 'pino-pretty', options: { singleLine: true, colorize: process.stdout.isTTY, ignore: 'pid,hostname,service' } } }
              : {}),
          },
          exclude: [
            { method: RequestMethod.ALL, path: 'health/live' },
            { method: RequestMethod.ALL, path: 'health/ready' },
            // Runtime commits (POST player/s/:token/commit) never reach Express: CommitEndpoint serves them, without
            // the request logger; a 500 is still logged as `unhandled error`.
          ],
        }),
      ],
    };
  }
}

/**
 * Launch links and tokens travel in query strings, and so do learners (an LRS `agent`, a `learnerId` filter, an
 * erasure's `userEmail`), whose ids are often e-mail addresses: none of it reaches the logs, nor an address anywhere in
 * the URL (a learner id in a path).
 */
export function redactQuery(url: string): string {
  // Every request is logged: a URL without a query string or an address costs no regular expression.
  const redacted = url.includes('?') ? url.replace(/([?&](?:token|auth|secret|password|more|jwt|agent|learnerid|useremail|email|mbox|name)=)[^&]*/gi, '$1[redacted]') : url;
  return redacted.includes('@') || redacted.includes('%40') ? redacted.replace(/[^/?&=]*(?:@|%40)[^/?&]*/gi, '[address]') : redacted;
}
