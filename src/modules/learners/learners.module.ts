import { Module, OnModuleInit } from '@nestjs/common';
import { ApplicationHooks } from '../applications/application-hooks';
import { InvitationsModule } from '../invitations/invitations.module';
import { RegistrationsModule } from '../registrations/registrations.module';
import { XapiModule } from '../xapi/xapi.module';
import { ApplicationAdminsModule } from './application-admins.module';
import { ApplicationAdminsService } from './application-admins.service';
import { LearnersController } from './learners.controller';
import { LearnersService } from './learners.service';

/** Learner service: learner tags, UpdateLearnerInfo, DeleteAllLearnerData (and the administrators who may start it). */
@Module({
  imports: [ApplicationAdminsModule, RegistrationsModule, InvitationsModule, XapiModule],
  controllers: [LearnersController],
  providers: [LearnersService],
  exports: [LearnersService],
})
export class LearnersModule implements OnModuleInit {
  constructor(
    private readonly hooks: ApplicationHooks,
    private readonly admins: ApplicationAdminsService,
  ) {}

  onModuleInit(): void {
    this.hooks.registerPurger('application-admins', (appId) => this.admins.purgeApplication(appId));
  }
}
