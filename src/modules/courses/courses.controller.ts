import { Body, Controller, Delete, Get, HttpCode, Param, ParseIntPipe, Post, Put, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { InvalidInputError } from '../../platform/http/domain-errors';
import { setTotalCount } from '../../platform/http/total-count';
import { SettingsPostDto } from '../settings/dto/settings-post.dto';
import { SettingsService } from '../settings/settings.service';
import { BatchTagsDto, TagListDto } from '../tags/dto/tags.dto';
import { TagsService } from '../tags/tags.service';
import { CoursesService } from './courses.service';
import { IncludeMetadataQueryDto } from './dto/course-params.dto';
import { CourseIncludeQueryDto, CourseListQueryDto, CourseVersionsQueryDto } from './dto/course-list-query.dto';
import { TitleDto } from './dto/title.dto';

const CR = [Scope.Read, Scope.ReadCourse] as const;
const CW = [Scope.WriteCourse, Scope.Write] as const;
const CD = [Scope.DeleteCourse, Scope.Delete] as const;
const VERSION = new ParseIntPipe({ exceptionFactory: () => new InvalidInputError('versionId must be an integer') });

@ApiTags('course')
@Controller('courses')
export class CoursesController {
  constructor(
    private readonly courses: CoursesService,
    private readonly tags: TagsService,
    private readonly settings: SettingsService,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'GetCourses' })
  @Authorize(...CR)
  async getCourses(@CurrentPrincipal() p: Principal, @Query() query: CourseListQueryDto, @Res({ passthrough: true }) res: Response) {
    const { courses, more, total } = await this.courses.list(p.appId, query);
    setTotalCount(res, total);
    return more ? { courses, more } : { courses };
  }

  @Put('tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'PutCourseTagsBatch' })
  @Authorize(...CW)
  async putCourseTagsBatch(@CurrentPrincipal() p: Principal, @Body() body: BatchTagsDto) {
    for (const id of body.ids) await this.courses.requireCourse(p.appId, id);
    await this.tags.addBatch(p.appId, 'course', body.ids, body.tags);
  }

  @Get(':courseId')
  @ApiOperation({ operationId: 'GetCourse' })
  @Authorize(...CR)
  getCourse(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Query() query: CourseIncludeQueryDto) {
    return this.courses.get(p.appId, courseId, query);
  }

  @Delete(':courseId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteCourse' })
  @Authorize(...CD)
  async deleteCourse(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string) {
    await this.courses.delete(p.appId, courseId);
  }

  @Put(':courseId/title')
  @HttpCode(204)
  @ApiOperation({ operationId: 'SetCourseTitle' })
  @Authorize(...CW)
  async setCourseTitle(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Body() body: TitleDto) {
    await this.courses.setTitle(p.appId, courseId, body.title);
  }

  @Get(':courseId/versions')
  @ApiOperation({ operationId: 'GetCourseVersions' })
  @Authorize(...CR)
  async getCourseVersions(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Query() query: CourseVersionsQueryDto) {
    return { courses: await this.courses.listVersions(p.appId, courseId, query) };
  }

  @Get(':courseId/versions/:versionId')
  @ApiOperation({ operationId: 'GetCourseVersionInfo' })
  @Authorize(...CR)
  getCourseVersionInfo(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) versionId: number, @Query() query: CourseIncludeQueryDto) {
    return this.courses.getVersion(p.appId, courseId, versionId, query);
  }

  @Delete(':courseId/versions/:versionId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteCourseVersion' })
  @Authorize(...CD)
  async deleteCourseVersion(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) versionId: number) {
    await this.courses.deleteVersion(p.appId, courseId, versionId);
  }

  @Get(':courseId/tags')
  @ApiOperation({ operationId: 'GetCourseTags' })
  @Authorize(...CR)
  async getCourseTags(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string) {
    await this.courses.requireCourse(p.appId, courseId);
    return { tags: await this.tags.get(p.appId, 'course', courseId) };
  }

  @Put(':courseId/tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'PutCourseTags' })
  @Authorize(...CW)
  async putCourseTags(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Body() body: TagListDto) {
    await this.courses.requireCourse(p.appId, courseId);
    await this.tags.replace(p.appId, 'course', courseId, body.tags);
  }

  @Delete(':courseId/tags')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteCourseTags' })
  @Authorize(...CW)
  async deleteCourseTags(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Body() body: TagListDto) {
    await this.courses.requireCourse(p.appId, courseId);
    await this.tags.remove(p.appId, 'course', courseId, body.tags);
  }

  @Get(':courseId/configuration')
  @ApiOperation({ operationId: 'GetCourseConfiguration' })
  @Authorize(...CR)
  async getCourseConfiguration(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Query() query: IncludeMetadataQueryDto) {
    const { version } = await this.courses.resolveVersion(p.appId, courseId);
    return this.settings.list(p.appId, { level: 'course', courseId, ...this.standardOf(version) }, { includeMetadata: query.includeMetadata === true });
  }

  @Post(':courseId/configuration')
  @HttpCode(204)
  @ApiOperation({ operationId: 'SetCourseConfiguration' })
  @Authorize(...CW)
  async setCourseConfiguration(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Body() body: SettingsPostDto) {
    const { version } = await this.courses.resolveVersion(p.appId, courseId);
    await this.settings.set(p.appId, { level: 'course', courseId, ...this.standardOf(version) }, body.settings);
  }

  @Delete(':courseId/configuration/:settingId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteCourseConfigurationSetting' })
  @Authorize(...CW)
  async deleteCourseConfigurationSetting(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('settingId') settingId: string) {
    await this.courses.requireCourse(p.appId, courseId);
    await this.settings.clear(p.appId, { level: 'course', courseId }, settingId);
  }

  @Get(':courseId/versions/:versionId/configuration')
  @ApiOperation({ operationId: 'GetCourseVersionConfiguration' })
  @Authorize(...CR)
  async getCourseVersionConfiguration(
    @CurrentPrincipal() p: Principal,
    @Param('courseId') courseId: string,
    @Param('versionId', VERSION) versionId: number,
    @Query() query: IncludeMetadataQueryDto,
  ) {
    const { version } = await this.courses.resolveVersion(p.appId, courseId, versionId);
    return this.settings.list(p.appId, { level: 'courseVersion', courseId, version: versionId, ...this.standardOf(version) }, { includeMetadata: query.includeMetadata === true });
  }

  @Post(':courseId/versions/:versionId/configuration')
  @HttpCode(204)
  @ApiOperation({ operationId: 'SetCourseVersionConfiguration' })
  @Authorize(...CW)
  async setCourseVersionConfiguration(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) versionId: number, @Body() body: SettingsPostDto) {
    const { version } = await this.courses.resolveVersion(p.appId, courseId, versionId);
    await this.settings.set(p.appId, { level: 'courseVersion', courseId, version: versionId, ...this.standardOf(version) }, body.settings);
  }

  @Delete(':courseId/versions/:versionId/configuration/:settingId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteCourseVersionConfigurationSetting' })
  @Authorize(...CW)
  async deleteCourseVersionConfigurationSetting(
    @CurrentPrincipal() p: Principal,
    @Param('courseId') courseId: string,
    @Param('versionId', VERSION) versionId: number,
    @Param('settingId') settingId: string,
  ) {
    await this.courses.resolveVersion(p.appId, courseId, versionId);
    await this.settings.clear(p.appId, { level: 'courseVersion', courseId, version: versionId }, settingId);
  }

  private standardOf(version: { learningStandard: string; package: { launchables: unknown[] } | null }) {
    return { learningStandard: version.learningStandard, singleSco: (version.package?.launchables.length ?? 0) <= 1 };
  }
}
