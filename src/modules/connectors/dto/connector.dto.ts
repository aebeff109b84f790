import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsObject, IsOptional, IsString } from 'class-validator';
import { QueryBoolean } from '../../../platform/http/query-transforms';

/** CreateConnectorSchema */
export class CreateConnectorDto {
  @ApiProperty({ enum: ['S3', 'HTTP'] })
  @IsString()
  contentConnectorType!: string;

  @ApiProperty({ description: 'S3: endpoint, region, bucket, prefix, accessKeyId, secretAccessKey; HTTP: url, headers, username, password' })
  @IsObject()
  configuration!: Record<string, unknown>;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** UpdateConnectorSchema */
export class UpdateConnectorDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsObject()
  configuration?: Record<string, unknown>;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class ConnectorListQueryDto {
  @ApiPropertyOptional({ default: false })
  @QueryBoolean()
  includeAdditionalInstanceInformation?: boolean;
}
