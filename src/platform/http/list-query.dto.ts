import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { QueryBoolean, QueryDate, QueryString } from './query-transforms';

/**
 * The query parameters every paged list of the API shares. Each list extends it with its own `filterBy` and
 * `orderBy` values (and defaults), which differ per resource.
 */
export class BaseListQueryDto {
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() since?: Date;
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() until?: Date;
  @ApiPropertyOptional({ enum: ['created', 'updated'] })
  @IsOptional()
  @IsIn(['created', 'updated'])
  datetimeFilter?: string;
  @ApiPropertyOptional() @QueryString(255) filter?: string;
  @ApiPropertyOptional() @QueryString(4096) more?: string;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeTotalCount?: boolean;
}
