import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined, IsString, MaxLength } from 'class-validator';
import { MAX_IDS_PER_BATCH, MAX_TAG_LENGTH, MAX_TAGS_PER_CALL } from '../tag-rules';

/** TagListSchema: the body of PUT and DELETE .../{id}/tags, and the answer of GET .../{id}/tags. */
export class TagListDto {
  @ApiProperty({ type: [String], example: ['onboarding', 'sales'] })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_TAGS_PER_CALL)
  @IsString({ each: true })
  @MaxLength(MAX_TAG_LENGTH, { each: true })
  tags!: string[];
}

/** BatchTagsSchema: PUT .../tags adds every tag to every id. */
export class BatchTagsDto {
  @ApiProperty({ type: [String] })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_IDS_PER_BATCH)
  @IsString({ each: true })
  @MaxLength(191, { each: true })
  ids!: string[];

  @ApiProperty({ type: [String], example: ['onboarding'] })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_TAGS_PER_CALL)
  @IsString({ each: true })
  @MaxLength(MAX_TAG_LENGTH, { each: true })
  tags!: string[];
}
