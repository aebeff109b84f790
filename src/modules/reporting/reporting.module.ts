import { Module } from '@nestjs/common';
import { CoursesModule } from '../courses/courses.module';
import { RegistrationsModule } from '../registrations/registrations.module';
import { ReportingController } from './reporting.controller';
import { ReportingService } from './reporting.service';

/** The Reporting service (account figures, report viewer grants and links) and the report viewer's data. */
@Module({
  imports: [CoursesModule, RegistrationsModule],
  controllers: [ReportingController],
  providers: [ReportingService],
  exports: [ReportingService],
})
export class ReportingModule {}
