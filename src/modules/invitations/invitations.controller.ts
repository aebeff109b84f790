import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { setTotalCount } from '../../platform/http/total-count';
import { BatchTagsDto, TagListDto } from '../tags/dto/tags.dto';
import { TagsService } from '../tags/tags.service';
import { CreatePrivateInvitationDto, CreatePublicInvitationDto, UpdatePrivateInvitationDto, UpdatePublicInvitationDto } from './dto/invitation.dto';
import { InvitationGetQueryDto, InvitationListQueryDto, UserInvitationListQueryDto } from './dto/invitation-query.dto';
import { InvitationsService } from './invitations.service';

const R = [Scope.ReadInvitation, Scope.Read] as const;
const W = [Scope.WriteInvitation, Scope.Write] as const;

function paged<K extends string, T>(res: Response, key: K, page: { more?: string; total?: number } & Record<K, T>) {
  setTotalCount(res, page.total);
  return { [key]: page[key], ...(page.more ? { more: page.more } : {}) };
}

@ApiTags('invitations')
@Controller('invitations')
export class InvitationsController {
  constructor(
    private readonly invitations: InvitationsService,
    private readonly tags: TagsService,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'GetAllInvitations' })
  @Authorize(...R)
  async getAllInvitations(@CurrentPrincipal() p: Principal, @Query() query: InvitationListQueryDto, @Res({ passthrough: true }) res: Response) {
    return paged(res, 'invitations', await this.invitations.list(p.appId, 'all', query));
  }

  @Put('tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'PutInvitationTagsBatch' })
  @Authorize(Scope.WriteInvitation)
  async putInvitationTagsBatch(@CurrentPrincipal() p: Principal, @Body() body: BatchTagsDto) {
    await this.invitations.requireAll(p.appId, body.ids);
    await this.tags.addBatch(p.appId, 'invitation', body.ids, body.tags);
  }

  @Post('private')
  @HttpCode(200)
  @ApiOperation({ operationId: 'CreatePrivateInvitation' })
  @Authorize(...W)
  createPrivateInvitation(@CurrentPrincipal() p: Principal, @Body() body: CreatePrivateInvitationDto) {
    return this.invitations.createPrivate(p.appId, body);
  }

  @Get('private')
  @ApiOperation({ operationId: 'GetPrivateInvitations' })
  @Authorize(...R)
  async getPrivateInvitations(@CurrentPrincipal() p: Principal, @Query() query: InvitationListQueryDto, @Res({ passthrough: true }) res: Response) {
    return paged(res, 'invitations', await this.invitations.list(p.appId, 'private', query));
  }

  @Get('private/:invitationId')
  @ApiOperation({ operationId: 'GetPrivateInvitation' })
  @Authorize(...R)
  getPrivateInvitation(@CurrentPrincipal() p: Principal, @Param('invitationId') id: string, @Query() query: InvitationGetQueryDto) {
    return this.invitations.get(p.appId, 'private', id, query.includeRegistrationCount === true);
  }

  @Put('private/:invitationId')
  @ApiOperation({ operationId: 'UpdatePrivateInvitation' })
  @Authorize(...W)
  updatePrivateInvitation(@CurrentPrincipal() p: Principal, @Param('invitationId') id: string, @Body() body: UpdatePrivateInvitationDto) {
    return this.invitations.updatePrivate(p.appId, id, body);
  }

  @Get('private/:invitationId/jobStatus')
  @ApiOperation({ operationId: 'GetPrivateInvitationJobStatus' })
  @Authorize(...R)
  getPrivateInvitationJobStatus(@CurrentPrincipal() p: Principal, @Param('invitationId') id: string) {
    return this.invitations.jobStatus(p.appId, id);
  }

  @Get('private/:invitationId/userInvitations')
  @ApiOperation({ operationId: 'GetPrivateUserInvitations' })
  @Authorize(...R)
  async getPrivateUserInvitations(@CurrentPrincipal() p: Principal, @Param('invitationId') id: string, @Query() query: UserInvitationListQueryDto, @Res({ passthrough: true }) res: Response) {
    return paged(res, 'userInvitations', await this.invitations.userInvitations(p.appId, 'private', id, query));
  }

  @Post('public')
  @HttpCode(200)
  @ApiOperation({ operationId: 'CreatePublicInvitation' })
  @Authorize(...W)
  createPublicInvitation(@CurrentPrincipal() p: Principal, @Body() body: CreatePublicInvitationDto) {
    return this.invitations.createPublic(p.appId, body);
  }

  @Get('public')
  @ApiOperation({ operationId: 'GetPublicInvitations' })
  @Authorize(...R)
  async getPublicInvitations(@CurrentPrincipal() p: Principal, @Query() query: InvitationListQueryDto, @Res({ passthrough: true }) res: Response) {
    return paged(res, 'invitations', await this.invitations.list(p.appId, 'public', query));
  }

  @Get('public/:invitationId')
  @ApiOperation({ operationId: 'GetPublicInvitation' })
  @Authorize(...R)
  getPublicInvitation(@CurrentPrincipal() p: Principal, @Param('invitationId') id: string, @Query() query: InvitationGetQueryDto) {
    return this.invitations.get(p.appId, 'public', id, query.includeRegistrationCount === true);
  }

  @Put('public/:invitationId')
  @ApiOperation({ operationId: 'UpdatePublicInvitation' })
  @Authorize(...W)
  updatePublicInvitation(@CurrentPrincipal() p: Principal, @Param('invitationId') id: string, @Body() body: UpdatePublicInvitationDto) {
    return this.invitations.updatePublic(p.appId, id, body);
  }

  @Get('public/:invitationId/userInvitations')
  @ApiOperation({ operationId: 'GetPublicUserInvitations' })
  @Authorize(...R)
  async getPublicUserInvitations(@CurrentPrincipal() p: Principal, @Param('invitationId') id: string, @Query() query: UserInvitationListQueryDto, @Res({ passthrough: true }) res: Response) {
    return paged(res, 'userInvitations', await this.invitations.userInvitations(p.appId, 'public', id, query));
  }

  @Get(':invitationId/tags')
  @ApiOperation({ operationId: 'GetInvitationTags' })
  @Authorize(Scope.ReadInvitation)
  async getInvitationTags(@CurrentPrincipal() p: Principal, @Param('invitationId') id: string) {
    await this.invitations.require(p.appId, 'any', id);
    return { tags: await this.tags.get(p.appId, 'invitation', id) };
  }

  @Put(':invitationId/tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'PutInvitationTags' })
  @Authorize(Scope.WriteInvitation)
  async putInvitationTags(@CurrentPrincipal() p: Principal, @Param('invitationId') id: string, @Body() body: TagListDto) {
    await this.invitations.require(p.appId, 'any', id);
    await this.tags.replace(p.appId, 'invitation', id, body.tags);
  }

  @Delete(':invitationId/tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteInvitationTags' })
  @Authorize(Scope.WriteInvitation)
  async deleteInvitationTags(@CurrentPrincipal() p: Principal, @Param('invitationId') id: string, @Body() body: TagListDto) {
    await this.invitations.require(p.appId, 'any', id);
    await this.tags.remove(p.appId, 'invitation', id, body.tags);
  }
}
