'use strict';
// The reference of bench:ping's goal (issue #22 point 9): a minimal Nest application on the same Express adapter
// as LCDS, answering GET /api/v2/ping with the same JSON, with no guard, interceptor, logger or validation. LCDS's
// authenticated ping should reach 80 % of it. Plain JavaScript with Nest's decorators applied as functions, so it
// runs with plain `node` like the service's dist/main.js.
// Env: PORT, HOST (127.0.0.1). Prints one JSON line {"msg":"listening","port":…} when ready.
require('reflect-metadata');
const { Controller, Get, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');

class PingController {
  ping() {
    return { apiMessage: 'pong', currentTime: new Date().toISOString() };
  }
}
Controller('api/v2')(PingController);
Get('ping')(PingController.prototype, 'ping', Object.getOwnPropertyDescriptor(PingController.prototype, 'ping'));

class AppModule {}
Module({ controllers: [PingController] })(AppModule);

(async () => {
  const app = await NestFactory.create(AppModule, { logger: false });
  app.getHttpAdapter().getInstance().disable('x-powered-by');
  await app.listen(Number(process.env.PORT || 0), process.env.HOST || '127.0.0.1');
  process.stdout.write(JSON.stringify({ msg: 'listening', port: app.getHttpServer().address().port }) + '\n');
  const stop = () => app.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
})();
