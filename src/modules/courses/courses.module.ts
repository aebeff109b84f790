import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApplicationHooks } from '../applications/application-hooks';
import { ContentConnectorsModule } from '../connectors/content-connectors.module';
import { CourseAssetsController } from './course-assets.controller';
import { CourseAssetsService } from './course-assets.service';
import { CourseHooks } from './course-hooks';
import { CourseImportService } from './course-import.service';
import { CourseImportsController } from './course-imports.controller';
import { CoursePackageImporter } from './course-package-importer';
import { CoursesController } from './courses.controller';
import { CoursesService } from './courses.service';
import { CourseEntity } from './entities/course.entity';
import { CourseVersionEntity } from './entities/course-version.entity';
// Launch links are issued by the player for registrations and course previews alike (see LaunchLinks).
import { LaunchLinksModule } from '../player/launch-links.module';

@Module({
  imports: [
    TypeOrmModule.forFeature([CourseEntity, CourseVersionEntity]),
    LaunchLinksModule,
    // connectorReferenceRequest imports read packages from the application's content connectors.
    ContentConnectorsModule,
  ],
  // Import jobs first: `courses/importJobs/…` must not be taken for a course id.
  controllers: [CourseImportsController, CoursesController, CourseAssetsController],
  providers: [CoursesService, CourseImportService, CoursePackageImporter, CourseAssetsService, CourseHooks],
  exports: [CoursesService, CourseHooks],
})
export class CoursesModule implements OnModuleInit {
  constructor(
    private readonly applicationHooks: ApplicationHooks,
    private readonly courses: CoursesService,
  ) {}

  onModuleInit(): void {
    this.applicationHooks.registerCounter('course', (appIds) => this.courses.countByApp(appIds));
    this.applicationHooks.registerPurger('courses', (appId) => this.courses.purgeApplication(appId));
  }
}
