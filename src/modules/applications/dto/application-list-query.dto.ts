import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { QueryBoolean, QueryDate, QueryString } from '../../../platform/http/query-transforms';

export const APPLICATION_ORDER_BY = ['updated_asc', 'updated_desc', 'created_asc', 'created_desc', 'app_name_asc', 'app_name_desc'] as const;

/** Query of GetApplications. */
export class ApplicationListQueryDto {
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() since?: Date;
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() until?: Date;
  @ApiPropertyOptional({ default: 'updated', enum: ['created', 'updated'] })
  @IsOptional()
  @IsIn(['created', 'updated'])
  datetimeFilter?: string;
  @ApiPropertyOptional() @QueryString(255) filter?: string;
  @ApiPropertyOptional({ default: 'app_id', enum: ['app_id', 'app_name'] })
  @IsOptional()
  @IsIn(['app_id', 'app_name'])
  filterBy?: string;
  @ApiPropertyOptional({ default: 'updated_asc', enum: APPLICATION_ORDER_BY })
  @IsOptional()
  @IsIn(APPLICATION_ORDER_BY)
  orderBy?: string;
  @ApiPropertyOptional() @QueryString(4096) more?: string;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeCourseCount?: boolean;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeRegistrationCount?: boolean;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeTotalCount?: boolean;
}

/** Query of GetApplicationInfo. */
export class ApplicationInfoQueryDto {
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeCourseCount?: boolean;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeRegistrationCount?: boolean;
}
