import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';

/** XapiEndpointSchema: an LRS (its base URL or its `…/statements` URL) and the basic-auth credentials for it. */
export class XapiEndpointDto {
  @ApiProperty({ description: 'the LRS endpoint, e.g. https://lrs.example.com/xapi/ (…/statements accepted too)' })
  @IsString()
  @MinLength(1, { message: 'url is required' })
  @MaxLength(2000)
  url!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(255)
  userName?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  password?: string;
}

/** XapiStatementPipePostSchema. Without `source`, the application's own LRS is the source. */
export class XapiStatementPipePostDto {
  @ApiPropertyOptional({ type: XapiEndpointDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => XapiEndpointDto)
  source?: XapiEndpointDto;

  @ApiProperty({ type: XapiEndpointDto })
  @IsDefined({ message: 'target is required' })
  @ValidateNested()
  @Type(() => XapiEndpointDto)
  target!: XapiEndpointDto;
}

/**
 * XapiStatementPipePutSchema (the generated clients) or a whole XapiStatementPipeSchema (the contract): the
 * endpoints given replace the pipe's; its read-only fields are accepted and ignored.
 */
export class XapiStatementPipePutDto {
  @ApiPropertyOptional({ type: XapiEndpointDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => XapiEndpointDto)
  source?: XapiEndpointDto;

  @ApiPropertyOptional({ type: XapiEndpointDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => XapiEndpointDto)
  target?: XapiEndpointDto;

  @ApiPropertyOptional({ description: 'ignored' })
  @IsOptional()
  @IsString()
  id?: string;

  @ApiPropertyOptional({ description: 'ignored' })
  @IsOptional()
  @IsString()
  lastForwardedStatementDate?: string;

  @ApiPropertyOptional({ description: 'ignored' })
  @IsOptional()
  @IsString()
  moreUrl?: string;

  @ApiPropertyOptional({ description: 'ignored' })
  @IsOptional()
  @IsInt()
  attempts?: number;

  @ApiPropertyOptional({ description: 'ignored' })
  @IsOptional()
  @IsString()
  visibleAfter?: string;
}
