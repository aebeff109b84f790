import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

/** ImportAssetRequestSchema */
export class ImportAssetRequestDto {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(2000) fetchUrl!: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(1024) destination!: string;
}

export class AssetPolicyQueryDto {
  @ApiPropertyOptional({ default: 'lax', enum: ['reject', 'strict', 'lax'] })
  @IsOptional()
  @IsIn(['reject', 'strict', 'lax'])
  updateAssetPolicy?: 'reject' | 'strict' | 'lax';
}

export class AssetPathQueryDto {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(1024) relativePath!: string;
}
