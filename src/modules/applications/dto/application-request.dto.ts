import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** ApplicationRequestSchema */
export class ApplicationRequestDto {
  @ApiProperty({ example: 'Production' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name!: string;
}
