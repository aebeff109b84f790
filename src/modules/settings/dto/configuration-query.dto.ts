import { ApiPropertyOptional } from '@nestjs/swagger';
import { QueryBoolean, QueryString } from '../../../platform/http/query-transforms';
import { LEARNING_STANDARDS } from '../setting-catalogue';

/** learningStandard + singleSco name one application bucket; both or neither (checked by the service). */
export class ApplicationConfigurationScopeDto {
  @ApiPropertyOptional({ enum: LEARNING_STANDARDS, description: 'Scopes the request to a learning standard; needs singleSco' })
  @QueryString(64)
  learningStandard?: string;

  @ApiPropertyOptional({ description: 'Required with learningStandard: the single-SCO or the multi-SCO bucket of that standard' })
  @QueryBoolean()
  singleSco?: boolean;
}

/** Query of GetApplicationConfiguration. */
export class ApplicationConfigurationQueryDto extends ApplicationConfigurationScopeDto {
  @ApiPropertyOptional({ default: false })
  @QueryBoolean()
  includeMetadata?: boolean;
}
