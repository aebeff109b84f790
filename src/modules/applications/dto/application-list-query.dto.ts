import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { BaseListQueryDto } from '../../../platform/http/list-query.dto';
import { QueryBoolean } from '../../../platform/http/query-transforms';

export const APPLICATION_ORDER_BY = ['updated_asc', 'updated_desc', 'created_asc', 'created_desc', 'app_name_asc', 'app_name_desc'] as const;

/** Query of GetApplications. */
export class ApplicationListQueryDto extends BaseListQueryDto {
  @ApiPropertyOptional({ default: 'app_id', enum: ['app_id', 'app_name'] })
  @IsOptional()
  @IsIn(['app_id', 'app_name'])
  filterBy?: string;
  @ApiPropertyOptional({ default: 'updated_asc', enum: APPLICATION_ORDER_BY })
  @IsOptional()
  @IsIn(APPLICATION_ORDER_BY)
  orderBy?: string;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeCourseCount?: boolean;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeRegistrationCount?: boolean;
}

/** Query of GetApplicationInfo. */
export class ApplicationInfoQueryDto {
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeCourseCount?: boolean;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeRegistrationCount?: boolean;
}
