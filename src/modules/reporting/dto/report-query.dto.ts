import { ApiPropertyOptional } from '@nestjs/swagger';
import { QueryCsv, QueryDate, QueryString } from '../../../platform/http/query-transforms';

/** Filters of the report viewer's pages, as their URLs carry them. */
export class ReportQueryDto {
  @ApiPropertyOptional({ description: 'registrations created at or after (ISO 8601)' }) @QueryDate() from?: Date;
  @ApiPropertyOptional({ description: 'registrations created before (ISO 8601; a date alone: up to the end of that day)' }) @QueryDate() to?: Date;
  @ApiPropertyOptional({ description: 'registrations of this course (application page)' }) @QueryString(191) courseId?: string;
  @ApiPropertyOptional({ description: 'registrations of this learner' }) @QueryString(191) learnerId?: string;
  @ApiPropertyOptional({ description: 'registrations carrying any of these tags (comma-separated)' }) @QueryCsv() tags?: string[];
}
