import { INestApplication, Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import type { AppConfig } from './config/app-config';
import { bodyParsers } from './platform/http/body-parsers';
import { drainConnections } from './platform/http/connection-drain';
import { requestEntry } from './platform/http/request-entry';
import { RequestLog } from './platform/logging/request-log';
import { CommitEndpoint } from './modules/player/commit-endpoint';

/**
 * Express, behind a Node HTTP server of ours whose request listener first offers each request to the lean routes
 * (the player's commit: outside Express routing, body parsing, Nest's pipeline and the request logger) and hands the
 * rest to Express. Everything that starts the service (main, tests, benchmarks) goes through createHttpApp, so all
 * of them serve the same path.
 */
class LeanRouteAdapter extends ExpressAdapter {
  private lean: ((req: IncomingMessage, res: ServerResponse) => boolean) | null = null;

  setLeanRoute(route: (req: IncomingMessage, res: ServerResponse) => boolean): void {
    this.lean = route;
  }

  override initHttpServer(options: Parameters<ExpressAdapter['initHttpServer']>[0]): void {
    if (options?.httpsOptions) {
      super.initHttpServer(options);
      return;
    }
    const express = this.getInstance<(req: IncomingMessage, res: ServerResponse) => void>();
    this.setHttpServer(createServer((req, res) => {
      if (this.lean === null || !this.lean(req, res)) express(req, res);
    }));
  }
}

export const API_PREFIX = '/api/v2';

/** Builds the HTTP application for a configuration: the same for `npm start`, tests and benchmarks. */
export async function createHttpApp(config: AppConfig): Promise<NestExpressApplication> {
  const adapter = new LeanRouteAdapter();
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), adapter, { bufferLogs: true, bodyParser: false });
  // A worker serves /health only (ApiAuthGuard): no lean routes there.
  if (config.role !== 'worker') {
    const commits = app.get(CommitEndpoint, { strict: false });
    adapter.setLeanRoute((req, res) => commits.handle(req, res));
  }
  const server = app.getHttpServer();
  server.keepAliveTimeout = config.http.keepAliveTimeoutMs;
  server.headersTimeout = config.http.keepAliveTimeoutMs + 1000;
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.set('etag', false);
  if (config.http.trustProxy) app.set('trust proxy', true);
  app.use(requestEntry(app.get(RequestLog), [API_PREFIX, '/lrs/']));
  app.use(bodyParsers(config.http.jsonBodyLimit));
  if (config.role !== 'worker') {
    const document = openApiDocument(app, config);
    SwaggerModule.setup(`${API_PREFIX}/docs`, app, document, { jsonDocumentUrl: `${API_PREFIX}/openapi.json`, yamlDocumentUrl: `${API_PREFIX}/openapi.yaml` });
  }
  return app;
}

export function openApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('LCDS API V2')
    .setDescription('SCORM Cloud API V2 compatible. Operation ids are those of the real service.')
    .setVersion(config.version)
    .addServer(config.publicUrl)
    .addBasicAuth({ type: 'http', scheme: 'basic', description: 'Application id and secret key' }, 'APP_NORMAL')
    .addBasicAuth({ type: 'http', scheme: 'basic', description: 'Management application id and secret key' }, 'APP_MANAGEMENT')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'OAuth2 token from GetAppToken or CreateToken' }, 'OAUTH');
  return SwaggerModule.createDocument(app, builder.build(), { operationIdFactory: (_c, method) => method });
}

/** Graceful stop: no new connections, in-flight requests and jobs finish (bounded), then connections close. */
export function installShutdown(app: INestApplication, config: AppConfig): void {
  const logger = new NestLogger('Shutdown');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log({ msg: 'shutting down', signal });
    // Keep-alive sockets would hold the server open: the last requests are answered with Connection: close.
    drainConnections(app.getHttpServer() as import('node:http').Server);
    const timer = setTimeout(() => {
      logger.error({ msg: 'shutdown timed out; exiting', timeoutMs: config.http.shutdownTimeoutMs });
      process.exit(1);
    }, config.http.shutdownTimeoutMs + 5000);
    timer.unref();
    app
      .close()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        logger.error({ msg: 'error during shutdown', err: String(err) });
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
