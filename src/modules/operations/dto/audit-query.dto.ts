import { ApiPropertyOptional } from '@nestjs/swagger';
import { QueryDate, QueryString } from '../../../platform/http/query-transforms';

/** Query of LcdsGetAuditLog. */
export class AuditQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'Entries at or after this time' }) @QueryDate() since?: Date;
  @ApiPropertyOptional({ format: 'date-time', description: 'Entries at or before this time' }) @QueryDate() until?: Date;
  @ApiPropertyOptional({ description: 'Only this action (an operationId such as CreateCredential)' }) @QueryString(64) action?: string;
  @ApiPropertyOptional({ description: "A management application: another application's log" }) @QueryString(191) appId?: string;
  @ApiPropertyOptional() @QueryString(4096) more?: string;
}

/** Query of LcdsGetFailedJobs. */
export class FailedJobsQueryDto {
  @ApiPropertyOptional() @QueryString(4096) more?: string;
}
