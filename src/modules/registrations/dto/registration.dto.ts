import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { SettingsPostDto } from '../../settings/dto/settings-post.dto';
import { TagArray } from '../../tags/dto/tag-array';
import { RegistrationStateDto } from './registration-state.dto';

export const POSTBACK_AUTH_TYPES = ['UNDEFINED', 'FORM', 'HTTPBASIC'] as const;
export const POSTBACK_RESULTS_FORMATS = ['UNDEFINED', 'COURSE', 'ACTIVITY', 'FULL'] as const;

/**
 * Identifiers a client chooses end up in URLs, logs, xAPI actors and postbacks: no control characters (C0 and DEL),
 * which no client means and which break each of those.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what the pattern keeps out
const NO_CONTROL_CHARACTERS = /^[^\x00-\x1f\x7f]*$/;

/** LearnerSchema */
export class LearnerDto {
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(191) @Matches(NO_CONTROL_CHARACTERS, { message: 'learner.id must not contain control characters' }) id!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(320) email?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(255) firstName?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(255) lastName?: string;
}

/** PostBackSchema */
export class PostBackDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) url?: string;
  @ApiPropertyOptional({ enum: POSTBACK_AUTH_TYPES, default: 'UNDEFINED' }) @IsOptional() @IsIn(POSTBACK_AUTH_TYPES) authType?: (typeof POSTBACK_AUTH_TYPES)[number];
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(255) userName?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(255) password?: string;
  @ApiPropertyOptional({ enum: POSTBACK_RESULTS_FORMATS, default: 'UNDEFINED' })
  @IsOptional()
  @IsIn(POSTBACK_RESULTS_FORMATS)
  resultsFormat?: (typeof POSTBACK_RESULTS_FORMATS)[number];
  @ApiPropertyOptional() @IsOptional() @IsBoolean() legacy?: boolean;
}

/** CreateRegistrationSchema */
export class CreateRegistrationDto {
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(191) courseId!: string;

  @ApiProperty({ type: LearnerDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => LearnerDto)
  learner!: LearnerDto;

  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(191) @Matches(NO_CONTROL_CHARACTERS, { message: 'registrationId must not contain control characters' }) registrationId!: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'xapiRegistrationId must be a UUID' })
  xapiRegistrationId?: string;

  @ApiPropertyOptional({ type: [String] }) @TagArray() learnerTags?: string[];
  @ApiPropertyOptional({ type: [String] }) @TagArray() courseTags?: string[];
  @ApiPropertyOptional({ type: [String] }) @TagArray() registrationTags?: string[];

  @ApiPropertyOptional({ type: PostBackDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PostBackDto)
  postBack?: PostBackDto;

  @ApiPropertyOptional({ type: RegistrationStateDto, description: 'RegistrationSchema: progress to start from' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RegistrationStateDto)
  initialRegistrationState?: RegistrationStateDto;

  @ApiPropertyOptional({ type: SettingsPostDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SettingsPostDto)
  initialSettings?: SettingsPostDto;
}

/** Integer query parameter (courseVersion). */
export function QueryInt(): PropertyDecorator {
  return (target, key) => {
    IsOptional()(target, key);
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value))(target, key);
    IsInt({ message: ({ property }) => `${property} must be an integer` })(target, key);
    Min(0)(target, key);
  };
}

export class CreateRegistrationQueryDto {
  @ApiPropertyOptional({ type: Number }) @QueryInt() courseVersion?: number;
}

