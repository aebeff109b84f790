import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { BaseListQueryDto } from '../../../platform/http/list-query.dto';
import { QueryBoolean, QueryCsv, QueryDate } from '../../../platform/http/query-transforms';

export const COURSE_ORDER_BY = ['created_asc', 'created_desc', 'updated_asc', 'updated_desc', 'title_asc', 'title_desc'] as const;

export class CourseIncludeQueryDto {
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeRegistrationCount?: boolean;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeCourseMetadata?: boolean;
}

/** Query of GetCourses. */
export class CourseListQueryDto extends BaseListQueryDto {
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeRegistrationCount?: boolean;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeCourseMetadata?: boolean;
  @ApiPropertyOptional({ type: [String], description: 'comma-separated; any of' }) @QueryCsv() tags?: string[];
  @ApiPropertyOptional({ default: 'course_id', enum: ['course_id', 'course_title'] })
  @IsOptional()
  @IsIn(['course_id', 'course_title'])
  filterBy?: string;
  @ApiPropertyOptional({ default: 'created_desc', enum: COURSE_ORDER_BY })
  @IsOptional()
  @IsIn(COURSE_ORDER_BY)
  orderBy?: string;
}

/** Query of GetCourseVersions. */
export class CourseVersionsQueryDto extends CourseIncludeQueryDto {
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() since?: Date;
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() until?: Date;
}
