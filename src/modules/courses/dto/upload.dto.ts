import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

/** Text fields of the multipart upload of an import (the file itself is `file`). */
export class UploadDto {
  @ApiPropertyOptional({ description: 'JSON of MediaFileMetadataSchema fields' })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  contentMetadata?: string;
}

/** Text fields of the multipart asset upload. */
export class AssetUploadDto {
  @IsString()
  @MaxLength(1024)
  destination!: string;
}
