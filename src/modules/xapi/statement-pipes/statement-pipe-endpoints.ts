import { Injectable } from '@nestjs/common';
import { OutboundError, OutboundHttp } from '../../../platform/outbound/outbound-http';
import type { Json } from '../lrs/statement-keys';
import { XapiStatementsService } from '../xapi-statements.service';
import { PipeEndpoint, PipeLease, XapiStatementPipesService } from './xapi-statement-pipes.service';

/** Statements read per page from a source. */
export const PIPE_PAGE_SIZE = 100;
const MAX_PAGE_BYTES = 32 * 1024 * 1024;
const XAPI_VERSION = '1.0.3';

/** `https://lrs/xapi`, `https://lrs/xapi/` and `https://lrs/xapi/statements` all mean the statements resource below. */
export function statementsUrl(endpoint: string): string {
  const base = endpoint.split(/[?#]/)[0].replace(/\/+$/, '');
  return base.endsWith('/statements') ? base : `${base}/statements`;
}

function authHeader(e: PipeEndpoint): Record<string, string> {
  if (e.userName === null && e.password === null) return {};
  return { authorization: `Basic ${Buffer.from(`${e.userName ?? ''}:${e.password ?? ''}`).toString('base64')}` };
}

/**
 * The two ends of a pipe: a remote LRS over HTTP (through OutboundHttp and its SSRF policy), or, for a pipe without
 * a source, the application's own statement store read in-process.
 */
@Injectable()
export class StatementPipeEndpoints {
  constructor(
    private readonly outbound: OutboundHttp,
    private readonly statements: XapiStatementsService,
    private readonly pipes: XapiStatementPipesService,
  ) {}

  /** One page of the source, oldest first: `url` (a `more` URL), or the first page after `since`. */
  async read(lease: PipeLease, url: string | null, since: Date | null): Promise<{ statements: Json[]; more: string | null }> {
    if (lease.source.url === null) return this.readOwn(lease, url, since);
    const source = statementsUrl(lease.source.url);
    let target = url;
    if (target === null) {
      const query = new URLSearchParams({ ascending: 'true', limit: String(PIPE_PAGE_SIZE), ...(since ? { since: since.toISOString() } : {}) });
      target = `${source}?${query.toString()}`;
    }
    const res = await this.outbound.get(target, { accept: 'application/json', 'x-experience-api-version': XAPI_VERSION, ...authHeader(lease.source) }, { maxBytes: MAX_PAGE_BYTES });
    if (res.status !== 200) throw new OutboundError(`source ${target} answered HTTP ${res.status}: ${res.body.slice(0, 300)}`, res.status);
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      throw new OutboundError(`source ${target} did not answer with a StatementResult (not JSON)`);
    }
    const result = body as { statements?: unknown; more?: unknown };
    if (typeof body !== 'object' || body === null || !Array.isArray(result.statements)) throw new OutboundError(`source ${target} did not answer with a StatementResult`);
    const more = typeof result.more === 'string' && result.more !== '' ? new URL(result.more, source).toString() : null;
    return { statements: result.statements, more };
  }

  /** Posts statements to the target's statements resource; anything but 200/204 is a failure. */
  async write(lease: PipeLease, statements: unknown[]): Promise<void> {
    const target = statementsUrl(lease.target.url!);
    const res = await this.outbound.post(target, JSON.stringify(statements), {
      'content-type': 'application/json',
      'x-experience-api-version': XAPI_VERSION,
      ...authHeader(lease.target),
    });
    if (res.status !== 200 && res.status !== 204) throw new OutboundError(`target ${target} answered HTTP ${res.status}: ${res.body.slice(0, 300)}`, res.status);
  }

  private async readOwn(lease: PipeLease, url: string | null, since: Date | null): Promise<{ statements: Json[]; more: string | null }> {
    const own = `${this.pipes.ownEndpoint(lease.appId)}statements`;
    const token = url === null ? undefined : (new URL(url).searchParams.get('more') ?? undefined);
    const page = await this.statements.query(lease.appId, { ascending: true, limit: PIPE_PAGE_SIZE, ...(since ? { since } : {}) }, token);
    return { statements: page.statements, more: page.more ? `${own}?more=${encodeURIComponent(page.more)}` : null };
  }
}
