import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createHttpApp, installShutdown } from './bootstrap';
import { ConfigError, loadConfig, type AppConfig } from './config/app-config';
import { ExtensionLoadError, loadExtensions } from './platform/extensions/extension-loader';
import { BootstrapService, FirstStartCredentials } from './modules/applications/bootstrap.service';

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  try {
    loadExtensions(config.extensions);
  } catch (err) {
    if (err instanceof ExtensionLoadError) {
      process.stderr.write(`LCDS failed to start: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const app = await createHttpApp(config);
  installShutdown(app, config);
  await app.listen(config.port, config.host);
  const logger = new Logger('Main');
  const stack = config.database.kind === 'mysql' ? 'production (MySQL' + (config.redis ? ' + Redis' : '') + ')' : 'embedded (SQLite, in-process jobs)';
  logger.log({ msg: 'LCDS started', role: config.role, stack, url: config.publicUrl, version: config.version });
  if (config.role !== 'worker') {
    const created = await app.get(BootstrapService).runFirstStart();
    printCredentialsHelp(config, created);
  }
}

function printCredentialsHelp(config: AppConfig, created: FirstStartCredentials | null): void {
  const api = `${config.publicUrl}/api/v2`;
  if (config.log.format === 'json') {
    if (created) process.stdout.write(JSON.stringify({ level: 30, time: Date.now(), msg: 'first start credentials (shown once)', api, ...created }) + '\n');
    return;
  }
  const lines = created
    ? [
        'First start: two applications were created. Their secret keys are shown only this once.',
        `  Application          id ${created.application.appId}   secret key ${created.application.secretKey}`,
        `  Management app       id ${created.management.appId}   secret key ${created.management.secretKey}`,
        '',
        `  Try it:  curl -u ${created.application.appId}:${created.application.secretKey} ${api}/ping`,
      ]
    : ['Credentials: list applications with `npx lcds apps list`, make a new secret key with `npx lcds credentials create --app ID`.'];
  process.stdout.write(['', `LCDS API: ${api}   (OpenAPI: ${api}/openapi.json)`, ...lines, ''].join('\n') + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`LCDS failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
