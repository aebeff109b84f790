import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { XAPI_AUTH_TYPES, XAPI_PERMISSIONS_LEVELS } from '../entities/xapi-credential.entity';

/**
 * The generated clients send `auth` as `{xapiCredentialAuthType: "BASICAUTH"}` and `permissionsLevel` as
 * `{xapiCredentialPermissionsLevel: "DEFAULT"}`; a hand-written client may send the bare string. Both are accepted.
 */
function unwrap(field: string) {
  return Transform(({ value }: { value: unknown }) =>
    typeof value === 'object' && value !== null && !Array.isArray(value) && field in value ? (value as Record<string, unknown>)[field] : value,
  );
}

/** XapiCredentialPostSchema: the body of CreateXapiCredential and SetXapiCredential. */
export class XapiCredentialPostDto {
  @ApiProperty()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  name!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  info?: string;

  @ApiPropertyOptional({ description: 'generated when absent or empty' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  secret?: string;

  @ApiProperty()
  @IsBoolean()
  isEnabled!: boolean;

  @ApiProperty({ description: '{xapiCredentialAuthType: BASICAUTH|OAUTH}, or the bare string' })
  @unwrap('xapiCredentialAuthType')
  @IsIn(XAPI_AUTH_TYPES, { message: `auth must be one of ${XAPI_AUTH_TYPES.join(', ')} (or {xapiCredentialAuthType: …})` })
  auth!: (typeof XAPI_AUTH_TYPES)[number];

  @ApiProperty({ description: '{xapiCredentialPermissionsLevel: DEFAULT|USER|ROOT|READONLY|WRITEONLY}, or the bare string' })
  @unwrap('xapiCredentialPermissionsLevel')
  @IsIn(XAPI_PERMISSIONS_LEVELS, { message: `permissionsLevel must be one of ${XAPI_PERMISSIONS_LEVELS.join(', ')} (or {xapiCredentialPermissionsLevel: …})` })
  permissionsLevel!: (typeof XAPI_PERMISSIONS_LEVELS)[number];
}
