import { ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { LaunchLinkRequestDto } from '../../player/dto/launch-link-request.dto';

/**
 * PreviewLaunchLinkRequestSchema (expiry, redirectOnExitUrl, startSco, culture, cssUrl, additionalvalues). The
 * official clients send a LaunchLinkRequestSchema here, so its other fields are accepted too; a preview records
 * nothing, whatever `tracking` says.
 */
export class PreviewLaunchLinkRequestDto extends OmitType(LaunchLinkRequestDto, ['redirectOnExitUrl'] as const) {
  @ApiPropertyOptional({ description: 'Absolute http(s) URL, or one of closer, blank, message' }) @IsOptional() @IsString() @MaxLength(2048) redirectOnExitUrl?: string;
}
