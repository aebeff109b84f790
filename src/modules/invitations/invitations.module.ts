import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventBus, RegistrationDeleted } from '../../platform/events';
import { ApplicationHooks } from '../applications/application-hooks';
import { CourseHooks } from '../courses/course-hooks';
import { CoursesModule } from '../courses/courses.module';
import { RegistrationsModule } from '../registrations/registrations.module';
import { InvitationEntity } from './entities/invitation.entity';
import { UserInvitationEntity } from './entities/user-invitation.entity';
import { InvitationEmails } from './invitation-emails';
import { InvitationsController } from './invitations.controller';
import { InvitationsService } from './invitations.service';

/** Invitation service: public and private invitations, their user invitations, the e-mail job. */
@Module({
  imports: [TypeOrmModule.forFeature([InvitationEntity, UserInvitationEntity]), CoursesModule, RegistrationsModule],
  controllers: [InvitationsController],
  providers: [InvitationsService, InvitationEmails],
  exports: [InvitationsService],
})
export class InvitationsModule implements OnModuleInit {
  constructor(
    private readonly applicationHooks: ApplicationHooks,
    private readonly courseHooks: CourseHooks,
    private readonly invitations: InvitationsService,
    private readonly events: EventBus,
  ) {}

  onModuleInit(): void {
    this.courseHooks.registerDeletion('invitations', (appId, courseId, version) => (version === undefined ? this.invitations.removeForCourse(appId, courseId) : Promise.resolve()));
    this.applicationHooks.registerPurger('invitations', (appId) => this.invitations.purgeApplication(appId));
    // In-process: a user invitation whose registration went is found out at its next use anyway (joinPublic checks).
    this.events.on(RegistrationDeleted, (e) => (e.instance === null ? this.invitations.registrationDeleted(e.appId, e.registrationId) : undefined));
  }
}
