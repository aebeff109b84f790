import { Body, Controller, Delete, Get, Head, HttpCode, Param, ParseIntPipe, Post, Put, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { InvalidInputError } from '../../platform/http/domain-errors';
import { setTotalCount } from '../../platform/http/total-count';
import { IncludeMetadataQueryDto } from '../courses/dto/course-params.dto';
import { SettingsPostDto } from '../settings/dto/settings-post.dto';
import { SettingsService } from '../settings/settings.service';
import { BatchTagsDto, TagListDto } from '../tags/dto/tags.dto';
import { TagsService } from '../tags/tags.service';
import { LaunchLinkRequestDto } from '../player/dto/launch-link-request.dto';
import { CreateRegistrationDto, CreateRegistrationQueryDto, PostBackDto } from './dto/registration.dto';
import { LaunchHistoryQueryDto, RegistrationIncludeQueryDto, RegistrationInstancesQueryDto, RegistrationListQueryDto } from './dto/registration-query.dto';
import { activityIdsOf, LaunchLinks, launchOptionsOf } from '../player/launch-links';
import { RegistrationRestarts } from './registration-restarts';
import { POSTBACK_REQUEST_SETTING_IDS, postbackOptionsOf, RegistrationPostback } from './registration-postback';
import { RegistrationsService } from './registrations.service';
import { RegistrationCreation } from './registration-creation';

const R = [Scope.Read, Scope.ReadRegistration] as const;
const W = [Scope.Write, Scope.WriteRegistration] as const;
const D = [Scope.Delete, Scope.DeleteRegistration] as const;
const INSTANCE = new ParseIntPipe({ exceptionFactory: () => new InvalidInputError('instanceId must be an integer') });

@ApiTags('registration')
@Controller('registrations')
export class RegistrationsController {
  constructor(
    private readonly registrations: RegistrationsService,
    private readonly creation: RegistrationCreation,
    private readonly tags: TagsService,
    private readonly settings: SettingsService,
    private readonly postback: RegistrationPostback,
    private readonly launchLinks: LaunchLinks,
    private readonly restarts: RegistrationRestarts,
  ) {}

  @Post()
  @HttpCode(204)
  @ApiOperation({ operationId: 'CreateRegistration' })
  @Authorize(...W)
  async createRegistration(@CurrentPrincipal() p: Principal, @Body() body: CreateRegistrationDto, @Query() query: CreateRegistrationQueryDto) {
    await this.creation.create(p.appId, body, query.courseVersion);
  }

  @Get()
  @ApiOperation({ operationId: 'GetRegistrations' })
  @Authorize(...R)
  async getRegistrations(@CurrentPrincipal() p: Principal, @Query() query: RegistrationListQueryDto, @Res({ passthrough: true }) res: Response) {
    const { registrations, more, total } = await this.registrations.list(p.appId, query);
    setTotalCount(res, total);
    return more ? { registrations, more } : { registrations };
  }

  @Put('tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'PutRegistrationTagsBatch' })
  @Authorize(...W)
  async putRegistrationTagsBatch(@CurrentPrincipal() p: Principal, @Body() body: BatchTagsDto) {
    for (const id of body.ids) await this.registrations.requireRegistration(p.appId, id);
    await this.tags.addBatch(p.appId, 'registration', body.ids, body.tags);
  }

  @Post('postBackTest')
  @HttpCode(204)
  @ApiOperation({ operationId: 'TestRegistrationPostback' })
  @Authorize(...W)
  async testRegistrationPostback(@CurrentPrincipal() p: Principal, @Body() body: PostBackDto) {
    await this.postback.send(body, this.postback.dummy(), undefined, postbackOptionsOf(await this.settings.effective(p.appId, { level: 'application' }, POSTBACK_REQUEST_SETTING_IDS)));
  }

  // HEAD before GET: Express lets a GET route answer HEAD requests when it is matched first.
  @Head(':registrationId')
  @ApiOperation({ operationId: 'GetRegistration' })
  @Authorize(...R)
  async getRegistration(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string) {
    await this.registrations.exists(p.appId, registrationId);
  }

  @Get(':registrationId')
  @ApiOperation({ operationId: 'GetRegistrationProgress' })
  @Authorize(...R)
  getRegistrationProgress(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string, @Query() query: RegistrationIncludeQueryDto) {
    return this.registrations.progress(p.appId, registrationId, query);
  }

  @Delete(':registrationId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteRegistration' })
  @Authorize(...D)
  async deleteRegistration(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string) {
    await this.registrations.delete(p.appId, registrationId);
  }

  @Post(':registrationId/launchLink')
  @HttpCode(200)
  @ApiOperation({ operationId: 'BuildRegistrationLaunchLink' })
  @Authorize(...R)
  async buildRegistrationLaunchLink(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string, @Body() body: LaunchLinkRequestDto) {
    const reg = await this.registrations.requireRegistration(p.appId, registrationId);
    // The options are checked against the instance as it is, before WhenToRestartRegistration may start another.
    const current = await this.registrations.requireInstance(p.appId, reg);
    const options = launchOptionsOf(body, () => activityIdsOf(current.activityDetails, (n) => n.id));
    const inst = await this.restarts.instanceToLaunch(p.appId, reg, current);
    // A launchAuth that names no type takes the LaunchAuthType setting (cookies unless configured vault).
    let launchAuth = body.launchAuth;
    if (launchAuth && !launchAuth.type) {
      const target = await this.registrations.settingTargetOf(p.appId, reg, inst, true);
      const type = (await this.settings.effective(p.appId, target, ['LaunchAuthType'])).get('LaunchAuthType')?.toLowerCase() === 'vault' ? 'vault' : 'cookies';
      launchAuth = { ...launchAuth, type };
    }
    const launchLink = await this.launchLinks.issue({
      ...options,
      appId: p.appId,
      target: { kind: 'registration', registrationId, instance: inst.instance },
      tracking: body.tracking !== false,
      launchAuth,
    });
    return { launchLink };
  }

  @Get(':registrationId/instances')
  @ApiOperation({ operationId: 'GetRegistrationInstances' })
  @Authorize(...R)
  async getRegistrationInstances(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string, @Query() query: RegistrationInstancesQueryDto) {
    const { registrations, more } = await this.registrations.listInstances(p.appId, registrationId, query);
    return more ? { registrations, more } : { registrations };
  }

  @Post(':registrationId/instances')
  @HttpCode(204)
  @ApiOperation({ operationId: 'CreateNewRegistrationInstance' })
  @Authorize(...W)
  async createNewRegistrationInstance(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string) {
    await this.registrations.createInstance(p.appId, registrationId);
  }

  @Get(':registrationId/instances/:instanceId')
  @ApiOperation({ operationId: 'GetRegistrationInstanceProgress' })
  @Authorize(...R)
  getRegistrationInstanceProgress(
    @CurrentPrincipal() p: Principal,
    @Param('registrationId') registrationId: string,
    @Param('instanceId', INSTANCE) instanceId: number,
    @Query() query: RegistrationIncludeQueryDto,
  ) {
    return this.registrations.progress(p.appId, registrationId, query, instanceId);
  }

  @Delete(':registrationId/instances/:instanceId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteRegistrationInstance' })
  @Authorize(...D)
  async deleteRegistrationInstance(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string, @Param('instanceId', INSTANCE) instanceId: number) {
    await this.registrations.deleteInstance(p.appId, registrationId, instanceId);
  }

  @Get(':registrationId/instances/:instanceId/launchHistory')
  @ApiOperation({ operationId: 'GetRegistrationInstanceLaunchHistory' })
  @Authorize(...R)
  getRegistrationInstanceLaunchHistory(
    @CurrentPrincipal() p: Principal,
    @Param('registrationId') registrationId: string,
    @Param('instanceId', INSTANCE) instanceId: number,
    @Query() query: LaunchHistoryQueryDto,
  ) {
    return this.registrations.launchHistory(p.appId, registrationId, query.includeHistoryLog === true, instanceId);
  }

  @Get(':registrationId/launchHistory')
  @ApiOperation({ operationId: 'GetRegistrationLaunchHistory' })
  @Authorize(...R)
  getRegistrationLaunchHistory(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string, @Query() query: LaunchHistoryQueryDto) {
    return this.registrations.launchHistory(p.appId, registrationId, query.includeHistoryLog === true);
  }

  @Delete(':registrationId/progress')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteRegistrationProgress' })
  @Authorize(...D)
  async deleteRegistrationProgress(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string) {
    await this.registrations.resetProgress(p.appId, registrationId);
  }

  @Delete(':registrationId/globalData')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteRegistrationGlobalData' })
  @Authorize(...D)
  async deleteRegistrationGlobalData(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string) {
    await this.registrations.resetGlobalData(p.appId, registrationId);
  }

  @Get(':registrationId/configuration')
  @ApiOperation({ operationId: 'GetRegistrationConfiguration' })
  @Authorize(...R)
  async getRegistrationConfiguration(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string, @Query() query: IncludeMetadataQueryDto) {
    return this.settings.list(p.appId, await this.registrations.settingTarget(p.appId, registrationId), { includeMetadata: query.includeMetadata === true });
  }

  @Post(':registrationId/configuration')
  @HttpCode(204)
  @ApiOperation({ operationId: 'SetRegistrationConfiguration' })
  @Authorize(...W)
  async setRegistrationConfiguration(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string, @Body() body: SettingsPostDto) {
    await this.settings.set(p.appId, await this.registrations.settingTarget(p.appId, registrationId), body.settings);
  }

  @Delete(':registrationId/configuration/:settingId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteRegistrationConfigurationSetting' })
  @Authorize(...W)
  async deleteRegistrationConfigurationSetting(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string, @Param('settingId') settingId: string) {
    await this.settings.clear(p.appId, await this.registrations.settingTarget(p.appId, registrationId), settingId);
  }

  @Get(':registrationId/instances/:instanceId/configuration')
  @ApiOperation({ operationId: 'GetRegistrationInstanceConfiguration' })
  @Authorize(...R)
  async getRegistrationInstanceConfiguration(
    @CurrentPrincipal() p: Principal,
    @Param('registrationId') registrationId: string,
    @Param('instanceId', INSTANCE) instanceId: number,
    @Query() query: IncludeMetadataQueryDto,
  ) {
    return this.settings.list(p.appId, await this.registrations.settingTarget(p.appId, registrationId, instanceId), { includeMetadata: query.includeMetadata === true });
  }

  @Post(':registrationId/instances/:instanceId/configuration')
  @HttpCode(204)
  @ApiOperation({ operationId: 'SetRegistrationInstanceConfiguration' })
  @Authorize(...W)
  async setRegistrationInstanceConfiguration(
    @CurrentPrincipal() p: Principal,
    @Param('registrationId') registrationId: string,
    @Param('instanceId', INSTANCE) instanceId: number,
    @Body() body: SettingsPostDto,
  ) {
    await this.settings.set(p.appId, await this.registrations.settingTarget(p.appId, registrationId, instanceId), body.settings);
  }

  @Delete(':registrationId/instances/:instanceId/configuration/:settingId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteRegistrationInstanceConfigurationSetting' })
  @Authorize(...W)
  async deleteRegistrationInstanceConfigurationSetting(
    @CurrentPrincipal() p: Principal,
    @Param('registrationId') registrationId: string,
    @Param('instanceId', INSTANCE) instanceId: number,
    @Param('settingId') settingId: string,
  ) {
    await this.settings.clear(p.appId, await this.registrations.settingTarget(p.appId, registrationId, instanceId), settingId);
  }

  @Get(':registrationId/tags')
  @ApiOperation({ operationId: 'GetRegistrationTags' })
  @Authorize(...R)
  async getRegistrationTags(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string) {
    await this.registrations.requireRegistration(p.appId, registrationId);
    return { tags: await this.tags.get(p.appId, 'registration', registrationId) };
  }

  @Put(':registrationId/tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'PutRegistrationTags' })
  @Authorize(...W)
  async putRegistrationTags(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string, @Body() body: TagListDto) {
    await this.registrations.requireRegistration(p.appId, registrationId);
    await this.tags.replace(p.appId, 'registration', registrationId, body.tags);
  }

  @Delete(':registrationId/tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteRegistrationTags' })
  @Authorize(...W)
  async deleteRegistrationTags(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string, @Body() body: TagListDto) {
    await this.registrations.requireRegistration(p.appId, registrationId);
    await this.tags.remove(p.appId, 'registration', registrationId, body.tags);
  }
}
