import { Module } from '@nestjs/common';
import { CoursesModule } from '../courses/courses.module';
import { RegistrationsModule } from '../registrations/registrations.module';
import { InvitationPagesController } from './invitation-pages.controller';
import { InvitationsModule } from './invitations.module';

/** The invitation pages at /invite/, outside the API V2 router. */
@Module({ imports: [InvitationsModule, RegistrationsModule, CoursesModule], controllers: [InvitationPagesController] })
export class InvitationPagesModule {}
