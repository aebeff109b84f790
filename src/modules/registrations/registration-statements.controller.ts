import { Controller, Get, Param, ParseIntPipe, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { InvalidInputError } from '../../platform/http/domain-errors';
import { CoursesService } from '../courses/courses.service';
import { toApiStatement } from '../xapi/xapi-statement-result';
import { StatementFilters, XapiStatementsService } from '../xapi/xapi-statements.service';
import { CourseStatementsQueryDto, StatementsQueryDto } from './dto/statements-query.dto';
import { RegistrationsService } from './registrations.service';

const INSTANCE = new ParseIntPipe({ exceptionFactory: () => new InvalidInputError('instanceId must be an integer') });
const VERSION = new ParseIntPipe({ exceptionFactory: () => new InvalidInputError('versionId must be an integer') });

/**
 * The xAPIStatements endpoints, read from the application's LRS by `context.registration`, oldest first:
 * - a registration's: by its xapiRegistrationId. Instances share that id, so an instance's statements are the
 *   registration's, limited to the instance's lifetime;
 * - a course's: those of its registrations (of one learner with `learnerId`), as SCORM Cloud keeps statements per
 *   registration; a course version's: those of the registrations with an instance on that version.
 */
@Controller()
export class RegistrationStatementsController {
  constructor(
    private readonly registrations: RegistrationsService,
    private readonly courses: CoursesService,
    private readonly statements: XapiStatementsService,
  ) {}

  @Get('registrations/:registrationId/xAPIStatements')
  @ApiTags('registration')
  @ApiOperation({ operationId: 'GetRegistrationStatements' })
  @Authorize(Scope.Read, Scope.ReadRegistration)
  async getRegistrationStatements(@CurrentPrincipal() p: Principal, @Param('registrationId') registrationId: string, @Query() q: StatementsQueryDto) {
    const reg = await this.registrations.requireRegistration(p.appId, registrationId);
    return this.page(p.appId, { registration: reg.xapiRegistrationId, since: q.since, until: q.until }, q.more);
  }

  @Get('registrations/:registrationId/instances/:instanceId/xAPIStatements')
  @ApiTags('registration')
  @ApiOperation({ operationId: 'GetRegistrationInstanceStatements' })
  @Authorize(Scope.Read, Scope.ReadRegistration)
  async getRegistrationInstanceStatements(
    @CurrentPrincipal() p: Principal,
    @Param('registrationId') registrationId: string,
    @Param('instanceId', INSTANCE) instanceId: number,
    @Query() q: StatementsQueryDto,
  ) {
    const reg = await this.registrations.requireRegistration(p.appId, registrationId);
    const instance = await this.registrations.requireInstance(p.appId, reg, instanceId);
    const since = q.since && q.since > instance.createdAt ? q.since : instance.createdAt;
    return this.page(p.appId, { registration: reg.xapiRegistrationId, since, until: q.until }, q.more);
  }

  @Get('courses/:courseId/xAPIStatements')
  @ApiTags('course')
  @ApiOperation({ operationId: 'GetCourseStatements' })
  @Authorize(Scope.Read, Scope.ReadCourse)
  async getCourseStatements(@CurrentPrincipal() p: Principal, @Param('courseId') courseId: string, @Query() q: CourseStatementsQueryDto) {
    await this.courses.requireCourse(p.appId, courseId);
    const registrationSet = this.registrations.courseRegistrationSet(p.appId, courseId, undefined, q.learnerId);
    return this.page(p.appId, { registrationSet, since: q.since, until: q.until }, q.more);
  }

  @Get('courses/:courseId/versions/:versionId/xAPIStatements')
  @ApiTags('course')
  @ApiOperation({ operationId: 'GetCourseVersionStatements' })
  @Authorize(Scope.Read, Scope.ReadCourse)
  async getCourseVersionStatements(
    @CurrentPrincipal() p: Principal,
    @Param('courseId') courseId: string,
    @Param('versionId', VERSION) versionId: number,
    @Query() q: CourseStatementsQueryDto,
  ) {
    await this.courses.resolveVersion(p.appId, courseId, versionId);
    const registrationSet = this.registrations.courseRegistrationSet(p.appId, courseId, versionId, q.learnerId);
    return this.page(p.appId, { registrationSet, since: q.since, until: q.until }, q.more);
  }

  /** XapiStatementResult: one page, the statement's object under its objectActivity / objectAgentGroup / … key. */
  private async page(appId: string, filters: StatementFilters, more: string | undefined) {
    const page = await this.statements.query(appId, { ...filters, ascending: true }, more);
    return { statements: page.statements.map(toApiStatement), ...(page.more ? { more: page.more } : {}) };
  }
}
