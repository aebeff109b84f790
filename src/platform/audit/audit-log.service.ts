import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { userInfo } from 'node:os';
import { Repository } from 'typeorm';
import { PageTokens } from '../http/page-tokens';
import { AuditEntryEntity } from './audit-entry.entity';

/** Who made a change: a key or token of an application (with the client's address), or the `lcds` CLI. */
export interface AuditActor {
  kind: 'basic' | 'bearer' | 'cli';
  appId: string | null;
  credentialId: string | null;
  source: string | null;
}

export interface AuditRecord {
  appId: string;
  action: string;
  actor: AuditActor;
  targets?: Record<string, string>;
  fields?: string[];
}

/** An entry as GET /api/v2/lcds/audit and `lcds audit` show it. */
export interface AuditEntryView {
  id: string;
  occurredAt: string;
  appId: string;
  action: string;
  actorKind: string;
  actorAppId: string | null;
  actorCredentialId: string | null;
  source: string | null;
  targets: Record<string, string>;
  fields: string[];
}

export interface AuditFilters {
  since?: string;
  until?: string;
  action?: string;
}

export const AUDIT_PAGE_SIZE = 100;

/** The actor of a change made with the CLI on this machine. */
export function cliActor(): AuditActor {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No user name (a container without passwd entry): the kind says enough.
  }
  return { kind: 'cli', appId: null, credentialId: null, source: `cli:${user}` };
}

/** The audit log: writes entries (ids and field names only) and reads them page by page, newest first. */
@Injectable()
export class AuditLog {
  private readonly logger = new Logger(AuditLog.name);

  constructor(
    @InjectRepository(AuditEntryEntity) private readonly entries: Repository<AuditEntryEntity>,
    private readonly tokens: PageTokens,
  ) {}

  async record(entry: AuditRecord): Promise<void> {
    const row = Object.assign(new AuditEntryEntity(), {
      appId: entry.appId,
      occurredAt: new Date(),
      action: entry.action,
      actorKind: entry.actor.kind,
      actorAppId: entry.actor.appId,
      actorCredentialId: entry.actor.credentialId,
      source: entry.actor.source?.slice(0, 191) ?? null,
      targets: JSON.stringify(entry.targets ?? {}),
      fields: JSON.stringify([...new Set(entry.fields ?? [])].sort()),
    });
    try {
      await this.entries.insert(row);
    } catch (err) {
      // The change itself is done; a lost audit row is logged loudly rather than failing what succeeded.
      this.logger.error({ msg: 'audit entry not stored', appId: entry.appId, action: entry.action, err: (err as Error).message });
    }
  }

  /** One page of an application's entries, newest first; `more` resumes after the last one. */
  async list(appId: string, input: AuditFilters & { more?: string }): Promise<{ entries: AuditEntryView[]; more?: string }> {
    let filters: AuditFilters = { since: input.since, until: input.until, action: input.action };
    let after: string | null = null;
    if (input.more !== undefined) {
      const state = this.tokens.decode<AuditFilters>('audit', appId, input.more);
      filters = state.filters;
      after = String(state.after[0]);
    }
    const qb = this.entries.createQueryBuilder('a').where('a.app_id = :appId', { appId });
    if (filters.since) qb.andWhere('a.occurred_at >= :since', { since: new Date(filters.since) });
    if (filters.until) qb.andWhere('a.occurred_at <= :until', { until: new Date(filters.until) });
    if (filters.action) qb.andWhere('a.action = :action', { action: filters.action });
    if (after !== null) qb.andWhere('a.seq < :after', { after });
    const rows = await qb
      .orderBy('a.seq', 'DESC')
      .limit(AUDIT_PAGE_SIZE + 1)
      .getMany();
    const page = rows.slice(0, AUDIT_PAGE_SIZE);
    const more = rows.length > AUDIT_PAGE_SIZE ? this.tokens.encode('audit', appId, { filters, after: [page[page.length - 1].seq] }) : undefined;
    return { entries: page.map(toView), ...(more ? { more } : {}) };
  }
}

function toView(row: AuditEntryEntity): AuditEntryView {
  return {
    id: String(row.seq),
    occurredAt: row.occurredAt.toISOString(),
    appId: row.appId,
    action: row.action,
    actorKind: row.actorKind,
    actorAppId: row.actorAppId,
    actorCredentialId: row.actorCredentialId,
    source: row.source,
    targets: JSON.parse(row.targets) as Record<string, string>,
    fields: JSON.parse(row.fields) as string[],
  };
}
