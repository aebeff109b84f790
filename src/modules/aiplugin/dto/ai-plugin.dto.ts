import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

/**
 * The contract's AiPluginCompanyId and the real API's ZoomiCompanyId: any of the fields names the company
 * (`zoomiCompanyId` is what the official JavaScript client sends: its model's property name).
 */
export class AiPluginCompanyIdDto {
  @ApiPropertyOptional({ description: "the application's company id at the partner (the real API's name)" })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  zoomi_company_id?: string;

  @ApiPropertyOptional({ description: 'the same, as the official JavaScript client sends it' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  zoomiCompanyId?: string;

  @ApiPropertyOptional({ description: 'the same, by the contract’s name' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  companyId?: string;
}

/** The real API's ZoomiCourseOptionsSchema. */
export class AiPluginCourseOptionsDto {
  @ApiProperty()
  @IsString()
  @MaxLength(255)
  nti!: string;

  @ApiProperty()
  @IsString()
  @MaxLength(255)
  cta!: string;
}

/** The contract's AiPluginCourseOptionsSchema (optional body of setCourseAiPluginEnabled), and EnabledSchema. */
export class AiPluginEnabledDto {
  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(255)
  nti?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(255)
  cta?: string;
}
