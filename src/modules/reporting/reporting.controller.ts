import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { ForbiddenError } from '../../platform/http/domain-errors';
import { ViewerAuthQueryDto, ViewerLinkQueryDto } from './dto/viewer-query.dto';
import { AccountInfoView, ReportingService } from './reporting.service';

/**
 * The Reporting service, at the contract's paths (accountInfo, viewerAuth, viewerLink) and at the real API's
 * (reportageAuth, reportageLink), which answer the same.
 */
@ApiTags('reporting')
@Controller('reporting')
export class ReportingController {
  constructor(private readonly reporting: ReportingService) {}

  @Get('accountInfo')
  @ApiOperation({ operationId: 'GetAccountInfo', summary: "The application's account: registrations this month and in all, courses, registration limit, contact" })
  @Authorize(Scope.Read, Scope.ReadReporting)
  accountInfo(@CurrentPrincipal() principal: Principal): Promise<AccountInfoView> {
    return this.reporting.accountInfo(principal.appId);
  }

  @Get('reportageAuth')
  @ApiOperation({ operationId: 'GetReportageAuthToken', summary: 'A short-lived grant to open the report viewer, as a query string for GetReportageLink' })
  @Authorize(Scope.Read, Scope.ReadReporting)
  reportageAuth(@CurrentPrincipal() principal: Principal, @Query() query: ViewerAuthQueryDto) {
    this.refuseViewer(principal);
    return this.reporting.authToken(principal.appId, query.navPermission, query.admin === true);
  }

  @Get('viewerAuth')
  @ApiOperation({ operationId: 'GetViewerAuthToken', summary: 'The contract’s name of GetReportageAuthToken' })
  @Authorize(Scope.Read, Scope.ReadReporting)
  viewerAuth(@CurrentPrincipal() principal: Principal, @Query() query: ViewerAuthQueryDto) {
    return this.reportageAuth(principal, query);
  }

  @Get('reportageLink')
  @ApiOperation({ operationId: 'GetReportageLink', summary: 'An authenticated link that opens a page of the report viewer (PUBLIC_URL/reports/…)' })
  @Authorize(Scope.Read, Scope.ReadReporting)
  reportageLink(@CurrentPrincipal() principal: Principal, @Query() query: ViewerLinkQueryDto) {
    this.refuseViewer(principal);
    return this.reporting.link(principal.appId, query.auth, query.reportUrl);
  }

  @Get('viewerLink')
  @ApiOperation({ operationId: 'GetViewerLink', summary: 'The contract’s name of GetReportageLink' })
  @Authorize(Scope.Read, Scope.ReadReporting)
  viewerLink(@CurrentPrincipal() principal: Principal, @Query() query: ViewerLinkQueryDto) {
    return this.reportageLink(principal, query);
  }

  /** A viewer link's own token cannot make links (it would widen its navPermission). */
  private refuseViewer(principal: Principal): void {
    if (principal.viewer) throw new ForbiddenError('A report viewer link cannot make report viewer links');
  }
}
