import { Controller, Get, HttpCode, Inject, Post, Put, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/app-config';
import { PublicEndpoint } from '../../../platform/auth/authorize.decorator';
import { ForbiddenError, InvalidInputError } from '../../../platform/http/domain-errors';
import { assertJsonDepth } from '../../../platform/http/json-depth';
import { StatementFilters, XapiStatementsService } from '../xapi-statements.service';
import { AttachmentContent, buildMultipart, matchAttachments, parseMultipart } from './attachments';
import { LaunchSessions } from './launch-sessions';
import { answeredVersion, LrsAuthGuard, lrsPrincipal, LrsPrincipal } from './lrs-auth.guard';
import { agentParam, boolParam, contentType, dateParam, JSON_CONTENT, LrsRequest, queryParams, rawBody } from './lrs-request';
import { canonicalFormat, Json } from './statement-keys';

const QUERY_PARAMS = [
  'statementId',
  'voidedStatementId',
  'agent',
  'verb',
  'activity',
  'registration',
  'related_activities',
  'related_agents',
  'since',
  'until',
  'limit',
  'format',
  'attachments',
  'ascending',
  'more',
];

/**
 * The application's LRS (xAPI 1.0.3 / 2.0 Communication, Statement Resource), at {PUBLIC_URL}/lrs/{appId}/.
 * Not part of API V2: mounted outside /api/v2, left out of the OpenAPI document, authenticated by LrsAuthGuard.
 */
@ApiExcludeController()
@PublicEndpoint()
@Controller('lrs/:appId')
export class LrsController {
  constructor(
    private readonly statements: XapiStatementsService,
    private readonly launchSessions: LaunchSessions,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('about')
  about(@Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const requested = req.headers['x-experience-api-version'];
    res.setHeader('X-Experience-API-Version', answeredVersion(typeof requested === 'string' ? requested.trim() : '', this.config));
    return { version: ['1.0.0', '1.0.1', '1.0.2', '1.0.3', '2.0.0'] };
  }

  @Put('statements')
  @HttpCode(204)
  @UseGuards(LrsAuthGuard)
  async putStatement(@Req() req: LrsRequest) {
    const p = this.writer(req);
    const query = queryParams(req, QUERY_PARAMS);
    const id = query.statementId;
    if (id === undefined) throw new InvalidInputError('statementId is required in the query string of a PUT');
    const { body, attachments } = await this.statementsBody(req);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidInputError('The body of a PUT must be one statement (a JSON object)');
    const statement = body as Record<string, Json>;
    if (statement.id !== undefined && String(statement.id).toLowerCase() !== id.toLowerCase()) {
      throw new InvalidInputError(`The statement's id ${String(statement.id)} differs from the statementId parameter ${id}`);
    }
    const list = [{ ...statement, id }];
    await this.launchSessions.statements(p.launch, list, () => this.statements.storeStatements(p.appId, list, p.authority, { credentialId: p.credentialId, version: p.version, attachments }));
  }

  @Post('statements')
  @HttpCode(200)
  @UseGuards(LrsAuthGuard)
  async postStatements(@Req() req: LrsRequest) {
    const p = this.writer(req);
    queryParams(req, []);
    const { body, attachments } = await this.statementsBody(req);
    if (typeof body !== 'object' || body === null) throw new InvalidInputError('The body must be a statement or an array of statements');
    const list = (Array.isArray(body) ? body : [body]) as Array<Record<string, Json>>;
    return this.launchSessions.statements(p.launch, list, () => this.statements.storeStatements(p.appId, list, p.authority, { credentialId: p.credentialId, version: p.version, attachments }));
  }

  @Get('statements')
  @UseGuards(LrsAuthGuard)
  async getStatements(@Req() req: Request, @Res() res: Response): Promise<void> {
    const p = lrsPrincipal(req);
    if (!p.canRead) throw new ForbiddenError('These xAPI credentials may only write statements');
    const q = queryParams(req, QUERY_PARAMS);
    const withAttachments = boolParam('attachments', q.attachments);
    const format = this.format(q.format);
    const storedBy = p.readOwnOnly ? (p.credentialId ?? undefined) : undefined;
    let result: Json;
    let statements: Json[];
    let lastModified: Date;
    if (q.statementId !== undefined || q.voidedStatementId !== undefined) {
      const others = Object.keys(q).filter((k) => !['statementId', 'voidedStatementId', 'format', 'attachments'].includes(k));
      if (q.statementId !== undefined && q.voidedStatementId !== undefined) throw new InvalidInputError('Send statementId or voidedStatementId, not both');
      if (others.length > 0) throw new InvalidInputError(`With statementId or voidedStatementId only format and attachments may be sent; got ${others.join(', ')}`);
      const voided = q.voidedStatementId !== undefined;
      const found = await this.statements.getStatement(p.appId, (q.voidedStatementId ?? q.statementId)!, { voided, format, storedBy, ...(p.launch ? { registration: p.launch.registration } : {}) });
      result = found.statement as unknown;
      statements = [found.statement];
      lastModified = found.stored;
    } else {
      const filters: StatementFilters = { format, storedBy };
      if (q.agent !== undefined) filters.agent = agentParam(q.agent) as unknown;
      if (q.verb !== undefined) filters.verb = q.verb;
      if (q.activity !== undefined) filters.activity = q.activity;
      if (q.registration !== undefined) filters.registration = q.registration;
      filters.relatedActivities = boolParam('related_activities', q.related_activities);
      filters.relatedAgents = boolParam('related_agents', q.related_agents);
      filters.ascending = boolParam('ascending', q.ascending);
      filters.since = dateParam('since', q.since);
      filters.until = dateParam('until', q.until);
      if (q.limit !== undefined) {
        if (!/^\d+$/.test(q.limit)) throw new InvalidInputError('limit must be a non-negative integer');
        filters.limit = Number(q.limit);
      }
      const page = await this.statements.query(p.appId, filters, q.more);
      statements = page.statements;
      result = { statements, more: page.more ? `/lrs/${encodeURIComponent(p.appId)}/statements?more=${encodeURIComponent(page.more)}` : '' };
      const stored = statements.map((s: { stored?: unknown }) => Date.parse(String(s.stored))).filter((t) => !Number.isNaN(t));
      lastModified = new Date(stored.length > 0 ? Math.max(...stored) : Date.now());
    }
    if (format === 'canonical') {
      const language = req.headers['accept-language'];
      statements = statements.map((st): unknown => canonicalFormat(st, language));
      if (Array.isArray((result as { statements?: unknown }).statements)) (result as { statements: Json[] }).statements = statements;
      else result = statements[0] as unknown;
    }
    res.setHeader('Last-Modified', lastModified.toUTCString());
    if (!withAttachments) {
      res.status(200).json(result);
      return;
    }
    const multipart = buildMultipart(result, await this.statements.attachmentContents(p.appId, statements));
    res.status(200).type(multipart.contentType).end(multipart.body);
  }

  private writer(req: Request): LrsPrincipal {
    const p = lrsPrincipal(req);
    if (!p.canWrite) throw new ForbiddenError('These xAPI credentials may only read statements');
    return p;
  }

  /** The statements of a PUT/POST: a JSON body, or multipart/mixed with the statements first and attachment contents after. */
  private async statementsBody(req: LrsRequest): Promise<{ body: unknown; attachments?: AttachmentContent[] }> {
    const type = contentType(req);
    if (/^multipart\/mixed\b/i.test(type)) {
      const [first, ...rest] = parseMultipart(await rawBody(req, this.config.http.jsonBodyLimit), type);
      if (!first || !JSON_CONTENT.test(first.headers['content-type'] ?? '')) throw new InvalidInputError('The first part of a multipart/mixed body must be the statements, as application/json');
      assertJsonDepth(first.body);
      let body: unknown;
      try {
        body = JSON.parse(first.body.toString('utf8'));
      } catch {
        throw new InvalidInputError('The first part of the multipart/mixed body is not valid JSON');
      }
      const list = Array.isArray(body) ? (body) : [body];
      return { body, attachments: matchAttachments(list, rest) };
    }
    if (!JSON_CONTENT.test(type)) throw new InvalidInputError('Content-Type must be application/json (or multipart/mixed for statements with attachments)');
    const body: unknown = req.body;
    const list = Array.isArray(body) ? (body) : [body];
    matchAttachments(list, []);
    return { body };
  }

  private format(value: string | undefined): 'ids' | 'exact' | 'canonical' {
    if (value === undefined) return 'exact';
    if (value === 'ids' || value === 'exact' || value === 'canonical') return value;
    throw new InvalidInputError('format must be ids, exact or canonical');
  }
}
