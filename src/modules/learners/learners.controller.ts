import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { IsDefined, IsString, MaxLength } from 'class-validator';
import { ApiProperty } from '@nestjs/swagger';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { LearnerDto } from '../registrations/dto/registration.dto';
import { BatchTagsDto, TagListDto } from '../tags/dto/tags.dto';
import { TagsService } from '../tags/tags.service';
import { LearnersService } from './learners.service';
import { Audited } from '../../platform/audit/audited.decorator';

class DeleteLearnerQueryDto {
  @ApiProperty() @IsDefined({ message: 'userEmail is required' }) @IsString() @MaxLength(320) userEmail!: string;
}

@ApiTags('learner')
@Controller('learner')
export class LearnersController {
  constructor(
    private readonly learners: LearnersService,
    private readonly tags: TagsService,
  ) {}

  @Put('tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'PutLearnerTagsBatch' })
  @Authorize(Scope.WriteLearner)
  async putLearnerTagsBatch(@CurrentPrincipal() p: Principal, @Body() body: BatchTagsDto) {
    for (const id of new Set(body.ids)) await this.learners.requireLearner(p.appId, id);
    await this.tags.addBatch(p.appId, 'learner', body.ids, body.tags);
  }

  @Post(':learnerId/delete-information')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteAllLearnerData' })
  @Audited({ action: 'DeleteAllLearnerData', omitParams: ['learnerId'], query: ['userEmail'] })
  @Authorize(Scope.Admin)
  async deleteAllLearnerData(@CurrentPrincipal() p: Principal, @Param('learnerId') learnerId: string, @Query() query: DeleteLearnerQueryDto) {
    await this.learners.startErasure(p.appId, learnerId, query.userEmail);
  }

  @Post(':learnerId/updateInfo')
  @HttpCode(204)
  @ApiOperation({ operationId: 'UpdateLearnerInfo' })
  @Authorize(Scope.WriteLearner)
  async updateLearnerInfo(@CurrentPrincipal() p: Principal, @Param('learnerId') learnerId: string, @Body() body: LearnerDto) {
    await this.learners.updateInfo(p.appId, learnerId, body);
  }

  @Get(':learnerId/tags')
  @ApiOperation({ operationId: 'GetLearnerTags' })
  @Authorize(Scope.ReadLearner)
  async getLearnerTags(@CurrentPrincipal() p: Principal, @Param('learnerId') learnerId: string) {
    await this.learners.requireLearner(p.appId, learnerId);
    return { tags: await this.tags.get(p.appId, 'learner', learnerId) };
  }

  @Put(':learnerId/tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'PutLearnerTags' })
  @Authorize(Scope.WriteLearner)
  async putLearnerTags(@CurrentPrincipal() p: Principal, @Param('learnerId') learnerId: string, @Body() body: TagListDto) {
    await this.learners.requireLearner(p.appId, learnerId);
    await this.tags.replace(p.appId, 'learner', learnerId, body.tags);
  }

  @Delete(':learnerId/tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteLearnerTags' })
  @Authorize(Scope.WriteLearner)
  async deleteLearnerTags(@CurrentPrincipal() p: Principal, @Param('learnerId') learnerId: string, @Body() body: TagListDto) {
    await this.learners.requireLearner(p.appId, learnerId);
    await this.tags.remove(p.appId, 'learner', learnerId, body.tags);
  }
}
