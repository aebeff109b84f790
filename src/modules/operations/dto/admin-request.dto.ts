import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

/** Body of LcdsAddApplicationAdmin. */
export class AdminRequestDto {
  @ApiProperty({ description: "The administrator's e-mail address" })
  @IsString()
  @MaxLength(320)
  email!: string;
}
