import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, UseInterceptors } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { MultipartFile, type UploadedFileInfo } from '../../platform/http/multipart.interceptor';
import { UploadedFilePart } from '../../platform/http/uploaded-file.decorator';
import { CourseImportService } from './course-import.service';
import { ImportFetchRequestDto, ImportQueryDto, ImportRequestDto } from './dto/import-requests.dto';
import { UploadDto } from './dto/upload.dto';

@ApiTags('course')
@Controller('courses/importJobs')
export class CourseImportsController {
  constructor(private readonly imports: CourseImportService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'CreateFetchAndImportCourseJob' })
  @Authorize(Scope.WriteCourse, Scope.Write)
  createFetchAndImportCourseJob(@CurrentPrincipal() p: Principal, @Query() query: ImportQueryDto, @Body() body: ImportFetchRequestDto) {
    return this.imports.startFetch(p.appId, query, body);
  }

  @Post('noUpload')
  @HttpCode(200)
  @ApiOperation({ operationId: 'CreateNoUploadAndImportCourseJob' })
  @Authorize(Scope.WriteCourse, Scope.Write)
  createNoUploadAndImportCourseJob(@CurrentPrincipal() p: Principal, @Query() query: ImportQueryDto, @Body() body: ImportRequestDto) {
    return this.imports.startNoUpload(p.appId, query, body);
  }

  @Post('upload')
  @HttpCode(200)
  @ApiConsumes('multipart/form-data')
  @ApiOperation({ operationId: 'CreateUploadAndImportCourseJob' })
  @Authorize(Scope.WriteCourse, Scope.Write)
  @UseInterceptors(MultipartFile('file'))
  createUploadAndImportCourseJob(
    @CurrentPrincipal() p: Principal,
    @Query() query: ImportQueryDto,
    @Body() body: UploadDto,
    @UploadedFilePart() file: UploadedFileInfo | undefined,
    @Headers('uploadedcontenttype') uploadedContentType?: string,
  ) {
    return this.imports.startUpload(p.appId, query, file, uploadedContentType, body.contentMetadata);
  }

  @Get(':importJobId')
  @ApiOperation({ operationId: 'GetImportJobStatus' })
  @Authorize(Scope.Read, Scope.ReadCourse)
  getImportJobStatus(@CurrentPrincipal() p: Principal, @Param('importJobId') importJobId: string) {
    return this.imports.status(p.appId, importJobId);
  }
}
