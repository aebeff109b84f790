import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { BaseListQueryDto } from '../../../platform/http/list-query.dto';

export const XAPI_CREDENTIAL_ORDER_BY = ['updated_asc', 'updated_desc', 'created_asc', 'created_desc'] as const;
export const XAPI_CREDENTIAL_FILTER_BY = ['credential_id', 'credential_name'] as const;

/** Query of GetXapiCredentials. */
export class XapiCredentialListQueryDto extends BaseListQueryDto {
  @ApiPropertyOptional({ default: 'credential_id', enum: XAPI_CREDENTIAL_FILTER_BY })
  @IsOptional()
  @IsIn(XAPI_CREDENTIAL_FILTER_BY)
  filterBy?: string;
  @ApiPropertyOptional({ default: 'updated_asc', enum: XAPI_CREDENTIAL_ORDER_BY })
  @IsOptional()
  @IsIn(XAPI_CREDENTIAL_ORDER_BY)
  orderBy?: string;
}
