import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsObject, IsOptional, IsString, MaxLength, Min, ValidateNested } from 'class-validator';
import { TagArray } from '../../tags/dto/tag-array';

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
