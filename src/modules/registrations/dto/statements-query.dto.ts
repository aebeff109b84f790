import { ApiPropertyOptional } from '@nestjs/swagger';
import { QueryDate, QueryString } from '../../../platform/http/query-transforms';

/** Query of GetRegistrationStatements / GetRegistrationInstanceStatements. */
export class StatementsQueryDto {
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() since?: Date;
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() until?: Date;
  @ApiPropertyOptional() @QueryString(4096) more?: string;
}

/** Query of GetCourseStatements / GetCourseVersionStatements. */
export class CourseStatementsQueryDto extends StatementsQueryDto {
  @ApiPropertyOptional() @QueryString(191) learnerId?: string;
}
