import { MiddlewareConsumer, Module, NestModule, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AiPluginModule } from '../aiplugin/aiplugin.module';
import { CoursesModule } from '../courses/courses.module';
import { RegistrationProgress } from '../registrations/registration-progress';
import { RegistrationsModule } from '../registrations/registrations.module';
import { RegistrationsService } from '../registrations/registrations.service';
import { SettingsModule } from '../settings/settings.module';
import { XapiModule } from '../xapi/xapi.module';
import { AiccHacpController } from './aicc-hacp.controller';
import { AiccHacpService } from './aicc-hacp.service';
import { Cmi5Runtime } from './cmi5-runtime';
import { PlayerCmi5Start } from './cmi5-session-start';
import { CommitEndpoint } from './commit-endpoint';
import { LaunchLinksModule } from './launch-links.module';
import { LaunchStatements } from './launch-statements/launch-statements';
import { PlayerCommitService } from './player-commit.service';
import { PlayerController } from './player.controller';
import { PlayerLaunchService } from './player-launch.service';
import { PlayerLaunchAuth } from './player-launch-auth';
import { LaunchAuthMiddleware } from './launch-auth.middleware';
import { PlayerNavigationService } from './player-navigation.service';
import { PlayerSessionEntity } from './player-session.entity';
import { PlayerSessionReaper } from './player-session-reaper';
import { PlayerSessions } from './player-sessions';
import { PlayerService } from './player.service';
import { PlayerStatusController } from './player-status.controller';
import { PlayerStatusService } from './player-status.service';
import { PlayerXapi } from './player-xapi';
import { XapiProgress } from './xapi-progress';

/**
 * The SCORM player, at /player (outside /api/v2). Owns the player_session table and launching: the launch links of
 * BuildRegistrationLaunchLink and course previews (LaunchLinksModule), the SCORM profile's statements of SCORM launches
 * (LaunchStatements, stored through the LRS's XapiStatementsService). Registrations' progress is read and written
 * through RegistrationProgress and CommitStore, course versions through CoursesService.
 */
@Module({
  imports: [TypeOrmModule.forFeature([PlayerSessionEntity]), LaunchLinksModule, CoursesModule, RegistrationsModule, SettingsModule, XapiModule, AiPluginModule],
  controllers: [PlayerController, AiccHacpController, PlayerStatusController],
  providers: [
    PlayerSessions,
    PlayerLaunchService,
    PlayerLaunchAuth,
    PlayerNavigationService,
    PlayerCommitService,
    PlayerService,
    PlayerCmi5Start,
    PlayerXapi,
    CommitEndpoint,
    PlayerSessionReaper,
    AiccHacpService,
    XapiProgress,
    Cmi5Runtime,
    PlayerStatusService,
    LaunchStatements,
  ],
})
export class PlayerModule implements OnModuleInit, NestModule {
  constructor(
    private readonly xapi: PlayerXapi,
    private readonly xapiProgress: XapiProgress,
    private readonly cmi5: Cmi5Runtime,
    private readonly registrations: RegistrationsService,
    private readonly progress: RegistrationProgress,
    private readonly sessions: PlayerSessions,
  ) {}

  /** launchAuth: the session routes of the player are checked before their handlers (commits: in CommitEndpoint). */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(LaunchAuthMiddleware).forRoutes(PlayerController);
  }

  onModuleInit(): void {
    this.xapiProgress.register((appId, registration, statements, interactions) => this.xapi.applyXapiResults(appId, registration, statements, interactions));
    this.registrations.registerInstanceInitializer((inst, version, now) => this.cmi5.initialProgress(inst, version, now));
    // A deleted registration's launch sessions go with it (their settings carry the learner's name).
    this.registrations.registerRemovalHook((appId, ids) => this.sessions.forgetSessions(appId, ids));
    this.cmi5.registerProgressStore(async (where, change, launchHistoryId) => (await this.progress.applyStatementProgress(where, (tree) => change(tree), launchHistoryId)) !== null);
  }
}
