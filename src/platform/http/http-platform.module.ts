import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AllExceptionsFilter } from './all-exceptions.filter';
import { PageTokens } from './page-tokens';
import { RateLimits } from './rate-limits';
import { ApiValidationPipe } from './validation';

@Global()
@Module({
  providers: [PageTokens, RateLimits, { provide: APP_FILTER, useClass: AllExceptionsFilter }, { provide: APP_PIPE, useClass: ApiValidationPipe }],
  exports: [PageTokens, RateLimits],
})
export class HttpPlatformModule {}
