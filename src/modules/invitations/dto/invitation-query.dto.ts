import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { QueryBoolean, QueryCsv, QueryDate, QueryString } from '../../../platform/http/query-transforms';

export const INVITATION_FILTER_BY = ['invitation_id', 'course_id'] as const;
export const USER_INVITATION_FILTER_BY = ['registration_id', 'email'] as const;
export const ORDER_BY = ['created_asc', 'created_desc', 'updated_asc', 'updated_desc'] as const;

/** The common list parameters of GetAllInvitations, GetPrivateInvitations and GetPublicInvitations. */
export class InvitationListQueryDto {
  @ApiPropertyOptional() @QueryString(191) courseId?: string;
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() since?: Date;
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() until?: Date;
  @ApiPropertyOptional({ default: 'updated', enum: ['created', 'updated'] }) @IsOptional() @IsIn(['created', 'updated']) datetimeFilter?: string;
  @ApiPropertyOptional({ type: [String], description: 'comma-separated; any of' }) @QueryCsv() tags?: string[];
  @ApiPropertyOptional() @QueryString(255) filter?: string;
  @ApiPropertyOptional({ default: 'invitation_id', enum: INVITATION_FILTER_BY }) @IsOptional() @IsIn(INVITATION_FILTER_BY) filterBy?: string;
  @ApiPropertyOptional({ default: 'updated_asc', enum: ORDER_BY }) @IsOptional() @IsIn(ORDER_BY) orderBy?: string;
  @ApiPropertyOptional() @QueryString(4096) more?: string;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeTotalCount?: boolean;
  /** LCDS's own addition (the real lists have no such flag): each invitation's registrationCount, as its Get gives it. */
  @ApiPropertyOptional({ default: false, description: "LCDS extension: each invitation's registrationCount (public and private lists)" })
  @QueryBoolean()
  includeRegistrationCount?: boolean;
}

/** GetPrivateUserInvitations, GetPublicUserInvitations */
export class UserInvitationListQueryDto {
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() since?: Date;
  @ApiPropertyOptional({ format: 'date-time' }) @QueryDate() until?: Date;
  @ApiPropertyOptional({ default: 'updated', enum: ['created', 'updated'] }) @IsOptional() @IsIn(['created', 'updated']) datetimeFilter?: string;
  @ApiPropertyOptional() @QueryString(255) filter?: string;
  @ApiPropertyOptional({ default: 'registration_id', enum: USER_INVITATION_FILTER_BY }) @IsOptional() @IsIn(USER_INVITATION_FILTER_BY) filterBy?: string;
  @ApiPropertyOptional({ default: 'updated_asc', enum: ORDER_BY }) @IsOptional() @IsIn(ORDER_BY) orderBy?: string;
  @ApiPropertyOptional() @QueryString(4096) more?: string;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeRegistrationReport?: boolean;
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeTotalCount?: boolean;
}

export class InvitationGetQueryDto {
  @ApiPropertyOptional({ default: false }) @QueryBoolean() includeRegistrationCount?: boolean;
}
