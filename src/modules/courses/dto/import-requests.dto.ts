import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength, Min, ValidateNested } from 'class-validator';
import { QueryBoolean } from '../../../platform/http/query-transforms';

/** Course ids travel in URL paths: printable, no slashes, at most 191 characters. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what the pattern keeps out
export const COURSE_ID_PATTERN = /^(?!\.{1,2}$)[^\x00-\x1f\x7f/\\?#]{1,191}$/;

/** Query of the three import operations. */
export class ImportQueryDto {
  @ApiProperty()
  @IsString()
  @Matches(COURSE_ID_PATTERN, { message: 'courseId must be 1 to 191 printable characters without / \\ ? #' })
  courseId!: string;

  @ApiPropertyOptional({ default: false }) @QueryBoolean() mayCreateNewVersion?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  postbackUrl?: string;
}

/** MediaFileMetadataSchema */
export class MediaFileMetadataDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(512) title?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(4000) description?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(64) contentLanguage?: string;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) estimatedDuration?: number;
}

/** ImportFetchRequestSchema */
export class ImportFetchRequestDto {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(2000) url!: string;
  @ApiPropertyOptional({ default: 'application/zip' }) @IsOptional() @IsString() @MaxLength(255) contentType?: string;
  @ApiPropertyOptional({ type: MediaFileMetadataDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MediaFileMetadataDto)
  mediaFileMetadata?: MediaFileMetadataDto;
}

/** ImportMediaFileReferenceRequestSchema */
export class ImportMediaFileReferenceRequestDto {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(2000) url!: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(255) contentType!: string;
  @ApiPropertyOptional({ type: MediaFileMetadataDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MediaFileMetadataDto)
  mediaFileMetadata?: MediaFileMetadataDto;
}

/** ImportConnectorRequestSchema (accepted in shape, refused: LCDS has no content connectors). */
export class ImportConnectorRequestDto {
  @ApiPropertyOptional() @IsOptional() @IsString() connectorId?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() connectorIdForContent?: string;
  @ApiPropertyOptional() @IsOptional() metadataForConnector?: unknown;
}

/** ImportRequestSchema */
export class ImportRequestDto {
  @ApiPropertyOptional({ type: ImportFetchRequestDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ImportFetchRequestDto)
  fetchRequest?: ImportFetchRequestDto;

  @ApiPropertyOptional({ type: ImportMediaFileReferenceRequestDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ImportMediaFileReferenceRequestDto)
  mediaFileReferenceRequest?: ImportMediaFileReferenceRequestDto;

  @ApiPropertyOptional({ type: ImportConnectorRequestDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ImportConnectorRequestDto)
  connectorReferenceRequest?: ImportConnectorRequestDto;
}

/** The job payload: validated like a request body when queued and again when run. */
export class ImportJobPayload {
  @IsString() @IsNotEmpty() appId!: string;
  @IsString() @Matches(COURSE_ID_PATTERN) courseId!: string;
  @IsDefined() mayCreateNewVersion!: boolean;
  @IsOptional() @IsString() postbackUrl?: string;
  @IsObject() source!: ImportSource;
  @IsOptional() @IsObject() media?: MediaFileMetadataDto;
}

export type ImportSource =
  | { kind: 'upload'; key: string; fileName?: string; contentType?: string }
  | { kind: 'fetch'; url: string; contentType?: string }
  | { kind: 'reference'; url: string; contentType: string }
  | { kind: 'connector'; connectorId: string; key: string };

export class ImportPostbackPayload {
  @IsString() @IsNotEmpty() appId!: string;
  @IsString() @IsNotEmpty() importJobId!: string;
  @IsString() @IsNotEmpty() url!: string;
  /** The job's end: the outcome of a successful import, or the error of a failed one. */
  @IsOptional() @IsObject() outcome?: { courseId: string; version: number; webPathToCourse: string; warnings: string[]; courseLanguages: string[] };
  @IsOptional() @IsString() error?: string;
}
