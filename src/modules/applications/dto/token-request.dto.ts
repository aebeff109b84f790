import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDefined, IsISO8601, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';

/** PermissionsSchema */
export class PermissionsDto {
  @ApiProperty({ type: [String], example: ['read:course'] })
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  scopes!: string[];

  @ApiPropertyOptional({ description: 'A label kept in the token' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  applicationName?: string;
}

/** TokenRequestSchema of CreateToken: `expiry` is an absolute date-time. */
export class TokenRequestDto {
  @ApiProperty({ type: PermissionsDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PermissionsDto)
  permissions!: PermissionsDto;

  @ApiProperty({ format: 'date-time' })
  @IsDefined()
  @IsISO8601({ strict: true }, { message: 'expiry must be an ISO 8601 date-time such as 2030-01-31T12:00:00Z' })
  expiry!: string;
}

/** Form of GetAppToken (application/x-www-form-urlencoded). */
export class AppTokenFormDto {
  @ApiProperty({ description: 'Space-separated scopes', example: 'read:course write:registration' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  scope!: string;

  @ApiPropertyOptional({ description: 'Lifetime in seconds', default: 300 })
  @IsOptional()
  @Matches(/^\d{1,10}$/, { message: 'expiration must be a whole number of seconds' })
  expiration?: string;
}
