import { Module } from '@nestjs/common';
import { DispatchModule } from './dispatch.module';
import { DispatchPagesController } from './dispatch-pages.controller';

/** The learner-facing dispatch pages, at /dispatch/ outside the API V2 router. */
@Module({ imports: [DispatchModule], controllers: [DispatchPagesController] })
export class DispatchPagesModule {}
