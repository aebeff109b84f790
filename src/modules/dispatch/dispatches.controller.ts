import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authorize, PublicEndpoint } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { pagedBody } from '../../platform/http/total-count';
import { BatchTagsDto, TagListDto } from '../tags/dto/tags.dto';
import { TagsService } from '../tags/tags.service';
import { DispatchesService } from './dispatches.service';
import { D, R, W } from './dispatch-scopes';
import { DispatchZips, sendZip } from './dispatch-zips';
import { DispatchLti } from './dispatch-lti';
import { DispatchLti13 } from './dispatch-lti13';
import { CreateDispatchListDto, EnabledDto, UpdateDispatchDto } from './dto/dispatch.dto';
import { DispatchListQueryDto, DispatchSelectionQueryDto, DispatchZipQueryDto, Lti13DispatchLaunchQueryDto } from './dto/dispatch-query.dto';

@ApiTags('dispatch')
@Controller('dispatch/dispatches')
export class DispatchesController {
  constructor(
    private readonly dispatches: DispatchesService,
    private readonly tags: TagsService,
    private readonly zips: DispatchZips,
    private readonly lti: DispatchLti,
    private readonly lti13: DispatchLti13,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'GetDispatches' })
  @Authorize(...R)
  async getDispatches(@CurrentPrincipal() p: Principal, @Query() query: DispatchListQueryDto, @Res({ passthrough: true }) res: Response) {
    return pagedBody(res, 'dispatches', await this.dispatches.list(p.appId, query));
  }

  @Post()
  @HttpCode(204)
  @ApiOperation({ operationId: 'CreateDispatches' })
  @Authorize(...W)
  async createDispatches(@CurrentPrincipal() p: Principal, @Body() body: CreateDispatchListDto) {
    await this.dispatches.create(p.appId, body.dispatches);
  }

  @Put()
  @HttpCode(204)
  @ApiOperation({ operationId: 'UpdateDispatches' })
  @Authorize(...W)
  async updateDispatches(@CurrentPrincipal() p: Principal, @Query() query: DispatchSelectionQueryDto, @Body() body: UpdateDispatchDto) {
    await this.dispatches.updateSelected(p.appId, query, body);
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteDispatches' })
  @Authorize(...D)
  async deleteDispatches(@CurrentPrincipal() p: Principal, @Query() query: DispatchSelectionQueryDto) {
    await this.dispatches.deleteSelected(p.appId, query);
  }

  @Put('tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'PutDispatchTagsBatch' })
  @Authorize(...W)
  async putDispatchTagsBatch(@CurrentPrincipal() p: Principal, @Body() body: BatchTagsDto) {
    await this.dispatches.requireAll(p.appId, body.ids);
    await this.tags.addBatch(p.appId, 'dispatch', body.ids, body.tags);
  }

  @Get(':dispatchId')
  @ApiOperation({ operationId: 'GetDispatch' })
  @Authorize(...R)
  getDispatch(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string) {
    return this.dispatches.get(p.appId, id);
  }

  @Put(':dispatchId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'UpdateDispatch' })
  @Authorize(...W)
  async updateDispatch(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string, @Body() body: UpdateDispatchDto) {
    await this.dispatches.update(p.appId, id, body);
  }

  @Delete(':dispatchId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteDispatch' })
  @Authorize(...D)
  async deleteDispatch(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string) {
    await this.dispatches.delete(p.appId, id);
  }

  @Get(':dispatchId/enabled')
  @ApiOperation({ operationId: 'GetDispatchEnabled' })
  @Authorize(...R)
  async getDispatchEnabled(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string) {
    return { enabled: (await this.dispatches.require(p.appId, id)).enabled };
  }

  @Put(':dispatchId/enabled')
  @HttpCode(204)
  @ApiOperation({ operationId: 'SetDispatchEnabled' })
  @Authorize(...W)
  async setDispatchEnabled(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string, @Body() body: EnabledDto) {
    await this.dispatches.setFlag(p.appId, id, 'enabled', body.enabled);
  }

  @Get(':dispatchId/hashUserInfo')
  @ApiOperation({ operationId: 'GetDispatchHashUserInfo' })
  @Authorize(...R)
  async getDispatchHashUserInfo(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string) {
    return { enabled: (await this.dispatches.require(p.appId, id)).hashUserInfo };
  }

  @Put(':dispatchId/hashUserInfo')
  @HttpCode(204)
  @ApiOperation({ operationId: 'UpdateDispatchHashUserInfo' })
  @Authorize(...W)
  async updateDispatchHashUserInfo(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string, @Body() body: EnabledDto) {
    await this.dispatches.setFlag(p.appId, id, 'hashUserInfo', body.enabled);
  }

  @Get(':dispatchId/registrationCount')
  @ApiOperation({ operationId: 'GetDispatchRegistrationCount' })
  @Authorize(...R)
  getDispatchRegistrationCount(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string) {
    return this.dispatches.registrationCount(p.appId, id);
  }

  @Delete(':dispatchId/registrationCount')
  @HttpCode(204)
  @ApiOperation({ operationId: 'ResetDispatchRegistrationCount' })
  @Authorize(...D)
  async resetDispatchRegistrationCount(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string) {
    await this.dispatches.resetRegistrationCount(p.appId, id);
  }

  @Delete(':dispatchId/postback')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteDispatchPostbackInfo' })
  @Authorize(...D)
  async deleteDispatchPostbackInfo(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string) {
    await this.dispatches.deletePostBack(p.appId, id);
  }

  @Get(':dispatchId/tags')
  @ApiOperation({ operationId: 'GetDispatchTags' })
  @Authorize(...R)
  async getDispatchTags(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string) {
    await this.dispatches.require(p.appId, id);
    return { tags: await this.tags.get(p.appId, 'dispatch', id) };
  }

  @Put(':dispatchId/tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'PutDispatchTags' })
  @Authorize(...W)
  async putDispatchTags(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string, @Body() body: TagListDto) {
    await this.dispatches.require(p.appId, id);
    await this.tags.replace(p.appId, 'dispatch', id, body.tags);
  }

  @Delete(':dispatchId/tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteDispatchTags' })
  @Authorize(...W)
  async deleteDispatchTags(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string, @Body() body: TagListDto) {
    await this.dispatches.require(p.appId, id);
    await this.tags.remove(p.appId, 'dispatch', id, body.tags);
  }

  @Get(':dispatchId/zip')
  @ApiOperation({ operationId: 'GetDispatchZip' })
  @ApiProduces('application/zip')
  @Authorize(...R)
  async getDispatchZip(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string, @Query() query: DispatchZipQueryDto, @Res() res: Response) {
    sendZip(res, await this.zips.forDispatch(p.appId, id, query));
  }

  @Get(':dispatchId/lti')
  @ApiOperation({ operationId: 'GetLtiDispatch' })
  @Authorize(...R)
  getLtiDispatch(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string) {
    return this.lti.info(p.appId, id);
  }

  @Get(':dispatchId/lti13')
  @ApiOperation({ operationId: 'GetLti13Dispatch' })
  @Authorize(...R)
  getLti13Dispatch(@CurrentPrincipal() p: Principal, @Param('dispatchId') id: string) {
    return this.lti13.dispatchInfo(p.appId, id);
  }

  /** The last step of an LTI 1.3 launch (no credentials, as the real service's): 303 to the course. */
  @Get(':dispatchId/launches')
  @ApiOperation({ operationId: 'GetLti13DispatchLaunch' })
  @PublicEndpoint()
  async getLti13DispatchLaunch(@Param('dispatchId') id: string, @Query() query: Lti13DispatchLaunchQueryDto, @Res() res: Response) {
    const playerUrl = await this.lti13.completeLaunch(id, query.jwt);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.redirect(303, playerUrl);
  }
}
