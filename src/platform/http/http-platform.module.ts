import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AllExceptionsFilter } from './all-exceptions.filter';
import { ConnectionDrain } from './connection-drain';
import { PageTokens } from './page-tokens';
import { RateLimits } from './rate-limits';
import { ApiValidationPipe } from './validation';

@Global()
@Module({
  providers: [ConnectionDrain, PageTokens, RateLimits, { provide: APP_FILTER, useClass: AllExceptionsFilter }, { provide: APP_PIPE, useClass: ApiValidationPipe }],
  exports: [PageTokens, RateLimits],
})
export class HttpPlatformModule {}
