import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { ApplicationConfigurationQueryDto, ApplicationConfigurationScopeDto } from './dto/configuration-query.dto';
import { SettingsPostDto } from './dto/settings-post.dto';
import { SettingsService, SettingTarget } from './settings.service';
import { Audited } from '../../platform/audit/audited.decorator';

function applicationTarget(query: ApplicationConfigurationScopeDto): SettingTarget {
  return { level: 'application', learningStandard: query.learningStandard, singleSco: query.singleSco };
}

/** The audit log names the settings a request set, never their values. */
const settingIdsOf = (body: unknown): string[] =>
  ((body as { settings?: Array<{ settingId?: unknown }> } | undefined)?.settings ?? []).map((s) => String(s.settingId));

/** The calling application's own configuration, and its learning-standard buckets. */
@ApiTags('application_management')
@Controller('appManagement/configuration')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Get()
  @ApiOperation({ operationId: 'GetApplicationConfiguration', summary: 'Every setting with its effective value at the application level (or one learning-standard bucket)' })
  @Authorize(Scope.ReadAppMgmt, Scope.Read)
  getApplicationConfiguration(@CurrentPrincipal() principal: Principal, @Query() query: ApplicationConfigurationQueryDto) {
    return this.settings.list(principal.appId, applicationTarget(query), { includeMetadata: query.includeMetadata === true });
  }

  @Post()
  @HttpCode(204)
  @ApiOperation({ operationId: 'SetApplicationConfiguration', summary: 'Sets values at the application level (or one learning-standard bucket); all or nothing' })
  @Audited({ action: 'SetApplicationConfiguration', query: ['learningStandard', 'singleSco'], fields: settingIdsOf })
  @Authorize(Scope.WriteAppMgmt, Scope.Write)
  async setApplicationConfiguration(@CurrentPrincipal() principal: Principal, @Query() query: ApplicationConfigurationScopeDto, @Body() body: SettingsPostDto) {
    await this.settings.set(principal.appId, applicationTarget(query), body.settings);
  }

  @Delete(':settingId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteApplicationConfigurationSetting', summary: 'Clears the value stored at this level; the setting inherits again' })
  @Audited({ action: 'DeleteApplicationConfigurationSetting', query: ['learningStandard', 'singleSco'] })
  @Authorize(Scope.WriteAppMgmt, Scope.Write)
  async deleteApplicationConfigurationSetting(
    @CurrentPrincipal() principal: Principal,
    @Param('settingId') settingId: string,
    @Query() query: ApplicationConfigurationScopeDto,
  ) {
    await this.settings.clear(principal.appId, applicationTarget(query), settingId);
  }
}
