import { Global, Module } from '@nestjs/common';
import { AfterCommit } from './after-commit';
import { EventBus } from './event-bus';

/** The domain event bus (global): `EventBus` for publishers and listeners, LCDS's and extensions'. */
@Global()
@Module({
  providers: [AfterCommit, EventBus],
  exports: [EventBus],
})
export class EventsModule {}
