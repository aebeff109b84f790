import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventBus, RegistrationCreated, RegistrationDeleted } from '../../platform/events';
import { ApplicationHooks } from '../applications/application-hooks';
import { CourseHooks } from '../courses/course-hooks';
import { CoursesModule } from '../courses/courses.module';
import { LaunchLinksModule } from '../player/launch-links.module';
import { XapiModule } from '../xapi/xapi.module';
import { CommitStore } from './commit-store';
import { RegistrationStatementsController } from './registration-statements.controller';
import { LaunchHistoryEntity } from './entities/launch-history.entity';
import { LaunchHistoryLogEntity } from './entities/launch-history-log.entity';
import { RegistrationEntity } from './entities/registration.entity';
import { RegistrationInstanceEntity } from './entities/registration-instance.entity';
import { RegistrationPostbackStateEntity } from './entities/registration-postback-state.entity';
import { LaunchHistoryLog } from './launch-history-log';
import { LearnerRegistrations } from './learner-registrations';
import { RegistrationPostback } from './registration-postback';
import { RegistrationPostbacks } from './registration-postbacks';
import { RegistrationProgress } from './registration-progress';
import { RegistrationProgressEvents } from './registration-progress-events';
import { RegistrationsController } from './registrations.controller';
import { RegistrationRestarts } from './registration-restarts';
import { RegistrationStatistics } from './registration-statistics';
import { RegistrationSummaries } from './registration-summaries';
import { RegistrationsService } from './registrations.service';
import { RegistrationCreation } from './registration-creation';

/**
 * Registration service: registrations, instances, progress, launch history, tags, configuration and postbacks.
 * Owns the registration, registration_instance, launch_history(_log) and postback state tables; the player reads and
 * writes progress through RegistrationProgress and CommitStore.
 * Takes part in course deletion (CourseHooks) and application info/deletion (ApplicationHooks).
 */
@Module({
  imports: [TypeOrmModule.forFeature([RegistrationEntity, RegistrationInstanceEntity, LaunchHistoryEntity, LaunchHistoryLogEntity, RegistrationPostbackStateEntity]), CoursesModule, XapiModule, LaunchLinksModule],
  controllers: [RegistrationsController, RegistrationStatementsController],
  providers: [RegistrationsService, RegistrationCreation, RegistrationPostback, RegistrationPostbacks, LaunchHistoryLog, RegistrationRestarts, RegistrationProgress, CommitStore, RegistrationProgressEvents, RegistrationStatistics, RegistrationSummaries, LearnerRegistrations],
  // RegistrationProgress: the player's reads and progress writes; CommitStore: the commits' hot path (see its doc).
  exports: [RegistrationsService, RegistrationCreation, RegistrationPostback, RegistrationPostbacks, LaunchHistoryLog, RegistrationRestarts, RegistrationProgress, CommitStore, RegistrationProgressEvents, RegistrationStatistics, RegistrationSummaries, LearnerRegistrations],
})
export class RegistrationsModule implements OnModuleInit {
  constructor(
    private readonly applicationHooks: ApplicationHooks,
    private readonly courseHooks: CourseHooks,
    private readonly registrations: RegistrationsService,
    private readonly summaries: RegistrationSummaries,
    private readonly events: EventBus,
  ) {}

  onModuleInit(): void {
    this.courseHooks.registerDeletion('registrations', (appId, courseId, version) => this.registrations.removeForCourse(appId, courseId, version));
    this.courseHooks.registerRegistrationCounter((appId, courseIds, version) => this.registrations.countForCourses(appId, courseIds, version));
    this.applicationHooks.registerCounter('registration', (appIds) => this.registrations.countByApp(appIds));
    this.applicationHooks.registerPurger('registrations', (appId) => this.registrations.purgeApplication(appId));
    this.applicationHooks.registerPurger('registration-summaries', (appId) => this.summaries.purge(appId));
    // The report summaries: refreshed shortly after registrations come and go (and before every report).
    this.events.on(RegistrationCreated, (e) => this.summaries.soon(e.appId));
    this.events.on(RegistrationDeleted, (e) => this.summaries.soon(e.appId));
  }
}
