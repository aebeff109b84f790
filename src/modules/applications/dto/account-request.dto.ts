import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsEmail, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** LCDS's own UpdateApplicationAccount: the registration limit and contact details; null clears a field, omitted keeps it. */
export class AccountRequestDto {
  @ApiPropertyOptional({ nullable: true, description: 'registrations the application may create per calendar month (UTC); null: no limit' })
  @IsOptional()
  @IsInt({ message: 'regLimit must be a whole number or null' })
  @Min(0)
  @Max(2_147_483_647)
  regLimit?: number | null;

  @ApiPropertyOptional({ description: 'past regLimit, CreateRegistration answers 403' })
  @IsOptional()
  @IsBoolean()
  strictLimit?: boolean;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @MaxLength(255)
  email?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  company?: string | null;
}
