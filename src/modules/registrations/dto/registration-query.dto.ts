import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { QueryBoolean, QueryCsv, QueryDate, QueryString } from '../../../platform/http/query-transforms';

export const REGISTRATION_FILTER_BY = ['registration_id', 'course_id', 'learner_id', 'learner_email', 'learner_first_name', 'learner_last_name'] as const;
export const REGISTRATION_ORDER_BY = ['created_asc', 'created_desc', 'updated_asc', 'updated_desc'] as const;

/** includeChildResults, includeInteractionsAndObjectives, includeRuntime */
export class RegistrationIncludeQueryDto {
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeChildResults?: boolean;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeInteractionsAndObjectives?: boolean;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeRuntime?: boolean;
}

/** Query of GetRegistrations. */
export class RegistrationListQueryDto extends RegistrationIncludeQueryDto {
  @ApiPropertyOptional() @QueryString(191) courseId?: string;
  @ApiPropertyOptional() @QueryString(191) learnerId?: string;
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() since?: Date;
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() until?: Date;
  @ApiPropertyOptional({ default: 'created', enum: ['created', 'updated'] })
  @IsOptional()
  @IsIn(['created', 'updated'])
  datetimeFilter?: string;
  @ApiPropertyOptional({ type: [String], description: 'comma-separated; any of' }) @QueryCsv() tags?: string[];
  @ApiPropertyOptional() @QueryString(255) filter?: string;
  @ApiPropertyOptional({ default: 'registration_id', enum: REGISTRATION_FILTER_BY })
  @IsOptional()
  @IsIn(REGISTRATION_FILTER_BY)
  filterBy?: string;
  @ApiPropertyOptional({ default: 'created_desc', enum: REGISTRATION_ORDER_BY })
  @IsOptional()
  @IsIn(REGISTRATION_ORDER_BY)
  orderBy?: string;
  @ApiPropertyOptional() @QueryString(4096) more?: string;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeTotalCount?: boolean;
}

/** Query of GetRegistrationInstances. */
export class RegistrationInstancesQueryDto extends RegistrationIncludeQueryDto {
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() until?: Date;
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() since?: Date;
  @ApiPropertyOptional() @QueryString(4096) more?: string;
}

export class LaunchHistoryQueryDto {
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeHistoryLog?: boolean;
}
