import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthorizeManagement } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { setTotalCount } from '../../platform/http/total-count';
import { ApplicationsService } from './applications.service';
import { CredentialsService } from './credentials.service';
import { ApplicationInfoQueryDto, ApplicationListQueryDto } from './dto/application-list-query.dto';
import { ApplicationRequestDto } from './dto/application-request.dto';
import { CredentialRequestDto } from './dto/credential-request.dto';
import { UpdateApplicationRequestDto } from './dto/update-application-request.dto';
import { Audited } from '../../platform/audit/audited.decorator';

@ApiTags('application_management')
@Controller('appManagement')
export class ApplicationsController {
  constructor(
    private readonly applications: ApplicationsService,
    private readonly credentials: CredentialsService,
  ) {}

  @Get('applicationList')
  @ApiOperation({ operationId: 'GetApplications', summary: 'Applications of the installation, paged and filtered' })
  @AuthorizeManagement(Scope.ReadAppMgmt, Scope.Read)
  async getApplications(@CurrentPrincipal() principal: Principal, @Query() query: ApplicationListQueryDto, @Res({ passthrough: true }) res: Response) {
    const { applications, more, total } = await this.applications.list(principal.appId, query);
    setTotalCount(res, total);
    return more ? { applications, more } : { applications };
  }

  @Get('applications')
  @ApiOperation({ operationId: 'GetApplicationList', deprecated: true, summary: 'Deprecated: use GetApplications' })
  @AuthorizeManagement(Scope.ReadAppMgmt, Scope.Read)
  async getApplicationList() {
    return { applications: await this.applications.listAll() };
  }

  @Post('applications')
  @HttpCode(200)
  @ApiOperation({ operationId: 'CreateApplication' })
  @Audited({ action: 'CreateApplication', appFromResult: (r) => (r as { id: string }).id })
  @AuthorizeManagement(Scope.WriteAppMgmt, Scope.Write)
  async createApplication(@Body() body: ApplicationRequestDto) {
    const { app } = await this.applications.create({ name: body.name });
    return { id: app.id, name: app.name };
  }

  @Get('applications/:childAppId')
  @ApiOperation({ operationId: 'GetApplicationInfo' })
  @AuthorizeManagement(Scope.ReadAppMgmt, Scope.Read)
  getApplicationInfo(@Param('childAppId') childAppId: string, @Query() query: ApplicationInfoQueryDto) {
    return this.applications.info(childAppId, query);
  }

  @Put('applications/:childAppId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'UpdateApplication' })
  @Audited({ action: 'UpdateApplication', appParam: 'childAppId' })
  @AuthorizeManagement(Scope.WriteAppMgmt, Scope.Write)
  async updateApplication(@Param('childAppId') childAppId: string, @Body() body: UpdateApplicationRequestDto) {
    await this.applications.update(childAppId, body);
  }

  @Delete('applications/:childAppId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteApplication' })
  @Audited({ action: 'DeleteApplication', appParam: 'childAppId' })
  @AuthorizeManagement(Scope.DeleteAppMgmt, Scope.Delete)
  async deleteApplication(@CurrentPrincipal() principal: Principal, @Param('childAppId') childAppId: string) {
    await this.applications.delete(childAppId, principal.appId);
  }

  @Get(':childAppId/credentials')
  @ApiOperation({ operationId: 'GetCredentials' })
  @AuthorizeManagement(Scope.ReadAppMgmt, Scope.Read)
  async getCredentials(@Param('childAppId') childAppId: string) {
    return { credentials: await this.credentials.list(childAppId) };
  }

  @Post(':childAppId/credentials')
  @HttpCode(200)
  @ApiOperation({ operationId: 'CreateCredential' })
  @Audited({ action: 'CreateCredential', appParam: 'childAppId', created: { target: 'credentialId', id: (r) => (r as { id: string }).id } })
  @AuthorizeManagement(Scope.WriteAppMgmt, Scope.Write)
  createCredential(@Param('childAppId') childAppId: string, @Body() body: CredentialRequestDto) {
    return this.credentials.create(childAppId, body);
  }

  @Put(':childAppId/credentials/:credentialId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'UpdateCredential' })
  @Audited({ action: 'UpdateCredential', appParam: 'childAppId' })
  @AuthorizeManagement(Scope.WriteAppMgmt, Scope.Write)
  async updateCredential(@Param('childAppId') childAppId: string, @Param('credentialId') credentialId: string, @Body() body: CredentialRequestDto) {
    await this.credentials.update(childAppId, credentialId, body);
  }

  @Delete(':childAppId/credentials/:credentialId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteCredential' })
  @Audited({ action: 'DeleteCredential', appParam: 'childAppId' })
  @AuthorizeManagement(Scope.DeleteAppMgmt, Scope.Delete)
  async deleteCredential(@Param('childAppId') childAppId: string, @Param('credentialId') credentialId: string) {
    await this.credentials.delete(childAppId, credentialId);
  }
}
