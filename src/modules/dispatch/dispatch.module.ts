import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventBus, LearnerErased, RegistrationDeleted } from '../../platform/events';
import { ApplicationHooks } from '../applications/application-hooks';
import { CourseHooks } from '../courses/course-hooks';
import { CoursesModule } from '../courses/courses.module';
import { LaunchLinksModule } from '../player/launch-links.module';
import { RegistrationsModule } from '../registrations/registrations.module';
import { DispatchLaunches } from './dispatch-launches';
import { DispatchLti } from './dispatch-lti';
import { DispatchLti13 } from './dispatch-lti13';
import { DispatchAicc } from './dispatch-aicc';
import { DispatchXapi } from './dispatch-xapi';
import { Lti13ToolKeys } from './lti13-tool-keys';
import { DestinationsController } from './destinations.controller';
import { DestinationsService } from './destinations.service';
import { DispatchesController } from './dispatches.controller';
import { DispatchesService } from './dispatches.service';
import { DispatchZips } from './dispatch-zips';
import { DestinationEntity } from './entities/destination.entity';
import { DispatchNonceEntity } from './entities/dispatch-nonce.entity';
import { DispatchRegistrationEntity } from './entities/dispatch-registration.entity';
import { DispatchEntity } from './entities/dispatch.entity';

/** Dispatch service: destinations, dispatches, their packages and launches. */
@Module({
  imports: [TypeOrmModule.forFeature([DestinationEntity, DispatchEntity, DispatchRegistrationEntity, DispatchNonceEntity]), CoursesModule, RegistrationsModule, LaunchLinksModule],
  controllers: [DestinationsController, DispatchesController],
  providers: [DestinationsService, DispatchesService, DispatchZips, DispatchLaunches, DispatchLti, DispatchLti13, DispatchXapi, DispatchAicc, Lti13ToolKeys],
  exports: [DispatchesService, DispatchLaunches, DispatchLti, DispatchLti13, DispatchXapi, DispatchAicc],
})
export class DispatchModule implements OnModuleInit {
  constructor(
    private readonly applicationHooks: ApplicationHooks,
    private readonly courseHooks: CourseHooks,
    private readonly dispatches: DispatchesService,
    private readonly events: EventBus,
  ) {}

  onModuleInit(): void {
    this.courseHooks.registerDeletion('dispatch', (appId, courseId, version) => (version === undefined ? this.dispatches.removeForCourse(appId, courseId) : Promise.resolve()));
    this.applicationHooks.registerPurger('dispatch', (appId) => this.dispatches.purgeApplication(appId));
    this.events.on(RegistrationDeleted, (e) => (e.instance === null ? this.dispatches.registrationDeleted(e.appId, e.registrationId) : undefined));
    // The erasure deletes the learner's registrations (above); a link whose registration was already gone goes here.
    this.events.on(LearnerErased, (e) => this.dispatches.forgetLearner(e.appId, e.learnerId));
  }
}
