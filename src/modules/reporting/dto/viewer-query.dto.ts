import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { QueryBoolean } from '../../../platform/http/query-transforms';
import { NAV_PERMISSIONS, NavPermission } from '../viewer-pages';

/** Query of GetReportageAuthToken (and the contract's getViewerAuthToken). */
export class ViewerAuthQueryDto {
  @ApiProperty({ enum: NAV_PERMISSIONS, description: 'NONAV: only the linked page; DOWNONLY: the linked page and what lies below it; FREENAV: every page' })
  @IsIn(NAV_PERMISSIONS, { message: `navPermission must be one of ${NAV_PERMISSIONS.join(', ')}` })
  navPermission!: NavPermission;

  @ApiPropertyOptional({ default: false })
  @QueryBoolean()
  admin?: boolean;
}

/** Query of GetReportageLink (and the contract's getViewerLink). */
export class ViewerLinkQueryDto {
  @ApiProperty({ description: 'the queryString GetReportageAuthToken answered' })
  @IsString()
  @IsNotEmpty({ message: 'auth is required' })
  @MaxLength(4000)
  auth!: string;

  @ApiProperty({ description: 'a page of the report viewer: PUBLIC_URL/reports/ (the application), …/reports/courses/{courseId}, …/reports/learners/{learnerId}, …/reports/registrations/{registrationId}' })
  @IsString()
  @IsNotEmpty({ message: 'reportUrl is required' })
  @MaxLength(4000)
  reportUrl!: string;
}
