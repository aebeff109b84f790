import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CourseVersionEntity } from '../courses/entities/course-version.entity';
import { LaunchHistoryEntity } from '../registrations/entities/launch-history.entity';
import { RegistrationEntity } from '../registrations/entities/registration.entity';
import { RegistrationInstanceEntity } from '../registrations/entities/registration-instance.entity';
import { LaunchLinks } from '../registrations/launch-links';
import { RegistrationsModule } from '../registrations/registrations.module';
import { XapiModule } from '../xapi/xapi.module';
import { PlayerController } from './player.controller';
import { PlayerSessionEntity } from './player-session.entity';
import { PlayerService } from './player.service';

/** The SCORM player, at /player (outside /api/v2); it issues the launch links of BuildRegistrationLaunchLink. */
@Module({
  imports: [TypeOrmModule.forFeature([PlayerSessionEntity, RegistrationEntity, RegistrationInstanceEntity, LaunchHistoryEntity, CourseVersionEntity]), RegistrationsModule, XapiModule],
  controllers: [PlayerController],
  providers: [PlayerService],
})
export class PlayerModule implements OnModuleInit {
  constructor(
    private readonly launchLinks: LaunchLinks,
    private readonly player: PlayerService,
  ) {}

  onModuleInit(): void {
    this.launchLinks.register((req) => this.player.issueLink(req));
  }
}
