import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { setTotalCount } from '../../platform/http/total-count';
import { XapiCredentialListQueryDto } from './dto/xapi-credential-list-query.dto';
import { XapiCredentialPostDto } from './dto/xapi-credential.dto';
import { XapiCredentialsService } from './xapi-credentials.service';
import { Audited } from '../../platform/audit/audited.decorator';

const XR = [Scope.Read, Scope.ReadXapiCredential] as const;
const XW = [Scope.WriteXapiCredential, Scope.Write] as const;
const XD = [Scope.DeleteXapiCredential, Scope.Delete] as const;

@ApiTags('xapi')
@Controller('xapi/credentials')
export class XapiCredentialsController {
  constructor(private readonly credentials: XapiCredentialsService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'CreateXapiCredential' })
  @Audited({ action: 'CreateXapiCredential', created: { target: 'xapiCredentialId', id: (r) => (r as { result: string }).result } })
  @Authorize(...XW)
  async createXapiCredential(@CurrentPrincipal() p: Principal, @Body() body: XapiCredentialPostDto) {
    return { result: await this.credentials.create(p.appId, body) };
  }

  @Get()
  @ApiOperation({ operationId: 'GetXapiCredentials' })
  @Authorize(...XR)
  async getXapiCredentials(@CurrentPrincipal() p: Principal, @Query() query: XapiCredentialListQueryDto, @Res({ passthrough: true }) res: Response) {
    const { xapiCredentials, more, total } = await this.credentials.list(p.appId, query);
    setTotalCount(res, total);
    return more ? { xapiCredentials, more } : { xapiCredentials };
  }

  @Get(':xapiCredentialId')
  @ApiOperation({ operationId: 'GetXapiCredential' })
  @Authorize(...XR)
  getXapiCredential(@CurrentPrincipal() p: Principal, @Param('xapiCredentialId') id: string) {
    return this.credentials.get(p.appId, id);
  }

  @Put(':xapiCredentialId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'SetXapiCredential' })
  @Audited({ action: 'SetXapiCredential' })
  @Authorize(...XW)
  async setXapiCredential(@CurrentPrincipal() p: Principal, @Param('xapiCredentialId') id: string, @Body() body: XapiCredentialPostDto) {
    await this.credentials.set(p.appId, id, body);
  }

  @Delete(':xapiCredentialId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteXapiCredential' })
  @Audited({ action: 'DeleteXapiCredential' })
  @Authorize(...XD)
  async deleteXapiCredential(@CurrentPrincipal() p: Principal, @Param('xapiCredentialId') id: string) {
    await this.credentials.delete(p.appId, id);
  }
}
