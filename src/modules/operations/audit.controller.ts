import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditLog } from '../../platform/audit/audit-log.service';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { ForbiddenError } from '../../platform/http/domain-errors';
import { AuditQueryDto } from './dto/audit-query.dto';

/** LCDS's own operation: the audit log of an application (changes of its keys, credentials, pipes, configuration, erasures). */
@ApiTags('lcds')
@Controller('lcds/audit')
export class AuditController {
  constructor(private readonly audit: AuditLog) {}

  @Get()
  @ApiOperation({ operationId: 'LcdsGetAuditLog', summary: "The application's audit log, newest first, 100 entries a page (more)" })
  @Authorize(Scope.ReadAudit, Scope.Read)
  getAuditLog(@CurrentPrincipal() p: Principal, @Query() query: AuditQueryDto) {
    const appId = query.appId ?? p.appId;
    if (appId !== p.appId && !p.isManagement) throw new ForbiddenError("Only a management application reads another application's audit log");
    return this.audit.list(appId, { since: query.since?.toISOString(), until: query.until?.toISOString(), action: query.action, more: query.more });
  }
}
