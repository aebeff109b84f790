import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, MaxLength } from 'class-validator';
import { IsOmittable } from '../../../platform/http/validation';

/** CredentialRequestSchema */
export class CredentialRequestDto {
  @ApiPropertyOptional()
  @IsOmittable()
  @IsString()
  @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({ default: true })
  @IsOmittable()
  @IsBoolean()
  active?: boolean;
}
