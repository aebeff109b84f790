import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { pino } from 'pino';
import type { AppConfig } from '../../config/app-config';
import { RequestLog } from './request-log';

/**
 * Structured logs: one JSON line per event in production (LOG_FORMAT=json), readable lines on a terminal.
 * Every line written while a request is handled carries its request id (X-Request-Id, taken from the
 * client when well-formed, else generated, and echoed on the response). nestjs-pino gives Nest's logger API over
 * pino; the request side (ids, the `request completed` line) is ours (`RequestLog`, installed by
 * http/request-entry): pino-http made two child loggers, serialized the request and added three listeners per
 * request, a good part of an authenticated GET's cost (bench:ping).
 */
@Module({})
export class LoggingModule {
  static forRoot(config: AppConfig): DynamicModule {
    const root = pino({
      level: config.log.level,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], remove: true },
      base: { service: 'lcds', role: config.role },
      ...(config.log.format === 'pretty'
        ? { transport: { target: 'pino-pretty', options: { singleLine: true, colorize: process.stdout.isTTY, ignore: 'pid,hostname,service' } } }
        : {}),
    });
    return {
      module: LoggingModule,
      global: true,
      // No middleware of nestjs-pino's (forRoutes: none): RequestLog binds each request's logger.
      imports: [LoggerModule.forRoot({ pinoHttp: { logger: root }, useExisting: true, forRoutes: [] })],
      providers: [{ provide: RequestLog, useValue: new RequestLog(root, redactQuery) }],
      exports: [RequestLog],
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
