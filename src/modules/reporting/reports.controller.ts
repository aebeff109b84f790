import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { ReportQueryDto } from './dto/report-query.dto';
import { ReportsService } from './reports.service';

/** LCDS's own operations: the data of the report viewer's pages (PUBLIC_URL/reports/…). */
@ApiTags('lcds')
@Controller('lcds/reports')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Get('application')
  @ApiOperation({ operationId: 'LcdsGetApplicationReport', summary: 'Registrations created and completed per day, completion and pass rates, average score and time, per course' })
  @Authorize(Scope.Read, Scope.ReadReporting)
  application(@CurrentPrincipal() principal: Principal, @Query() query: ReportQueryDto) {
    return this.reports.application(principal, query);
  }

  @Get('courses/:courseId')
  @ApiOperation({ operationId: 'LcdsGetCourseReport', summary: 'Funnel, score and time distributions, progress per activity, question analysis, registrations' })
  @Authorize(Scope.Read, Scope.ReadReporting)
  course(@CurrentPrincipal() principal: Principal, @Param('courseId') courseId: string, @Query() query: ReportQueryDto) {
    return this.reports.course(principal, courseId, query);
  }

  @Get('learners/:learnerId')
  @ApiOperation({ operationId: 'LcdsGetLearnerReport', summary: "The learner's registrations with progress and dates" })
  @Authorize(Scope.Read, Scope.ReadReporting)
  learner(@CurrentPrincipal() principal: Principal, @Param('learnerId') learnerId: string, @Query() query: ReportQueryDto) {
    return this.reports.learner(principal, learnerId, query);
  }

  @Get('registrations/:registrationId')
  @ApiOperation({ operationId: 'LcdsGetRegistrationReport', summary: 'Activity tree with runtime data, launch history and xAPI statements of a registration' })
  @Authorize(Scope.Read, Scope.ReadReporting)
  registration(@CurrentPrincipal() principal: Principal, @Param('registrationId') registrationId: string) {
    return this.reports.registration(principal, registrationId);
  }
}
