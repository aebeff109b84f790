import { All, Controller, Get, HttpCode, Post, Put, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { PublicEndpoint } from '../../../platform/auth/authorize.decorator';
import { DomainError, ForbiddenError, InvalidInputError } from '../../../platform/http/domain-errors';
import { parseIsoDate } from '../../../platform/http/query-transforms';
import { StatementFilters, XapiStatementsService } from '../xapi-statements.service';
import { LrsAuthGuard, lrsPrincipal, LrsPrincipal } from './lrs-auth.guard';
import type { Json } from './statement-keys';

/** 501: a part of the xAPI specification this LRS does not implement yet. */
export class NotImplementedError extends DomainError {
  readonly status = 501;
}

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
  constructor(private readonly statements: XapiStatementsService) {}

  @Get('about')
  about(@Res({ passthrough: true }) res: Response) {
    res.setHeader('X-Experience-API-Version', '1.0.3');
    return { version: ['1.0.0', '1.0.1', '1.0.2', '1.0.3', '2.0.0'] };
  }

  @Put('statements')
  @HttpCode(204)
  @UseGuards(LrsAuthGuard)
  async putStatement(@Req() req: Request) {
    const p = this.writer(req);
    const body = this.jsonBody(req);
    const query = this.params(req);
    const id = query.statementId;
    if (id === undefined) throw new InvalidInputError('statementId is required in the query string of a PUT');
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidInputError('The body of a PUT must be one statement (a JSON object)');
    const statement = body as Record<string, Json>;
    if (statement.id !== undefined && String(statement.id).toLowerCase() !== id.toLowerCase()) {
      throw new InvalidInputError(`The statement's id ${String(statement.id)} differs from the statementId parameter ${id}`);
    }
    await this.statements.storeStatements(p.appId, [{ ...statement, id }], p.authority, { credentialId: p.credentialId, version: p.version });
  }

  @Post('statements')
  @HttpCode(200)
  @UseGuards(LrsAuthGuard)
  async postStatements(@Req() req: Request) {
    if (typeof req.query.method === 'string') throw new NotImplementedError('Alternate request syntax (POST with ?method=) is not supported by this LRS yet');
    const p = this.writer(req);
    const body = this.jsonBody(req);
    this.params(req);
    if (typeof body !== 'object' || body === null) throw new InvalidInputError('The body must be a statement or an array of statements');
    const list = Array.isArray(body) ? (body as unknown[]) : [body];
    return this.statements.storeStatements(p.appId, list, p.authority, { credentialId: p.credentialId, version: p.version });
  }

  @Get('statements')
  @UseGuards(LrsAuthGuard)
  async getStatements(@Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const p = lrsPrincipal(req);
    if (!p.canRead) throw new ForbiddenError('These xAPI credentials may only write statements');
    const q = this.params(req);
    res.setHeader('X-Experience-API-Consistent-Through', this.statements.consistentThrough().toISOString());
    if (q.attachments === 'true') throw new NotImplementedError('attachments=true (multipart/mixed responses) is not supported by this LRS yet');
    if (q.attachments !== undefined && q.attachments !== 'false') throw new InvalidInputError('attachments must be true or false');
    const format = this.format(q.format);
    const storedBy = p.readOwnOnly ? (p.credentialId ?? undefined) : undefined;
    if (q.statementId !== undefined || q.voidedStatementId !== undefined) {
      const others = Object.keys(q).filter((k) => !['statementId', 'voidedStatementId', 'format', 'attachments'].includes(k));
      if (q.statementId !== undefined && q.voidedStatementId !== undefined) throw new InvalidInputError('Send statementId or voidedStatementId, not both');
      if (others.length > 0) throw new InvalidInputError(`With statementId or voidedStatementId only format and attachments may be sent; got ${others.join(', ')}`);
      const voided = q.voidedStatementId !== undefined;
      const found = await this.statements.getStatement(p.appId, (q.voidedStatementId ?? q.statementId)!, { voided, format, storedBy });
      res.setHeader('Last-Modified', found.stored.toUTCString());
      return found.statement as unknown;
    }
    const filters: StatementFilters = { format, storedBy };
    if (q.agent !== undefined) {
      try {
        const agent: unknown = JSON.parse(q.agent);
        filters.agent = agent;
      } catch {
        throw new InvalidInputError('agent must be a JSON-encoded Agent or Group');
      }
    }
    if (q.verb !== undefined) filters.verb = q.verb;
    if (q.activity !== undefined) filters.activity = q.activity;
    if (q.registration !== undefined) filters.registration = q.registration;
    filters.relatedActivities = this.bool('related_activities', q.related_activities);
    filters.relatedAgents = this.bool('related_agents', q.related_agents);
    filters.ascending = this.bool('ascending', q.ascending);
    filters.since = this.date('since', q.since);
    filters.until = this.date('until', q.until);
    if (q.limit !== undefined) {
      if (!/^\d+$/.test(q.limit)) throw new InvalidInputError('limit must be a non-negative integer');
      filters.limit = Number(q.limit);
    }
    const page = await this.statements.query(p.appId, filters, q.more);
    return { statements: page.statements, more: page.more ? `/lrs/${encodeURIComponent(p.appId)}/statements?more=${encodeURIComponent(page.more)}` : '' };
  }

  @All(['activities', 'activities/state', 'activities/profile', 'agents', 'agents/profile'])
  @UseGuards(LrsAuthGuard)
  notImplemented(@Req() req: Request) {
    throw new NotImplementedError(`${req.path.replace(/^\/lrs\/[^/]+/, '')}: the State, Activity Profile, Agent Profile, Activities and Agents resources are not implemented by this LRS yet`);
  }

  private writer(req: Request): LrsPrincipal {
    const p = lrsPrincipal(req);
    if (!p.canWrite) throw new ForbiddenError('These xAPI credentials may only read statements');
    return p;
  }

  private jsonBody(req: Request): unknown {
    const type = (req.headers['content-type'] ?? '').toLowerCase();
    if (type.startsWith('multipart/')) throw new NotImplementedError('Statements with attachments (multipart/mixed) are not supported by this LRS yet');
    if (!/^application\/(.+\+)?json\b/.test(type)) throw new InvalidInputError('Content-Type must be application/json');
    return req.body;
  }

  private params(req: Request): Record<string, string | undefined> {
    const out: Record<string, string | undefined> = {};
    for (const [key, value] of Object.entries(req.query)) {
      if (!QUERY_PARAMS.includes(key)) throw new InvalidInputError(`Unknown parameter ${key}`);
      if (typeof value !== 'string') throw new InvalidInputError(`${key} may be sent once`);
      out[key] = value;
    }
    return out;
  }

  private format(value: string | undefined): 'ids' | 'exact' | 'canonical' {
    if (value === undefined) return 'exact';
    if (value === 'ids' || value === 'exact' || value === 'canonical') return value;
    throw new InvalidInputError('format must be ids, exact or canonical');
  }

  private bool(name: string, value: string | undefined): boolean {
    if (value === undefined || value === 'false') return false;
    if (value === 'true') return true;
    throw new InvalidInputError(`${name} must be true or false`);
  }

  private date(name: string, value: string | undefined): Date | undefined {
    if (value === undefined) return undefined;
    const parsed = parseIsoDate(value);
    if (!(parsed instanceof Date)) throw new InvalidInputError(`${name} must be an ISO 8601 timestamp`);
    return parsed;
  }
}
