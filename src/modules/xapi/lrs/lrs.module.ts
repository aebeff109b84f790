import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { XapiModule } from '../xapi.module';
import { LrsAuthGuard } from './lrs-auth.guard';
import { LrsBrowserMiddleware } from './lrs-browser.middleware';
import { LrsDocumentsController } from './lrs-documents.controller';
import { LrsOAuthVerifier } from './lrs-oauth';
import { LrsController } from './lrs.controller';

/** Every application's LRS at /lrs/{appId}/: outside the API V2 router, so a module of its own. */
@Module({
  imports: [XapiModule],
  controllers: [LrsController, LrsDocumentsController],
  providers: [LrsAuthGuard, LrsOAuthVerifier],
})
export class LrsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(LrsBrowserMiddleware).forRoutes({ path: 'lrs/*path', method: RequestMethod.ALL });
  }
}
