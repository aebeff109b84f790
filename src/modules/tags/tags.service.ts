import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import { ApplicationHooks } from '../applications/application-hooks';
import { TagEntity } from './entities/tag.entity';
import { normalizeIds, normalizeTags, TAGGABLE_TYPES, TaggableType } from './tag-rules';

/** Rows per INSERT/DELETE statement: four parameters a row stays far below every driver's limit. */
const CHUNK = 500;

/**
 * How a list reads the resources carrying some tags:
 * - `join`: from the tag rows (an EXISTS, which MySQL/MariaDB turn into a semi-join): reads every tagged resource
 *   and sorts them; what a rare tag needs.
 * - `probe`: along the list's own index order, one primary-key probe of the tag table per resource, until the page
 *   is full (a scalar subquery, which no database turns into a join): reads about pageSize / share-tagged rows;
 *   what a common tag needs (10 % of 100,000 courses: 1,000 probes, where `join` reads and sorts 10,000 rows).
 */
export type TagFilterPlan = 'join' | 'probe';

/** Up to this many tag rows, `join`; more, `probe` (the two cost the same near 3,000 on 100,000 courses). */
export const TAG_JOIN_MAX_ROWS = 2000;

let filterSequence = 0;

/**
 * Tags of every taggable resource type, on one table. Callers check that the resource exists (and belongs to
 * the application) before calling; tags are validated and normalised here (trimmed, de-duplicated, ≤ 191
 * characters, ≤ 100 per call).
 */
@Injectable()
export class TagsService implements OnModuleInit {
  constructor(
    @InjectRepository(TagEntity) private readonly tags: Repository<TagEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly hooks: ApplicationHooks,
  ) {}

  onModuleInit(): void {
    this.hooks.registerPurger('tags', (appId) => this.purgeApplication(appId));
  }

  /** TagListSchema.tags of one resource, in tag order. */
  async get(appId: string, type: TaggableType, id: string): Promise<string[]> {
    checkType(type);
    const rows = await this.tags.find({ select: { tag: true }, where: { appId, resourceType: type, resourceId: id }, order: { tag: 'ASC' } });
    return rows.map((r) => r.tag);
  }

  /** PUT semantics: the resource ends up with exactly these tags. */
  async replace(appId: string, type: TaggableType, id: string, tags: readonly string[], manager?: EntityManager): Promise<void> {
    checkType(type);
    const normalized = normalizeTags(tags);
    const run = async (m: EntityManager) => {
      await m.delete(TagEntity, { appId, resourceType: type, resourceId: id });
      await insertIgnore(m, normalized.map((tag) => ({ appId, resourceType: type, resourceId: id, tag })));
    };
    await (manager ? run(manager) : this.dataSource.transaction(run));
  }

  /** Adds tags to one resource, keeping those it has. */
  async add(appId: string, type: TaggableType, id: string, tags: readonly string[], manager?: EntityManager): Promise<void> {
    await this.addBatch(appId, type, [id], tags, manager);
  }

  /** DELETE .../{id}/tags: removes these tags; tags the resource does not have are ignored. */
  async remove(appId: string, type: TaggableType, id: string, tags: readonly string[]): Promise<void> {
    checkType(type);
    const normalized = normalizeTags(tags);
    if (normalized.length === 0) return;
    await this.tags.delete({ appId, resourceType: type, resourceId: id, tag: In(normalized) });
  }

  /**
   * BatchTagsSchema: every tag is added to every id ("Add a group of tags to a group of …"); tags the
   * resources already have stay. All or nothing.
   */
  async addBatch(appId: string, type: TaggableType, ids: readonly string[], tags: readonly string[], manager?: EntityManager): Promise<void> {
    checkType(type);
    const normalizedIds = normalizeIds(ids);
    const normalizedTags = normalizeTags(tags);
    const rows = normalizedIds.flatMap((resourceId) => normalizedTags.map((tag) => ({ appId, resourceType: type, resourceId, tag })));
    if (rows.length === 0) return;
    if (manager || rows.length <= CHUNK) await insertIgnore(manager ?? this.dataSource.manager, rows);
    else await this.dataSource.transaction((m) => insertIgnore(m, rows));
  }

  /** Tags of many resources in one query (for list pages); every id asked for has an entry. */
  async tagsFor(appId: string, type: TaggableType, ids: readonly string[]): Promise<Map<string, string[]>> {
    checkType(type);
    const result = new Map<string, string[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return result;
    const rows = await this.tags.find({
      select: { resourceId: true, tag: true },
      where: { appId, resourceType: type, resourceId: In([...new Set(ids)]) },
      order: { resourceId: 'ASC', tag: 'ASC' },
    });
    for (const row of rows) result.get(row.resourceId)?.push(row.tag);
    return result;
  }

  /**
   * Restricts a list query to resources carrying any of the tags (`tags=a,b` means a OR b). `alias.idColumn` is the
   * resource id in the caller's query (a property path such as `c.id`, or a raw column); the caller's query already
   * limits itself to the application. No tags: no filter. See TagFilterPlan for `plan`.
   */
  applyTagFilter<T extends ObjectLiteral>(
    qb: SelectQueryBuilder<T>,
    alias: string,
    idColumn: string,
    appId: string,
    type: TaggableType,
    tags: readonly string[] | undefined,
    plan: TagFilterPlan = 'join',
  ): SelectQueryBuilder<T> {
    const condition = this.tagFilterCondition(`${alias}.${idColumn}`, appId, type, tags, plan);
    return condition ? qb.andWhere(condition.sql, condition.parameters) : qb;
  }

  /** The condition applyTagFilter adds, for callers that compose their own WHERE; null when there are no tags. */
  tagFilterCondition(
    idExpression: string,
    appId: string,
    type: TaggableType,
    tags: readonly string[] | undefined,
    plan: TagFilterPlan = 'join',
  ): { sql: string; parameters: Record<string, unknown> } | null {
    checkType(type);
    const wanted = wantedTags(tags);
    if (wanted.length === 0) return null;
    const n = ++filterSequence;
    const t = this.dataSource.driver.escape(`tagf${n}`);
    const column = (name: string) => `${t}.${this.dataSource.driver.escape(name)}`;
    const select =
      `SELECT 1 FROM ${this.dataSource.driver.escape('tag')} ${t} WHERE ${column('app_id')} = :tagfApp${n}` +
      ` AND ${column('resource_type')} = :tagfType${n} AND ${column('resource_id')} = ${idExpression} AND ${column('tag')} IN (:...tagfTags${n})`;
    const sql = plan === 'probe' ? `(${select} LIMIT 1) IS NOT NULL` : `EXISTS (${select})`;
    return { sql, parameters: { [`tagfApp${n}`]: appId, [`tagfType${n}`]: type, [`tagfTags${n}`]: wanted } };
  }

  /** The plan for a list filtered by these tags, from how many tag rows they have (counted up to TAG_JOIN_MAX_ROWS + 1). */
  async tagFilterPlan(appId: string, type: TaggableType, tags: readonly string[]): Promise<TagFilterPlan> {
    checkType(type);
    const wanted = wantedTags(tags);
    if (wanted.length === 0) return 'join';
    const tagged = this.tags
      .createQueryBuilder('t')
      .select('1')
      .where('t.appId = :appId AND t.resourceType = :type AND t.tag IN (:...wanted)', { appId, type, wanted })
      .limit(TAG_JOIN_MAX_ROWS + 1);
    const [sql, parameters] = tagged.getQueryAndParameters();
    const rows: Array<{ n: string | number }> = await this.dataSource.query(`SELECT COUNT(*) AS n FROM (${sql}) bounded`, parameters);
    return Number(rows[0]?.n ?? 0) > TAG_JOIN_MAX_ROWS ? 'probe' : 'join';
  }

  /** Removes every tag of deleted resources. */
  async purge(appId: string, type: TaggableType, ids: string | readonly string[]): Promise<void> {
    checkType(type);
    const list = typeof ids === 'string' ? [ids] : [...new Set(ids)];
    for (let i = 0; i < list.length; i += CHUNK) {
      await this.tags.delete({ appId, resourceType: type, resourceId: In(list.slice(i, i + CHUNK)) });
    }
  }

  async purgeApplication(appId: string): Promise<void> {
    await this.tags.delete({ appId });
  }
}

async function insertIgnore(manager: EntityManager, rows: TagEntity[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await manager.createQueryBuilder().insert().into(TagEntity).values(rows.slice(i, i + CHUNK)).orIgnore().execute();
  }
}

function wantedTags(tags: readonly string[] | undefined): string[] {
  return [...new Set((tags ?? []).map((t) => t.trim()).filter((t) => t !== ''))];
}

function checkType(type: string): void {
  if (!(TAGGABLE_TYPES as readonly string[]).includes(type)) throw new Error(`not a taggable resource type: ${type}`);
}
