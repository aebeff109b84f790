import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsISO8601, IsNotEmpty, IsObject, IsOptional, IsString, Max, MaxLength, Min, ValidateIf, ValidateNested } from 'class-validator';
import { PostBackDto } from '../../registrations/dto/registration.dto';
import { MAX_TAG_LENGTH, MAX_TAGS_PER_CALL } from '../../tags/tag-rules';
import { DUPLICATE_OPTIONS } from '../entities/invitation.entity';

/** Addresses one private invitation may list. */
export const MAX_INVITATION_ADDRESSES = 100_000;

/** InvitationEmailSchema */
export class InvitationEmailDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(998) subject?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100_000) body?: string;
  @ApiProperty({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_INVITATION_ADDRESSES)
  @IsString({ each: true })
  addresses?: string[];
}

class InvitationCommonDto {
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(191) courseId!: string;
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(320) creatingUserEmail!: string;
  @ApiPropertyOptional({ type: PostBackDto }) @IsOptional() @IsObject() @ValidateNested() @Type(() => PostBackDto) postBack?: PostBackDto;
  @ApiPropertyOptional({ format: 'date-time' }) @IsOptional() @IsISO8601({ strict: true }, { message: 'expirationDate must be an ISO 8601 date-time' }) expirationDate?: string;
  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_TAGS_PER_CALL)
  @IsString({ each: true })
  @MaxLength(MAX_TAG_LENGTH, { each: true })
  tags?: string[];
}

/** CreatePublicInvitationSchema */
export class CreatePublicInvitationDto extends InvitationCommonDto {
  @ApiPropertyOptional({ default: 0 }) @IsOptional() @IsInt() @Min(0) @Max(2_147_483_647) registrationCap?: number;
}

/** CreatePrivateInvitationSchema */
export class CreatePrivateInvitationDto extends InvitationCommonDto {
  @ApiProperty({ type: InvitationEmailDto }) @IsDefined() @IsObject() @ValidateNested() @Type(() => InvitationEmailDto) invitationEmail!: InvitationEmailDto;
  @ApiPropertyOptional({ enum: DUPLICATE_OPTIONS, default: 'SEND_EXISTING' }) @IsOptional() @IsIn(DUPLICATE_OPTIONS) duplicateRegistrationOption?: (typeof DUPLICATE_OPTIONS)[number];
}

/** What both update schemas carry; the fields of the whole invitation schemas that do not change are accepted and ignored. */
class UpdateInvitationCommonDto {
  @ApiPropertyOptional() @IsOptional() @IsBoolean() allowLaunch?: boolean;
  @ApiPropertyOptional({ type: PostBackDto }) @IsOptional() @IsObject() @ValidateNested() @Type(() => PostBackDto) postBack?: PostBackDto;
  @ApiPropertyOptional({ format: 'date-time', nullable: true })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsISO8601({ strict: true }, { message: 'expirationDate must be an ISO 8601 date-time' })
  expirationDate?: string | null;
  @Allow() id?: unknown;
  @Allow() courseId?: unknown;
  @Allow() createDate?: unknown;
  @Allow() updated?: unknown;
  @Allow() registrationCount?: unknown;
}

/**
 * PrivateInvitationUpdateSchema; a whole PrivateInvitationSchema is accepted too, and its other fields are ignored
 * (the contract: only the updatable attributes are considered).
 */
export class UpdatePrivateInvitationDto extends UpdateInvitationCommonDto {
  @ApiPropertyOptional({ type: InvitationEmailDto }) @IsOptional() @IsObject() @ValidateNested() @Type(() => InvitationEmailDto) invitationEmail?: InvitationEmailDto;
}

/** PublicInvitationUpdateSchema (or a whole PublicInvitationSchema, whose other fields are ignored). */
export class UpdatePublicInvitationDto extends UpdateInvitationCommonDto {
  @ApiPropertyOptional() @IsOptional() @IsBoolean() allowNewRegistrations?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) @Max(2_147_483_647) registrationCap?: number;
  @Allow() invitationEmail?: unknown;
  @Allow() url?: unknown;
}
