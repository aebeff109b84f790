import { Body, Controller, Delete, Get, HttpCode, Param, ParseIntPipe, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { InvalidInputError } from '../../platform/http/domain-errors';
import { AiPluginService } from './aiplugin.service';
import { AiPluginCompanyIdDto, AiPluginCourseOptionsDto, AiPluginEnabledDto } from './dto/ai-plugin.dto';

const VERSION = new ParseIntPipe({ exceptionFactory: () => new InvalidInputError('versionId must be an integer') });
const COURSE = 'course/:courseId/version/:versionId';

/** The company id of the body, by any of its names; 400 when none (or different ones) are given. */
function companyIdOf(body: AiPluginCompanyIdDto | undefined): string {
  const given = new Set([body?.zoomi_company_id, body?.zoomiCompanyId, body?.companyId].filter((v): v is string => v !== undefined));
  if (given.size > 1) throw new InvalidInputError('zoomi_company_id and companyId differ: send one of them');
  const [id] = given;
  if (id === undefined) throw new InvalidInputError('zoomi_company_id (or companyId) is required');
  return id;
}

/** The contract's AI plugin service (8 operations at /aiplugin). */
@ApiTags('aiplugin')
@Controller('aiplugin')
export class AiPluginController {
  constructor(private readonly plugin: AiPluginService) {}

  @Get()
  @ApiOperation({ operationId: 'GetApplicationAiPluginCompanyId', summary: "The application's company id at the AI plugin partner (404 until set)" })
  @Authorize(Scope.Read, Scope.ReadAppMgmt)
  getCompanyId(@CurrentPrincipal() p: Principal) {
    return this.plugin.companyId(p.appId);
  }

  @Put()
  @HttpCode(204)
  @ApiOperation({ operationId: 'SetApplicationAiPluginCompanyId', summary: "Sets the application's company id at the partner (zoomi_company_id or companyId)" })
  @Authorize(Scope.WriteAppMgmt, Scope.Write)
  async setCompanyId(@CurrentPrincipal() p: Principal, @Body() body: AiPluginCompanyIdDto): Promise<void> {
    await this.plugin.setCompanyId(p.appId, companyIdOf(body));
  }

  @Get('key')
  @ApiOperation({ operationId: 'GetApplicationAiPluginPublicKey', summary: "The application's public key (PEM) the partner verifies its requests and launch tokens with; made on first use" })
  @Authorize(Scope.Read, Scope.ReadAppMgmt)
  getPublicKey(@CurrentPrincipal() p: Principal) {
    return this.plugin.publicKey(p.appId);
  }

  @Delete('key')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteApplicationAiPluginKeys', summary: "Discards the application's key pair; the next use makes a new one" })
  @Authorize(Scope.WriteAppMgmt, Scope.Write)
  async deleteKeys(@CurrentPrincipal() p: Principal): Promise<void> {
    await this.plugin.deleteKeys(p.appId);
  }

  @Get(COURSE)
  @ApiOperation({ operationId: 'GetAiPluginCourseStatus', summary: 'The course version’s status at the partner; imports it there first if it is not yet (IMPORT_QUEUED); NOT_CONFIGURED without a partner' })
  @Authorize(Scope.Read, Scope.ReadCourse)
  getStatus(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) version: number) {
    return this.plugin.status(p.appId, courseId, version);
  }

  @Delete(COURSE)
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteAiPluginCourse', summary: 'Removes the course version from the partner' })
  @Authorize(Scope.DeleteCourse, Scope.Delete)
  async deleteCourse(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) version: number): Promise<void> {
    await this.plugin.deleteCourse(p.appId, courseId, version);
  }

  @Get(`${COURSE}/enabled`)
  @ApiOperation({ operationId: 'GetCourseAiPluginEnabled', summary: 'Whether launches of the course version carry the AI plugin' })
  @Authorize(Scope.Read, Scope.ReadCourse)
  getEnabled(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) version: number) {
    return this.plugin.enabled(p.appId, courseId, version);
  }

  @Put(`${COURSE}/enabled`)
  @HttpCode(204)
  @ApiOperation({ operationId: 'SetCourseAiPluginEnabled', summary: 'Enables the AI plugin for the course version (enabled: false disables it), with the course options nti and cta' })
  @Authorize(Scope.WriteCourse, Scope.Write)
  async setEnabled(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) version: number, @Body() body: AiPluginEnabledDto): Promise<void> {
    await this.plugin.setEnabled(p.appId, courseId, version, body ?? {});
  }
}

/** The real API's names of the same service (9 operations at /zoomi; the official clients' ZoomiApi). */
@ApiTags('zoomi')
@Controller('zoomi')
export class ZoomiController {
  /** The contract's operations, which these answer the same as. */
  private readonly contract: AiPluginController;

  constructor(private readonly plugin: AiPluginService) {
    this.contract = new AiPluginController(plugin);
  }

  @Get()
  @ApiOperation({ operationId: 'GetApplicationZoomiCompanyId', summary: 'getApplicationAiPluginCompanyId' })
  @Authorize(Scope.Read, Scope.ReadAppMgmt)
  getCompanyId(@CurrentPrincipal() p: Principal) {
    return this.contract.getCompanyId(p);
  }

  @Put()
  @HttpCode(204)
  @ApiOperation({ operationId: 'SetApplicationZoomiCompanyId', summary: 'setApplicationAiPluginCompanyId' })
  @Authorize(Scope.WriteAppMgmt, Scope.Write)
  setCompanyId(@CurrentPrincipal() p: Principal, @Body() body: AiPluginCompanyIdDto): Promise<void> {
    return this.contract.setCompanyId(p, body);
  }

  @Get('key')
  @ApiOperation({ operationId: 'GetApplicationZoomiPublicKey', summary: 'getApplicationAiPluginPublicKey' })
  @Authorize(Scope.Read, Scope.ReadAppMgmt)
  getPublicKey(@CurrentPrincipal() p: Principal) {
    return this.contract.getPublicKey(p);
  }

  @Delete('key')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteApplicationZoomiKeys', summary: 'deleteApplicationAiPluginKeys' })
  @Authorize(Scope.WriteAppMgmt, Scope.Write)
  deleteKeys(@CurrentPrincipal() p: Principal): Promise<void> {
    return this.contract.deleteKeys(p);
  }

  @Get(COURSE)
  @ApiOperation({ operationId: 'GetZoomiCourseStatus', summary: 'getAiPluginCourseStatus' })
  @Authorize(Scope.Read, Scope.ReadCourse)
  getStatus(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) version: number) {
    return this.contract.getStatus(p, courseId, version);
  }

  @Delete(COURSE)
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteZoomiCourse', summary: 'deleteAiPluginCourse' })
  @Authorize(Scope.DeleteCourse, Scope.Delete)
  deleteCourse(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) version: number): Promise<void> {
    return this.contract.deleteCourse(p, courseId, version);
  }

  @Get(`${COURSE}/enabled`)
  @ApiOperation({ operationId: 'GetCourseZoomiEnabled', summary: 'getCourseAiPluginEnabled' })
  @Authorize(Scope.Read, Scope.ReadCourse)
  getEnabled(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) version: number) {
    return this.contract.getEnabled(p, courseId, version);
  }

  @Put(`${COURSE}/enabled`)
  @HttpCode(204)
  @ApiOperation({ operationId: 'SetCourseZoomiEnabled', summary: 'setCourseAiPluginEnabled (body EnabledSchema)' })
  @Authorize(Scope.WriteCourse, Scope.Write)
  setEnabled(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) version: number, @Body() body: AiPluginEnabledDto): Promise<void> {
    return this.contract.setEnabled(p, courseId, version, body);
  }

  @Put(`${COURSE}/import`)
  @HttpCode(204)
  @ApiOperation({ operationId: 'ImportCourseVersionToZoomi', summary: 'Stores the course options (nti, cta) and imports the course version to the partner again (a job)' })
  @Authorize(Scope.WriteCourse, Scope.Write)
  async importVersion(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Param('versionId', VERSION) version: number, @Body() body: AiPluginCourseOptionsDto): Promise<void> {
    await this.plugin.importVersion(p.appId, courseId, version, body);
  }
}
