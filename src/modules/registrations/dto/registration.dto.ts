import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
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
import { MAX_TAG_LENGTH, MAX_TAGS_PER_CALL } from '../../tags/tag-rules';
import { RegistrationStateDto } from './registration-state.dto';

export const POSTBACK_AUTH_TYPES = ['UNDEFINED', 'FORM', 'HTTPBASIC'] as const;
export const POSTBACK_RESULTS_FORMATS = ['UNDEFINED', 'COURSE', 'ACTIVITY', 'FULL'] as const;

function TagArray(): PropertyDecorator {
  return (target, key) => {
    IsOptional()(target, key);
    IsArray()(target, key);
    ArrayMaxSize(MAX_TAGS_PER_CALL)(target, key);
    IsString({ each: true })(target, key);
    MaxLength(MAX_TAG_LENGTH, { each: true })(target, key);
  };
}

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

/** ItemValuePairSchema */
export class ItemValuePairDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(1000) item?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(4000) value?: string;
}

/** LaunchAuthOptionsSchema */
export class LaunchAuthOptionsDto {
  @ApiPropertyOptional() @IsOptional() @IsBoolean() ipAddress?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() fingerprint?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) expiry?: number;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) slidingExpiry?: number;
}

/** LaunchAuthSchema */
export class LaunchAuthDto {
  @ApiPropertyOptional({ enum: ['cookies', 'vault'], default: 'cookies' }) @IsOptional() @IsIn(['cookies', 'vault']) type?: 'cookies' | 'vault';
  @ApiPropertyOptional({ type: LaunchAuthOptionsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => LaunchAuthOptionsDto)
  options?: LaunchAuthOptionsDto;
}

/** LaunchLinkRequestSchema */
export class LaunchLinkRequestDto {
  @ApiPropertyOptional({ default: 120, minimum: 10, maximum: 300 }) @IsOptional() @IsInt({ message: 'expiry must be an integer number of seconds' }) expiry?: number;
  @ApiProperty({ description: 'Absolute http(s) URL, or one of closer, blank, message; empty: the configured setting' })
  @IsDefined({ message: 'redirectOnExitUrl is required' })
  @IsString()
  @MaxLength(2048)
  redirectOnExitUrl!: string;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() tracking?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(1000) startSco?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(64) culture?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) cssUrl?: string;
  @ApiPropertyOptional({ type: [String] }) @TagArray() learnerTags?: string[];
  @ApiPropertyOptional({ type: [String] }) @TagArray() courseTags?: string[];
  @ApiPropertyOptional({ type: [String] }) @TagArray() registrationTags?: string[];
  @ApiPropertyOptional({ type: [ItemValuePairDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => ItemValuePairDto)
  additionalvalues?: ItemValuePairDto[];
  @ApiPropertyOptional({ type: LaunchAuthDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => LaunchAuthDto)
  launchAuth?: LaunchAuthDto;
}
