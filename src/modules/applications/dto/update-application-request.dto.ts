import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { IsOmittable } from '../../../platform/http/validation';

/** UpdateApplicationSchema */
export class UpdateApplicationRequestDto {
  @ApiPropertyOptional()
  @IsOmittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name?: string;

  @ApiPropertyOptional()
  @IsOmittable()
  @IsBoolean()
  allowDelete?: boolean;
}
