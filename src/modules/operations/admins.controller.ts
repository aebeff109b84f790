import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Audited } from '../../platform/audit/audited.decorator';
import { AuthorizeManagement } from '../../platform/auth/authorize.decorator';
import { Scope } from '../../platform/auth/scopes';
import { NotFoundError } from '../../platform/http/domain-errors';
import { ApplicationsService } from '../applications/applications.service';
import { ApplicationAdminsService } from '../learners/application-admins.service';
import { AdminRequestDto } from './dto/admin-request.dto';

/**
 * LCDS's own operations: an application's administrators, the addresses DeleteAllLearnerData accepts as userEmail
 * (what `lcds apps admins` manages), for management applications.
 */
@ApiTags('lcds')
@Controller('lcds/applications/:childAppId/admins')
export class AdminsController {
  constructor(
    private readonly admins: ApplicationAdminsService,
    private readonly applications: ApplicationsService,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'LcdsGetApplicationAdmins', summary: "An application's administrators' e-mail addresses" })
  @AuthorizeManagement(Scope.ReadAppMgmt, Scope.Read)
  async getAdmins(@Param('childAppId') appId: string) {
    await this.applications.account(appId);
    return { admins: await this.admins.list(appId) };
  }

  @Post()
  @HttpCode(204)
  @ApiOperation({ operationId: 'LcdsAddApplicationAdmin', summary: 'Makes an address an administrator of the application' })
  @Audited({ action: 'LcdsAddApplicationAdmin', appParam: 'childAppId', bodyTargets: ['email'] })
  @AuthorizeManagement(Scope.WriteAppMgmt, Scope.Write)
  async addAdmin(@Param('childAppId') appId: string, @Body() body: AdminRequestDto): Promise<void> {
    await this.applications.account(appId);
    await this.admins.add(appId, body.email);
  }

  @Delete(':email')
  @HttpCode(204)
  @ApiOperation({ operationId: 'LcdsRemoveApplicationAdmin', summary: 'Removes an administrator of the application' })
  @Audited({ action: 'LcdsRemoveApplicationAdmin', appParam: 'childAppId' })
  @AuthorizeManagement(Scope.DeleteAppMgmt, Scope.Delete)
  async removeAdmin(@Param('childAppId') appId: string, @Param('email') email: string): Promise<void> {
    await this.applications.account(appId);
    if (!(await this.admins.remove(appId, email))) throw new NotFoundError('Administrator', email);
  }
}
