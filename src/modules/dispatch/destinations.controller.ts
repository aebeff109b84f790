import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { pagedBody } from '../../platform/http/total-count';
import { BatchTagsDto, TagListDto } from '../tags/dto/tags.dto';
import { TagsService } from '../tags/tags.service';
import { DestinationsService } from './destinations.service';
import { DispatchesService } from './dispatches.service';
import { D, R, W } from './dispatch-scopes';
import { DispatchZips, sendZip } from './dispatch-zips';
import { DispatchLti13 } from './dispatch-lti13';
import { DestinationDto, DestinationListDto, EnabledDto } from './dto/dispatch.dto';
import { DestinationGetQueryDto, DestinationListQueryDto, DispatchListQueryDto, DispatchZipQueryDto } from './dto/dispatch-query.dto';

@ApiTags('dispatch')
@Controller('dispatch/destinations')
export class DestinationsController {
  constructor(
    private readonly destinations: DestinationsService,
    private readonly dispatches: DispatchesService,
    private readonly tags: TagsService,
    private readonly zips: DispatchZips,
    private readonly lti13: DispatchLti13,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'GetDestinations' })
  @Authorize(...R)
  async getDestinations(@CurrentPrincipal() p: Principal, @Query() query: DestinationListQueryDto, @Res({ passthrough: true }) res: Response) {
    return pagedBody(res, 'destinations', await this.destinations.list(p.appId, query));
  }

  @Post()
  @HttpCode(204)
  @ApiOperation({ operationId: 'CreateDestinations' })
  @Authorize(...W)
  async createDestinations(@CurrentPrincipal() p: Principal, @Body() body: DestinationListDto) {
    await this.destinations.create(p.appId, body.destinations);
  }

  @Put('tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'PutDestinationTagsBatch' })
  @Authorize(...W)
  async putDestinationTagsBatch(@CurrentPrincipal() p: Principal, @Body() body: BatchTagsDto) {
    await this.destinations.requireAll(p.appId, body.ids);
    await this.tags.addBatch(p.appId, 'destination', body.ids, body.tags);
  }

  @Get(':destinationId')
  @ApiOperation({ operationId: 'GetDestination' })
  @Authorize(...R)
  getDestination(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string, @Query() query: DestinationGetQueryDto) {
    return this.destinations.get(p.appId, id, query.includeDispatchCount === true);
  }

  @Put(':destinationId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'SetDestination' })
  @Authorize(...W)
  async setDestination(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string, @Body() body: DestinationDto) {
    await this.destinations.set(p.appId, id, body);
  }

  @Delete(':destinationId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteDestination' })
  @Authorize(...D)
  async deleteDestination(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string) {
    await this.dispatches.deleteDestination(p.appId, id);
  }

  @Get(':destinationId/dispatches')
  @ApiOperation({ operationId: 'GetDestinationDispatches' })
  @Authorize(...R)
  async getDestinationDispatches(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string, @Query() query: DispatchListQueryDto, @Res({ passthrough: true }) res: Response) {
    return pagedBody(res, 'dispatches', await this.dispatches.list(p.appId, query, id));
  }

  @Delete(':destinationId/dispatches')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteDestinationDispatches' })
  @Authorize(...D)
  async deleteDestinationDispatches(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string) {
    await this.dispatches.deleteForDestination(p.appId, id);
  }

  @Post(':destinationId/dispatches/enabled')
  @HttpCode(204)
  @ApiOperation({ operationId: 'SetDestinationDispatchEnabled' })
  @Authorize(...W)
  async setDestinationDispatchEnabled(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string, @Body() body: EnabledDto) {
    await this.dispatches.setFlagForDestination(p.appId, id, 'enabled', body.enabled);
  }

  @Post(':destinationId/dispatches/registrationInstancing')
  @HttpCode(204)
  @ApiOperation({ operationId: 'EnableRegistrationInstancing' })
  @Authorize(...W)
  async enableRegistrationInstancing(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string, @Body() body: EnabledDto) {
    await this.dispatches.setFlagForDestination(p.appId, id, 'instanced', body.enabled);
  }

  @Get(':destinationId/dispatches/hashUserInfo')
  @ApiOperation({ operationId: 'GetDestinationHashUserInfo' })
  @Authorize(...R)
  async getDestinationHashUserInfo(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string) {
    return { enabled: (await this.destinations.require(p.appId, id)).hashUserInfo };
  }

  @Put(':destinationId/dispatches/hashUserInfo')
  @HttpCode(204)
  @ApiOperation({ operationId: 'UpdateDestinationHashUserInfo' })
  @Authorize(...W)
  async updateDestinationHashUserInfo(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string, @Body() body: EnabledDto) {
    await this.dispatches.setFlagForDestination(p.appId, id, 'hashUserInfo', body.enabled);
  }

  @Get(':destinationId/dispatches/registrationCount')
  @ApiOperation({ operationId: 'GetDestinationDispatchRegistrationCount' })
  @Authorize(...R)
  async getDestinationDispatchRegistrationCount(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string) {
    return { result: await this.dispatches.destinationRegistrationCount(p.appId, id) };
  }

  @Delete(':destinationId/dispatches/registrationCount')
  @HttpCode(204)
  @ApiOperation({ operationId: 'ResetDestinationDispatchRegistrationCount' })
  @Authorize(...D)
  async resetDestinationDispatchRegistrationCount(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string) {
    await this.dispatches.resetDestinationRegistrationCount(p.appId, id);
  }

  @Get(':destinationId/tags')
  @ApiOperation({ operationId: 'GetDestinationTags' })
  @Authorize(...R)
  async getDestinationTags(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string) {
    await this.destinations.require(p.appId, id);
    return { tags: await this.tags.get(p.appId, 'destination', id) };
  }

  @Put(':destinationId/tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'PutDestinationTags' })
  @Authorize(...W)
  async putDestinationTags(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string, @Body() body: TagListDto) {
    await this.destinations.require(p.appId, id);
    await this.tags.replace(p.appId, 'destination', id, body.tags);
  }

  @Delete(':destinationId/tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteDestinationTags' })
  @Authorize(...W)
  async deleteDestinationTags(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string, @Body() body: TagListDto) {
    await this.destinations.require(p.appId, id);
    await this.tags.remove(p.appId, 'destination', id, body.tags);
  }

  @Get(':destinationId/dispatches/zip')
  @ApiOperation({ operationId: 'GetDestinationDispatchZip' })
  @ApiProduces('application/zip')
  @Authorize(...R)
  async getDestinationDispatchZip(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string, @Query() query: DispatchZipQueryDto, @Res() res: Response) {
    sendZip(res, await this.zips.forDestination(p.appId, id, query));
  }

  @Get(':destinationId/lti13')
  @ApiOperation({ operationId: 'GetLti13ToolConfigurationSchema' })
  @Authorize(...R)
  getLti13ToolConfigurationSchema(@CurrentPrincipal() p: Principal, @Param('destinationId') id: string) {
    return this.lti13.toolConfiguration(p.appId, id);
  }
}
