import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, In, MoreThan } from 'typeorm';
import { ConflictError, DomainError, InvalidInputError, NotFoundError } from '../../platform/http/domain-errors';
import { XapiDocumentEntity, XapiDocumentKind } from './entities/xapi-document.entity';
import { indexKey } from './lrs/statement-keys';
import { onceMoreIfRaced } from './unique-violation';

/** 412: an If-Match / If-None-Match precondition of a document request does not hold. */
export class PreconditionFailedError extends DomainError {
  readonly status = 412;
}

/** Which documents: what they hang off (activityId, agent IFI, registration) and, for one document, its id. */
export interface DocumentScope {
  kind: XapiDocumentKind;
  activityId?: string;
  /** The agent's inverse functional identifier (ifiOf). */
  agent?: string;
  registration?: string;
}

/** If-Match / If-None-Match as sent (already unquoted lists are not assumed: the raw header values). */
export interface Preconditions {
  ifMatch?: string;
  ifNoneMatch?: string;
}

export interface StoredDocument {
  id: string;
  content: Buffer;
  contentType: string;
  etag: string;
  updated: Date;
}

const JSON_TYPE = /^application\/json\b/i;

/** The State, Activity Profile and Agent Profile documents of the applications' LRSs; every method is scoped to one application. */
@Injectable()
export class XapiDocumentsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async get(appId: string, scope: DocumentScope, id: string): Promise<StoredDocument> {
    const row = await this.dataSource.manager.findOneBy(XapiDocumentEntity, this.where(appId, scope, id));
    if (!row) throw new NotFoundError('Document', id);
    return this.out(row);
  }

  /** The ids of the documents in a scope, updated after `since` when given. */
  async list(appId: string, scope: DocumentScope, since?: Date): Promise<string[]> {
    const rows = await this.dataSource.manager.find(XapiDocumentEntity, {
      where: { appId, kind: scope.kind, scope: scopeHash(scope), ...(since ? { updated: MoreThan(since) } : {}) },
      select: { docId: true },
      order: { updated: 'ASC' },
    });
    return rows.map((r) => r.docId);
  }

  /**
   * PUT replaces the document, POST merges JSON objects into it (both must be JSON objects). `requirePrecondition`:
   * whether a PUT must carry If-Match or If-None-Match: 'always' (a 409 when the document exists, else a 400),
   * 'ifExists' (the 409 only) or 'never'.
   */
  async write(appId: string, scope: DocumentScope, id: string, doc: { content: Buffer; contentType: string }, opts: { merge: boolean; preconditions: Preconditions; requirePrecondition: 'always' | 'ifExists' | 'never' }): Promise<void> {
    await onceMoreIfRaced(() => this.dataSource.transaction(async (m) => {
      const where = this.where(appId, scope, id);
      const existing = await m.findOneBy(XapiDocumentEntity, where);
      checkPreconditions(existing, opts.preconditions);
      if (!opts.merge && opts.requirePrecondition !== 'never' && opts.preconditions.ifMatch === undefined && opts.preconditions.ifNoneMatch === undefined) {
        if (existing) throw new ConflictError('The document already exists: get it for its current ETag and send that in If-Match to replace it');
        if (opts.requirePrecondition === 'always') throw new InvalidInputError('A PUT of a profile document needs If-Match (its ETag) or If-None-Match: * (to create it)');
      }
      let { content, contentType } = doc;
      if (opts.merge && existing) {
        const current = jsonObject(existing.content, existing.contentType, 'The stored document');
        const incoming = jsonObject(content, contentType, 'The posted document');
        content = Buffer.from(JSON.stringify({ ...current, ...incoming }));
        contentType = 'application/json';
      } else if (opts.merge && JSON_TYPE.test(contentType)) {
        jsonObject(content, contentType, 'The posted document');
      }
      const row = { ...where, docId: id, content, contentType, etag: sha1(content), updated: new Date(), agentKey: scope.agent ? indexKey(scope.agent) : null };
      if (existing) await m.update(XapiDocumentEntity, where, row);
      else await m.insert(XapiDocumentEntity, row);
    }));
  }

  async delete(appId: string, scope: DocumentScope, id: string, preconditions: Preconditions): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const where = this.where(appId, scope, id);
      const existing = await m.findOneBy(XapiDocumentEntity, where);
      checkPreconditions(existing, preconditions);
      if (existing) await m.delete(XapiDocumentEntity, where);
    });
  }

  /** Every document of a scope (DELETE on the State resource without stateId). */
  async deleteAll(appId: string, scope: DocumentScope): Promise<void> {
    await this.dataSource.manager.delete(XapiDocumentEntity, { appId, kind: scope.kind, scope: scopeHash(scope) });
  }

  /**
   * The State and Agent Profile documents of these agents (their agent keys, as the statements' agentKey): a learner's
   * erasure. Answers how many were deleted.
   */
  async eraseAgents(appId: string, agentKeys: string[]): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < agentKeys.length; i += 200) {
      deleted += (await this.dataSource.manager.delete(XapiDocumentEntity, { appId, agentKey: In(agentKeys.slice(i, i + 200)) })).affected ?? 0;
    }
    return deleted;
  }

  /** Everything of an application (application deletion). */
  async purgeApplication(appId: string): Promise<void> {
    await this.dataSource.manager.delete(XapiDocumentEntity, { appId });
  }

  private where(appId: string, scope: DocumentScope, id: string) {
    return { appId, kind: scope.kind, scope: scopeHash(scope), docKey: indexKey(id) };
  }

  private out(row: XapiDocumentEntity): StoredDocument {
    return { id: row.docId, content: Buffer.from(row.content), contentType: row.contentType, etag: row.etag, updated: row.updated };
  }
}

function scopeHash(scope: DocumentScope): string {
  return createHash('sha256')
    .update(JSON.stringify([scope.activityId ?? null, scope.agent ?? null, scope.registration?.toLowerCase() ?? null]))
    .digest('hex');
}

function sha1(content: Buffer): string {
  return createHash('sha1').update(content).digest('hex');
}

function etagsOf(header: string): string[] {
  return header.split(',').map((t) => t.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1'));
}

/** RFC 7232: If-Match fails when nothing exists or no tag matches; If-None-Match fails when something matches. */
function checkPreconditions(existing: XapiDocumentEntity | null, p: Preconditions): void {
  if (p.ifMatch !== undefined) {
    const tags = etagsOf(p.ifMatch);
    if (!existing || !(tags.includes('*') || tags.includes(existing.etag))) throw new PreconditionFailedError('If-Match: the document has changed (or does not exist); get it again for its current ETag');
  }
  if (p.ifNoneMatch !== undefined && existing) {
    const tags = etagsOf(p.ifNoneMatch);
    if (tags.includes('*') || tags.includes(existing.etag)) throw new PreconditionFailedError('If-None-Match: the document already exists');
  }
}

function jsonObject(content: Buffer, contentType: string, what: string): Record<string, unknown> {
  if (!JSON_TYPE.test(contentType)) throw new InvalidInputError(`${what} is not application/json, so the two cannot be merged; use PUT to replace it`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(content.toString('utf8'));
  } catch {
    throw new InvalidInputError(`${what} is not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidInputError(`${what} is not a JSON object, so it cannot be merged`);
  return parsed as Record<string, unknown>;
}
