import { Module } from '@nestjs/common';
import { CoursesModule } from '../courses/courses.module';
import { RegistrationsModule } from '../registrations/registrations.module';
import { InvitationPagesController } from './invitation-pages.controller';
import { InvitationsModule } from './invitations.module';
import { LaunchLinksModule } from '../player/launch-links.module';

/** The invitation pages at /invite/, outside the API V2 router. */
@Module({ imports: [InvitationsModule, RegistrationsModule, CoursesModule, LaunchLinksModule], controllers: [InvitationPagesController] })
export class InvitationPagesModule {}
