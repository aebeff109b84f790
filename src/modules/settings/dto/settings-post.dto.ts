import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { MAX_SETTING_VALUE_LENGTH } from '../setting-values';

/** SettingsIndividualSchema: values are strings on the wire, whatever the setting's type. */
export class SettingsIndividualDto {
  @ApiProperty({ example: 'PlayerLaunchType' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  settingId!: string;

  @ApiProperty({ example: 'FRAMESET', description: 'Always a string: "true", "10", "FRAMESET"' })
  @IsDefined()
  @IsString({ message: ({ property }) => `${property} must be a string (setting values are strings on the wire, e.g. "true" or "10")` })
  @MaxLength(MAX_SETTING_VALUE_LENGTH)
  value!: string;

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  explicit?: boolean;
}

/** SettingsPostSchema */
export class SettingsPostDto {
  @ApiProperty({ type: [SettingsIndividualDto] })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => SettingsIndividualDto)
  settings!: SettingsIndividualDto[];
}
