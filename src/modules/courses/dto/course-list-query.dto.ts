import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { QueryBoolean, QueryCsv, QueryDate, QueryString } from '../../../platform/http/query-transforms';

export const COURSE_ORDER_BY = ['created_asc', 'created_desc', 'updated_asc', 'updated_desc', 'title_asc', 'title_desc'] as const;

export class CourseIncludeQueryDto {
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeRegistrationCount?: boolean;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeCourseMetadata?: boolean;
}

/** Query of GetCourses. */
export class CourseListQueryDto extends CourseIncludeQueryDto {
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() since?: Date;
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() until?: Date;
  @ApiPropertyOptional({ default: 'updated', enum: ['created', 'updated'] })
  @IsOptional()
  @IsIn(['created', 'updated'])
  datetimeFilter?: string;
  @ApiPropertyOptional({ type: [String], description: 'comma-separated; any of' }) @QueryCsv() tags?: string[];
  @ApiPropertyOptional() @QueryString(255) filter?: string;
  @ApiPropertyOptional({ default: 'course_id', enum: ['course_id', 'course_title'] })
  @IsOptional()
  @IsIn(['course_id', 'course_title'])
  filterBy?: string;
  @ApiPropertyOptional({ default: 'created_desc', enum: COURSE_ORDER_BY })
  @IsOptional()
  @IsIn(COURSE_ORDER_BY)
  orderBy?: string;
  @ApiPropertyOptional() @QueryString(4096) more?: string;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeTotalCount?: boolean;
}

/** Query of GetCourseVersions. */
export class CourseVersionsQueryDto extends CourseIncludeQueryDto {
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() since?: Date;
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() until?: Date;
}
