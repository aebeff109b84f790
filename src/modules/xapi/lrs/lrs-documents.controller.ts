import { Controller, Delete, Get, HttpCode, Inject, Post, Put, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/app-config';
import { PublicEndpoint } from '../../../platform/auth/authorize.decorator';
import { ForbiddenError, InvalidInputError } from '../../../platform/http/domain-errors';
import { DocumentScope, Preconditions, XapiDocumentsService } from '../xapi-documents.service';
import { XapiStatementsService } from '../xapi-statements.service';
import { LrsAuthGuard, lrsPrincipal, LrsPrincipal } from './lrs-auth.guard';
import { agentParam, contentType, dateParam, iriParam, LrsRequest, queryParams, rawBody, required, uuidParam } from './lrs-request';
import { LEARNER_PREFERENCES, learnerPreferencesProblem } from './cmi5-documents';
import { LaunchSessions } from './launch-sessions';
import { ifiOf } from './statement-keys';

type DocumentResource = 'state' | 'activity' | 'agent';

const PARAMS: Record<DocumentResource, readonly string[]> = {
  state: ['activityId', 'agent', 'registration', 'stateId', 'since'],
  activity: ['activityId', 'profileId', 'since'],
  agent: ['agent', 'profileId', 'since'],
};
const ID_PARAM: Record<DocumentResource, string> = { state: 'stateId', activity: 'profileId', agent: 'profileId' };

/**
 * The document resources of the application's LRS (xAPI Communication 2.3, 2.6, 2.7 / IEEE 9274.1.1 4.1.6.2-6):
 * State, Activity Profile and Agent Profile documents with ETag concurrency, and the Agents and Activities resources.
 */
@ApiExcludeController()
@PublicEndpoint()
@UseGuards(LrsAuthGuard)
@Controller('lrs/:appId')
export class LrsDocumentsController {
  constructor(
    private readonly documents: XapiDocumentsService,
    private readonly statements: XapiStatementsService,
    private readonly launchSessions: LaunchSessions,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('activities/state')
  getState(@Req() req: Request, @Res() res: Response) {
    return this.get('state', req, res);
  }

  @Put('activities/state')
  @HttpCode(204)
  putState(@Req() req: LrsRequest) {
    return this.write('state', req, false);
  }

  @Post('activities/state')
  @HttpCode(204)
  postState(@Req() req: LrsRequest) {
    return this.write('state', req, true);
  }

  @Delete('activities/state')
  @HttpCode(204)
  async deleteState(@Req() req: Request) {
    const p = this.principal(req, 'write');
    const { scope, id } = this.target('state', req);
    if (id === undefined) await this.documents.deleteAll(p.appId, scope);
    else await this.documents.delete(p.appId, scope, id, preconditions(req));
  }

  @Get('activities/profile')
  getActivityProfile(@Req() req: Request, @Res() res: Response) {
    return this.get('activity', req, res);
  }

  @Put('activities/profile')
  @HttpCode(204)
  putActivityProfile(@Req() req: LrsRequest) {
    return this.write('activity', req, false);
  }

  @Post('activities/profile')
  @HttpCode(204)
  postActivityProfile(@Req() req: LrsRequest) {
    return this.write('activity', req, true);
  }

  @Delete('activities/profile')
  @HttpCode(204)
  deleteActivityProfile(@Req() req: Request) {
    return this.deleteProfile('activity', req);
  }

  @Get('agents/profile')
  getAgentProfile(@Req() req: Request, @Res() res: Response) {
    return this.get('agent', req, res);
  }

  @Put('agents/profile')
  @HttpCode(204)
  putAgentProfile(@Req() req: LrsRequest) {
    return this.write('agent', req, false);
  }

  @Post('agents/profile')
  @HttpCode(204)
  postAgentProfile(@Req() req: LrsRequest) {
    return this.write('agent', req, true);
  }

  @Delete('agents/profile')
  @HttpCode(204)
  deleteAgentProfile(@Req() req: Request) {
    return this.deleteProfile('agent', req);
  }

  /** The Person object for an agent (Communication 2.4): every identifier as an array. */
  @Get('agents')
  agents(@Req() req: Request) {
    this.principal(req, 'read');
    const agent = agentParam(required(queryParams(req, ['agent']), 'agent')) as Record<string, unknown>;
    const person: Record<string, unknown> = { objectType: 'Person' };
    if (typeof agent.name === 'string') person.name = [agent.name];
    for (const key of ['mbox', 'mbox_sha1sum', 'openid', 'account']) if (agent[key] !== undefined) person[key] = [agent[key]];
    return person;
  }

  /** The Activity object with everything the application's statements say about its definition (Communication 2.5). */
  @Get('activities')
  activities(@Req() req: Request) {
    const p = this.principal(req, 'read');
    const id = iriParam('activityId', required(queryParams(req, ['activityId']), 'activityId'));
    return this.statements.activity(p.appId, id);
  }

  private async get(resource: DocumentResource, req: Request, res: Response): Promise<void> {
    const p = this.principal(req, 'read');
    const { scope, id, since } = this.target(resource, req);
    if (id === undefined) {
      res.status(200).json(await this.documents.list(p.appId, scope, since));
      return;
    }
    if (since !== undefined) throw new InvalidInputError(`since applies only to a list of documents, not with ${ID_PARAM[resource]}`);
    if (p.launch?.session) await this.launchSessions.documentRead(p.launch, resource, id);
    const doc = await this.documents.get(p.appId, scope, id);
    res.setHeader('ETag', `"${doc.etag}"`);
    res.setHeader('Last-Modified', doc.updated.toUTCString());
    res.setHeader('Content-Type', doc.contentType);
    res.status(200).end(doc.content);
  }

  private async write(resource: DocumentResource, req: LrsRequest, merge: boolean): Promise<void> {
    const p = this.principal(req, 'write');
    const { scope, id, since } = this.target(resource, req);
    if (id === undefined) throw new InvalidInputError(`The ${ID_PARAM[resource]} parameter is required`);
    if (since !== undefined) throw new InvalidInputError('since is a parameter of GET only');
    const content = await rawBody(req, this.config.http.jsonBodyLimit);
    if (p.launch?.session && resource === 'agent' && id === LEARNER_PREFERENCES) {
      const problem = learnerPreferencesProblem(contentType(req), content);
      if (problem) throw new ForbiddenError(problem);
    }
    // Clients MUST send If-Match or If-None-Match with a PUT of a profile (Communication 3.1); State documents are
    // under the same 409 rule from xAPI 2.0 on (IEEE 9274.1.1 4.1.4) but need no precondition to be created.
    const requirePrecondition = resource !== 'state' ? 'always' : p.version.startsWith('2.') ? 'ifExists' : 'never';
    await this.documents.write(p.appId, scope, id, { content, contentType: contentType(req) }, { merge, preconditions: preconditions(req), requirePrecondition });
  }

  private async deleteProfile(resource: DocumentResource, req: Request): Promise<void> {
    const p = this.principal(req, 'write');
    const { scope, id } = this.target(resource, req);
    if (id === undefined) throw new InvalidInputError('The profileId parameter is required');
    await this.documents.delete(p.appId, scope, id, preconditions(req));
  }

  private target(resource: DocumentResource, req: Request): { scope: DocumentScope; id?: string; since?: Date } {
    const q = queryParams(req, PARAMS[resource]);
    const scope: DocumentScope = { kind: resource };
    if (resource !== 'agent') scope.activityId = iriParam('activityId', required(q, 'activityId'));
    if (resource !== 'activity') scope.agent = ifiOf(agentParam(required(q, 'agent')))!;
    if (resource === 'state') scope.registration = uuidParam('registration', q.registration);
    const id = q[ID_PARAM[resource]];
    if (id === '') throw new InvalidInputError(`${ID_PARAM[resource]} must not be empty`);
    return { scope, id, since: dateParam('since', q.since) };
  }

  private principal(req: Request, access: 'read' | 'write'): LrsPrincipal {
    const p = lrsPrincipal(req);
    if (access === 'read' && !p.canRead) throw new ForbiddenError('These xAPI credentials may only write');
    if (access === 'write' && !p.canWrite) throw new ForbiddenError('These xAPI credentials may only read');
    return p;
  }
}

function preconditions(req: Request): Preconditions {
  const ifMatch = req.headers['if-match'];
  const ifNoneMatch = req.headers['if-none-match'];
  return { ...(ifMatch !== undefined ? { ifMatch } : {}), ...(ifNoneMatch !== undefined ? { ifNoneMatch } : {}) };
}
