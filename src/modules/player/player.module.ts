import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CoursesModule } from '../courses/courses.module';
import { CourseVersionEntity } from '../courses/entities/course-version.entity';
import { LaunchHistoryEntity } from '../registrations/entities/launch-history.entity';
import { RegistrationEntity } from '../registrations/entities/registration.entity';
import { RegistrationInstanceEntity } from '../registrations/entities/registration-instance.entity';
import { LaunchLinks } from '../registrations/launch-links';
import { RegistrationsModule } from '../registrations/registrations.module';
import { RegistrationsService } from '../registrations/registrations.service';
import { SettingsModule } from '../settings/settings.module';
import { AiccHacpController } from './aicc-hacp.controller';
import { AiccHacpService } from './aicc-hacp.service';
import { XapiModule } from '../xapi/xapi.module';
import { CommitEndpoint } from './commit-endpoint';
import { CommitStore } from './commit-store';
import { PlayerController } from './player.controller';
import { PlayerSessionEntity } from './player-session.entity';
import { PlayerSessionReaper } from './player-session-reaper';
import { PlayerService } from './player.service';
import { PlayerStatusController } from './player-status.controller';
import { PlayerStatusService } from './player-status.service';
import { XapiProgress } from './xapi-progress';
import { Cmi5Runtime } from './cmi5-runtime';

/** The SCORM player, at /player (outside /api/v2); it issues the launch links of BuildRegistrationLaunchLink and course previews. */
@Module({
  imports: [TypeOrmModule.forFeature([PlayerSessionEntity, RegistrationEntity, RegistrationInstanceEntity, LaunchHistoryEntity, CourseVersionEntity]), CoursesModule, RegistrationsModule, SettingsModule, XapiModule],
  controllers: [PlayerController, AiccHacpController, PlayerStatusController],
  providers: [PlayerService, CommitStore, CommitEndpoint, PlayerSessionReaper, AiccHacpService, XapiProgress, Cmi5Runtime, PlayerStatusService],
})
export class PlayerModule implements OnModuleInit {
  constructor(
    private readonly launchLinks: LaunchLinks,
    private readonly player: PlayerService,
    private readonly xapiProgress: XapiProgress,
    private readonly cmi5: Cmi5Runtime,
    private readonly registrations: RegistrationsService,
  ) {}

  onModuleInit(): void {
    this.launchLinks.register((req) => this.player.issueLink(req));
    this.xapiProgress.register((appId, registration, statements) => this.player.applyXapiResults(appId, registration, statements));
    this.registrations.registerInstanceInitializer((inst, version, now) => this.cmi5.initialProgress(inst, version, now));
    // A deleted registration's launch sessions go with it (their settings carry the learner's name).
    this.registrations.registerRemovalHook((appId, ids) => this.player.forgetSessions(appId, ids));
    this.cmi5.registerProgressStore(async (where, change, launchHistoryId) => (await this.player.applyStatementProgress(where, (tree) => change(tree), launchHistoryId)) !== null);
  }
}
