import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsISO8601, IsNotEmpty, IsObject, IsOptional, IsString, Max, MaxLength, Min, ValidateIf, ValidateNested } from 'class-validator';
import { PostBackDto } from '../../registrations/dto/registration.dto';
import { MAX_TAG_LENGTH, MAX_TAGS_PER_CALL } from '../../tags/tag-rules';

const MAX_INT32 = 2_147_483_647;
/** Destinations or dispatches one create call may carry. */
export const MAX_CREATE_BATCH = 1000;

/** LaunchAuthOptionsSchema */
export class LaunchAuthOptionsDto {
  @ApiPropertyOptional() @IsOptional() @IsBoolean() ipAddress?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() fingerprint?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) @Max(MAX_INT32) expiry?: number;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) @Max(MAX_INT32) slidingExpiry?: number;
}

/** LaunchAuthSchema */
export class LaunchAuthDto {
  @ApiPropertyOptional({ enum: ['cookies', 'vault'], default: 'cookies' }) @IsOptional() @IsIn(['cookies', 'vault', 'COOKIES', 'VAULT']) type?: string;
  @ApiPropertyOptional({ type: LaunchAuthOptionsDto }) @IsOptional() @IsObject() @ValidateNested() @Type(() => LaunchAuthOptionsDto) options?: LaunchAuthOptionsDto;
}

/** Lti13PlatformConfigurationSchema */
export class Lti13PlatformDto {
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(255) clientId!: string;
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(1024) platformIssuerIdentifier!: string;
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(255) deploymentId!: string;
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(2048) oidcAuthorizationEndpoint!: string;
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(2048) jsonWebKeySetUrl!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) accessTokenUrl?: string;
}

function TagsField(): PropertyDecorator {
  return (target: object, key: string | symbol) => {
    for (const d of [ApiPropertyOptional({ type: [String] }), IsOptional(), IsArray(), ArrayMaxSize(MAX_TAGS_PER_CALL), IsString({ each: true }), MaxLength(MAX_TAG_LENGTH, { each: true })]) d(target, key);
  };
}

/** DestinationSchema (created and updated are the service's and ignored). */
export class DestinationDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(255) name?: string;
  @TagsField() tags?: string[];
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(320) email?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(65_535) notes?: string;
  @ApiPropertyOptional({ type: LaunchAuthDto }) @IsOptional() @IsObject() @ValidateNested() @Type(() => LaunchAuthDto) launchAuth?: LaunchAuthDto;
  @ApiPropertyOptional({ type: Lti13PlatformDto }) @IsOptional() @IsObject() @ValidateNested() @Type(() => Lti13PlatformDto) lti13Data?: Lti13PlatformDto;
  @Allow() created?: unknown;
  @Allow() updated?: unknown;
  @Allow() dispatchCount?: unknown;
}

/** DestinationIdSchema */
export class DestinationIdDto {
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(191) id!: string;
  @ApiProperty({ type: DestinationDto }) @IsDefined() @IsObject() @ValidateNested() @Type(() => DestinationDto) data!: DestinationDto;
}

/** DestinationListSchema */
export class DestinationListDto {
  @ApiProperty({ type: [DestinationIdDto] })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_CREATE_BATCH)
  @ValidateNested({ each: true })
  @Type(() => DestinationIdDto)
  destinations!: DestinationIdDto[];
}

/** CreateDispatchSchema */
export class CreateDispatchDto {
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(191) destinationId!: string;
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(191) courseId!: string;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() allowNewRegistrations?: boolean;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() instanced?: boolean;
  @ApiPropertyOptional({ default: 0 }) @IsOptional() @IsInt() @Min(0) @Max(MAX_INT32) registrationCap?: number;
  @ApiPropertyOptional({ format: 'date-time' }) @IsOptional() @IsISO8601({ strict: true }, { message: 'expirationDate must be an ISO 8601 date-time' }) expirationDate?: string;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() enabled?: boolean;
  @TagsField() tags?: string[];
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(320) email?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(65_535) notes?: string;
  @ApiPropertyOptional({ type: PostBackDto }) @IsOptional() @IsObject() @ValidateNested() @Type(() => PostBackDto) postBack?: PostBackDto;
}

/** CreateDispatchIdSchema */
export class CreateDispatchIdDto {
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(191) id!: string;
  @ApiProperty({ type: CreateDispatchDto }) @IsDefined() @IsObject() @ValidateNested() @Type(() => CreateDispatchDto) data!: CreateDispatchDto;
}

/** CreateDispatchListSchema */
export class CreateDispatchListDto {
  @ApiProperty({ type: [CreateDispatchIdDto] })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_CREATE_BATCH)
  @ValidateNested({ each: true })
  @Type(() => CreateDispatchIdDto)
  dispatches!: CreateDispatchIdDto[];
}

/** UpdateDispatchSchema; the other fields of a whole DispatchSchema are accepted and ignored. */
export class UpdateDispatchDto {
  @ApiPropertyOptional() @IsOptional() @IsBoolean() allowNewRegistrations?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() instanced?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) @Max(MAX_INT32) registrationCap?: number;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) @Max(MAX_INT32) registrationCount?: number;
  @ApiPropertyOptional({ format: 'date-time', nullable: true })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsISO8601({ strict: true }, { message: 'expirationDate must be an ISO 8601 date-time' })
  expirationDate?: string | null;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(320) email?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(65_535) notes?: string;
  @ApiPropertyOptional({ type: PostBackDto }) @IsOptional() @IsObject() @ValidateNested() @Type(() => PostBackDto) postBack?: PostBackDto;
  @Allow() destinationId?: unknown;
  @Allow() destinationName?: unknown;
  @Allow() courseId?: unknown;
  @Allow() courseTitle?: unknown;
  @Allow() created?: unknown;
  @Allow() updated?: unknown;
  @Allow() tags?: unknown;
}

/** EnabledSchema */
export class EnabledDto {
  @ApiProperty() @IsDefined({ message: 'enabled is required' }) @IsBoolean() enabled!: boolean;
}
