import { Module } from '@nestjs/common';
import { CoursesModule } from '../courses/courses.module';
import { RegistrationsModule } from '../registrations/registrations.module';
import { XapiModule } from '../xapi/xapi.module';
import { ReportsController } from './reports.controller';
import { ReportsService } from './reports.service';
import { ReportingController } from './reporting.controller';
import { ReportingService } from './reporting.service';

/** The Reporting service (account figures, report viewer grants and links) and the report viewer's data. */
@Module({
  imports: [CoursesModule, RegistrationsModule, XapiModule],
  controllers: [ReportingController, ReportsController],
  providers: [ReportingService, ReportsService],
  exports: [ReportingService],
})
export class ReportingModule {}
