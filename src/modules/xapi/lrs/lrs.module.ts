import { Module } from '@nestjs/common';
import { XapiModule } from '../xapi.module';
import { LrsAuthGuard } from './lrs-auth.guard';
import { LrsOAuthVerifier } from './lrs-oauth';
import { LrsController } from './lrs.controller';

/** Every application's LRS at /lrs/{appId}/: outside the API V2 router, so a module of its own. */
@Module({
  imports: [XapiModule],
  controllers: [LrsController],
  providers: [LrsAuthGuard, LrsOAuthVerifier],
})
export class LrsModule {}
