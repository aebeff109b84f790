import { Body, Controller, Delete, Get, HttpCode, Param, ParseIntPipe, Post, Query, Res, UseInterceptors } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { Authorize, AuthorizeBasicOnly } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { InvalidInputError } from '../../platform/http/domain-errors';
import { MultipartFile, type UploadedFileInfo } from '../../platform/http/multipart.interceptor';
import { UploadedFilePart } from '../../platform/http/uploaded-file.decorator';
import { CourseAssetsService } from './course-assets.service';
import { CoursesService } from './courses.service';
import { AssetPathQueryDto, AssetPolicyQueryDto, ImportAssetRequestDto } from './dto/asset.dto';
import { PreviewLaunchLinkRequestDto } from './dto/preview-launch-link.dto';
import { AssetUploadDto } from './dto/upload.dto';
import { activityIdsOf, LaunchLinks, launchOptionsOf } from '../player/launch-links';

const CR = [Scope.Read, Scope.ReadCourse] as const;
const CW = [Scope.WriteCourse, Scope.Write] as const;
const VERSION = new ParseIntPipe({ exceptionFactory: () => new InvalidInputError('versionId must be an integer') });

/** Asset files, zip downloads and preview launch links. */
@ApiTags('course')
@Controller('courses/:courseId')
export class CourseAssetsController {
  constructor(
    private readonly assets: CourseAssetsService,
    private readonly courses: CoursesService,
    private readonly launchLinks: LaunchLinks,
  ) {}

  @Post('asset')
  @HttpCode(200)
  @ApiOperation({ operationId: 'ImportCourseAssetFile' })
  @AuthorizeBasicOnly()
  importCourseAssetFile(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Query() q: AssetPolicyQueryDto, @Body() body: ImportAssetRequestDto) {
    return this.assets.importFromUrl(p.appId, courseId, undefined, body.fetchUrl, body.destination, q.updateAssetPolicy ?? 'lax');
  }

  @Post('versions/:versionId/asset')
  @HttpCode(200)
  @ApiOperation({ operationId: 'ImportCourseVersionAssetFile' })
  @AuthorizeBasicOnly()
  importCourseVersionAssetFile(
    @CurrentPrincipal() p: Principal,
    @Param('courseId') courseId: string,
    @Param('versionId', VERSION) versionId: number,
    @Query() q: AssetPolicyQueryDto,
    @Body() body: ImportAssetRequestDto,
  ) {
    return this.assets.importFromUrl(p.appId, courseId, versionId, body.fetchUrl, body.destination, q.updateAssetPolicy ?? 'lax');
  }

  @Post('asset/upload')
  @HttpCode(200)
  @ApiConsumes('multipart/form-data')
  @ApiOperation({ operationId: 'UploadCourseAssetFile' })
  @AuthorizeBasicOnly()
  @UseInterceptors(MultipartFile('file'))
  uploadCourseAssetFile(
    @CurrentPrincipal() p: Principal,
    @Param('courseId') courseId: string,
    @Query() q: AssetPolicyQueryDto,
    @Body() body: AssetUploadDto,
    @UploadedFilePart() file?: UploadedFileInfo,
  ) {
    return this.assets.upload(p.appId, courseId, undefined, file?.path, body.destination, q.updateAssetPolicy ?? 'lax');
  }

  @Post('versions/:versionId/asset/upload')
  @HttpCode(200)
  @ApiConsumes('multipart/form-data')
  @ApiOperation({ operationId: 'UploadCourseVersionAssetFile' })
  @AuthorizeBasicOnly()
  @UseInterceptors(MultipartFile('file'))
  uploadCourseVersionAssetFile(
    @CurrentPrincipal() p: Principal,
    @Param('courseId') courseId: string,
    @Param('versionId', VERSION) versionId: number,
    @Query() q: AssetPolicyQueryDto,
    @Body() body: AssetUploadDto,
    @UploadedFilePart() file?: UploadedFileInfo,
  ) {
    return this.assets.upload(p.appId, courseId, versionId, file?.path, body.destination, q.updateAssetPolicy ?? 'lax');
  }

  @Get('asset')
  @ApiOperation({ operationId: 'GetCourseAsset' })
  @Authorize(...CR)
  async getCourseAsset(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Query() q: AssetPathQueryDto, @Res() res: Response) {
    await this.send(res, await this.assets.get(p.appId, courseId, undefined, q.relativePath));
  }

  @Get('versions/:versionId/asset')
  @ApiOperation({ operationId: 'GetCourseVersionAsset' })
  @Authorize(...CR)
  async getCourseVersionAsset(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) versionId: number, @Query() q: AssetPathQueryDto, @Res() res: Response) {
    await this.send(res, await this.assets.get(p.appId, courseId, versionId, q.relativePath));
  }

  @Delete('asset')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteCourseAsset' })
  @Authorize(...CW)
  async deleteCourseAsset(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Query() q: AssetPathQueryDto) {
    await this.assets.delete(p.appId, courseId, undefined, q.relativePath);
  }

  @Delete('versions/:versionId/asset')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteCourseVersionAsset' })
  @Authorize(...CW)
  async deleteCourseVersionAsset(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) versionId: number, @Query() q: AssetPathQueryDto) {
    await this.assets.delete(p.appId, courseId, versionId, q.relativePath);
  }

  @Get('asset/list')
  @ApiOperation({ operationId: 'GetCourseFileList' })
  @Authorize(...CR)
  getCourseFileList(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string) {
    return this.assets.list(p.appId, courseId, undefined);
  }

  @Get('versions/:versionId/asset/list')
  @ApiOperation({ operationId: 'GetCourseVersionFileList' })
  @Authorize(...CR)
  getCourseVersionFileList(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) versionId: number) {
    return this.assets.list(p.appId, courseId, versionId);
  }

  @Get('zip')
  @ApiOperation({ operationId: 'GetCourseZip' })
  @Authorize(...CR)
  async getCourseZip(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Res() res: Response) {
    await this.sendZip(res, await this.assets.zip(p.appId, courseId, undefined));
  }

  @Get('versions/:versionId/zip')
  @ApiOperation({ operationId: 'GetVersionedCourseZip' })
  @Authorize(...CR)
  async getVersionedCourseZip(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) versionId: number, @Res() res: Response) {
    await this.sendZip(res, await this.assets.zip(p.appId, courseId, versionId));
  }

  @Post('preview')
  @HttpCode(200)
  @ApiOperation({ operationId: 'BuildCoursePreviewLaunchLink' })
  @Authorize(...CR)
  async buildCoursePreviewLaunchLink(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Body() body: PreviewLaunchLinkRequestDto, @Query('cssUrl') cssUrl?: string) {
    // The contract also documents cssUrl as a query parameter of this operation; the body's wins.
    return this.previewLink(p.appId, courseId, undefined, { ...body, cssUrl: body?.cssUrl ?? (typeof cssUrl === 'string' && cssUrl ? cssUrl : undefined) });
  }

  @Post('versions/:versionId/preview')
  @HttpCode(200)
  @ApiOperation({ operationId: 'BuildCoursePreviewLaunchLinkWithVersion' })
  @Authorize(...CR)
  async buildCoursePreviewLaunchLinkWithVersion(
    @CurrentPrincipal() p: Principal,
    @Param('courseId') courseId: string,
    @Param('versionId', VERSION) versionId: number,
    @Body() body: PreviewLaunchLinkRequestDto,
  ) {
    return this.previewLink(p.appId, courseId, versionId, body);
  }

  private async send(res: Response, object: { stream: NodeJS.ReadableStream; size: number; contentType?: string }): Promise<void> {
    res.status(200);
    res.setHeader('Content-Type', object.contentType ?? 'application/octet-stream');
    res.setHeader('Content-Length', String(object.size));
    await pipeline(object.stream, res);
  }

  private async sendZip(res: Response, zip: { stream: NodeJS.ReadableStream; fileName: string }): Promise<void> {
    res.status(200);
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Disposition', `attachment; filename="${zip.fileName}"`);
    await pipeline(zip.stream, res);
  }

  /** A launch link that runs the course version in the player without a registration; nothing is recorded. */
  private async previewLink(appId: string, courseId: string, versionId: number | undefined, body: PreviewLaunchLinkRequestDto) {
    const { version } = await this.courses.resolveVersion(appId, courseId, versionId);
    const options = launchOptionsOf(body ?? {}, () => activityIdsOf(version.rootActivity, (n) => n.externalIdentifier));
    const launchLink = await this.launchLinks.issue({ ...options, appId, target: { kind: 'preview', courseId, version: version.version }, tracking: false });
    return { launchLink };
  }
}
