import { ApiPropertyOptional } from '@nestjs/swagger';
import { QueryBoolean } from '../../../platform/http/query-transforms';

export class IncludeMetadataQueryDto {
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeMetadata?: boolean;
}
