import { Body, Controller, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthorizeManagement } from '../../platform/auth/authorize.decorator';
import { Scope } from '../../platform/auth/scopes';
import { ApplicationsService } from './applications.service';
import { AccountRequestDto } from './dto/account-request.dto';
import { Audited } from '../../platform/audit/audited.decorator';

/** LCDS's own operations: an application's registration limit and contact details (what GetAccountInfo reports). */
@ApiTags('lcds')
@Controller('lcds/applications/:childAppId/account')
export class ApplicationAccountController {
  constructor(private readonly applications: ApplicationsService) {}

  @Get()
  @ApiOperation({ operationId: 'LcdsGetApplicationAccount', summary: "An application's registration limit and contact details" })
  @AuthorizeManagement(Scope.ReadAppMgmt, Scope.Read)
  async get(@Param('childAppId') appId: string) {
    const a = await this.applications.account(appId);
    return { appId: a.id, regLimit: a.regLimit, strictLimit: a.strictLimit, email: a.contactEmail, company: a.contactCompany };
  }

  @Put()
  @HttpCode(204)
  @ApiOperation({ operationId: 'LcdsUpdateApplicationAccount', summary: "Sets an application's registration limit and contact details (null clears a field)" })
  @Audited({ action: 'LcdsUpdateApplicationAccount', appParam: 'childAppId' })
  @AuthorizeManagement(Scope.WriteAppMgmt, Scope.Write)
  async update(@Param('childAppId') appId: string, @Body() body: AccountRequestDto): Promise<void> {
    await this.applications.updateAccount(appId, { regLimit: body.regLimit, strictLimit: body.strictLimit, email: body.email, company: body.company });
  }
}
