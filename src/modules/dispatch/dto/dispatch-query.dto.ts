import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { BaseListQueryDto } from '../../../platform/http/list-query.dto';
import { QueryBoolean, QueryCsv, QueryString } from '../../../platform/http/query-transforms';

export const ORDER_BY = ['created_asc', 'created_desc', 'updated_asc', 'updated_desc'] as const;
export const DISPATCH_FILTER_BY = ['dispatch_id', 'course_id', 'destination_id'] as const;
export const DESTINATION_FILTER_BY = ['destination_id', 'name'] as const;
export const PACKAGE_TYPES = ['SCORM_12', 'SCORM_2004_3RD', 'AICC', 'XAPI', 'CMI5'] as const;

/** The parameters both lists add to the common ones. */
class DispatchListCommonDto extends BaseListQueryDto {
  @ApiPropertyOptional() @QueryString(191) courseId?: string;
  @ApiPropertyOptional({ type: [String], description: 'comma-separated; any of' }) @QueryCsv() tags?: string[];
  @ApiPropertyOptional({ default: 'updated_asc', enum: ORDER_BY }) @IsOptional() @IsIn(ORDER_BY) orderBy?: string;
}

/** GetDispatches, GetDestinationDispatches */
export class DispatchListQueryDto extends DispatchListCommonDto {
  @ApiPropertyOptional({ default: 'dispatch_id', enum: DISPATCH_FILTER_BY }) @IsOptional() @IsIn(DISPATCH_FILTER_BY) filterBy?: string;
}

/** The selection of DeleteDispatches and UpdateDispatches (no paging). */
export class DispatchSelectionQueryDto extends PickType(DispatchListQueryDto, ['courseId', 'since', 'until', 'datetimeFilter', 'tags', 'filter', 'filterBy'] as const) {}

/** GetDestinations */
export class DestinationListQueryDto extends DispatchListCommonDto {
  @ApiPropertyOptional({ default: 'destination_id', enum: DESTINATION_FILTER_BY }) @IsOptional() @IsIn(DESTINATION_FILTER_BY) filterBy?: string;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeDispatchCount?: boolean;
}

export class DestinationGetQueryDto {
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeDispatchCount?: boolean;
}

/** GetDispatchZip, GetDestinationDispatchZip */
export class DispatchZipQueryDto {
  @ApiPropertyOptional({ default: 'SCORM_12', enum: PACKAGE_TYPES }) @IsOptional() @IsIn(PACKAGE_TYPES) type?: (typeof PACKAGE_TYPES)[number];
  @ApiPropertyOptional() @QueryString(2048) cssUrl?: string;
  @ApiPropertyOptional({ type: [String], description: 'comma-separated; any of' }) @QueryCsv() tags?: string[];
}

/** GetLti13DispatchLaunch: both required, as the real service's. */
export class Lti13DispatchLaunchQueryDto {
  @ApiProperty({ description: 'External configuration object (accepted; LCDS takes no external configuration)' }) @IsDefined() @IsString() @MaxLength(4096) externalConfig!: string;
  @ApiProperty() @IsDefined() @IsString() @MaxLength(8192) jwt!: string;
}
