import { Controller, Get, Param, ParseIntPipe, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { InvalidInputError } from '../../platform/http/domain-errors';
import { toApiStatement } from '../xapi/xapi-statement-result';
import { XapiStatementsService } from '../xapi/xapi-statements.service';
import { StatementsQueryDto } from './dto/statements-query.dto';
import { RegistrationsService } from './registrations.service';

const INSTANCE = new ParseIntPipe({ exceptionFactory: () => new InvalidInputError('instanceId must be an integer') });

/**
 * The statements of a registration, read from the application's LRS by the registration's xapiRegistrationId
 * (`context.registration`). Instances share that id, so an instance's statements are the registration's, limited
 * to the instance's lifetime.
 */
@ApiTags('registration')
@Controller('registrations/:registrationId')
export class RegistrationStatementsController {
  constructor(
    private readonly registrations: RegistrationsService,
    private readonly statements: XapiStatementsService,
  ) {}

  @Get('xAPIStatements')
  @ApiOperation({ operationId: 'GetRegistrationStatements' })
  @Authorize(Scope.Read, Scope.ReadRegistration)
  async getRegistrationStatements(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string, @Query() q: StatementsQueryDto) {
    const reg = await this.registrations.requireRegistration(p.appId, registrationId);
    return this.page(p.appId, reg.xapiRegistrationId, q);
  }

  @Get('instances/:instanceId/xAPIStatements')
  @ApiOperation({ operationId: 'GetRegistrationInstanceStatements' })
  @Authorize(Scope.Read, Scope.ReadRegistration)
  async getRegistrationInstanceStatements(
    @CurrentPrincipal() p: Principal,
    @Param('registrationId') registrationId: string,
    @Param('instanceId', INSTANCE) instanceId: number,
    @Query() q: StatementsQueryDto,
  ) {
    const reg = await this.registrations.requireRegistration(p.appId, registrationId);
    const instance = await this.registrations.requireInstance(p.appId, reg, instanceId);
    const since = q.since && q.since > instance.createdAt ? q.since : instance.createdAt;
    return this.page(p.appId, reg.xapiRegistrationId, { ...q, since });
  }

  private async page(appId: string, registration: string, q: StatementsQueryDto) {
    const page = await this.statements.query(appId, { registration, since: q.since, until: q.until, ascending: true }, q.more);
    return { statements: page.statements.map(toApiStatement), ...(page.more ? { more: page.more } : {}) };
  }
}
