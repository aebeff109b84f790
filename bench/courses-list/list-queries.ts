import { dbDateText } from './seed-db';

/**
 * The SQL one GetCourses page runs, rebuilt by hand from src/modules/courses/courses.service.ts (list, describe),
 * src/platform/http/list-query.ts (filters, keyset, LIMIT pageSize + 1, idsFirst pages in two steps) and
 * src/modules/tags/tags.service.ts (tag filter plans, tagFilterPlan, tagsFor) as of this benchmark's writing, for
 * EXPLAIN and for timing the database alone. The benchmark checks that the page query answers the same ids as the
 * API (the id check in courses-list.bench.ts), so a drift of the service's query shows up as an error instead of a misleading plan.
 */

export type ListOrder = 'created_desc' | 'title_asc' | 'title_desc';

export interface ListScenarioQuery {
  appId: string;
  /** `tags=` of the call (any of). */
  tags?: readonly string[];
  /** How the service reads the tagged courses (TagFilterPlan), as the first page chose it. */
  tagPlan?: 'join' | 'probe';
  /** `filter=` with filterBy=course_title. */
  titleFilter?: string;
  /** orderBy (default created_desc). */
  orderBy?: ListOrder;
  /** The keyset position carried by the `more` token: [created_at ISO or title key, id]. */
  after?: [string, string];
}

export const PAGE_SIZE = 100;
/** TAG_JOIN_MAX_ROWS of tags.service.ts. */
export const TAG_JOIN_MAX_ROWS = 2000;
/** TITLE_KEY_LENGTH of course.entity.ts. */
const TITLE_KEY_LENGTH = 380;

const COURSE_COLUMNS = ['app_id', 'id', 'title', 'title_key', 'latest_version', 'created_at', 'updated_at'];

function tagCondition(q: ListScenarioQuery, params: unknown[]): string {
  if (!q.tags || q.tags.length === 0) return '';
  params.push(q.appId, 'course', ...q.tags);
  const select =
    'SELECT 1 FROM `tag` `tagf1` WHERE `tagf1`.`app_id` = ? AND `tagf1`.`resource_type` = ? AND `tagf1`.`resource_id` = `c`.`id`' +
    ` AND \`tagf1\`.\`tag\` IN (${q.tags.map(() => '?').join(', ')})`;
  return q.tagPlan === 'probe' ? ` AND (${select} LIMIT 1) IS NOT NULL` : ` AND EXISTS (${select})`;
}

function likeParam(filter: string): string {
  return `%${filter.toLowerCase().replace(/[!%_]/g, (ch) => `!${ch}`)}%`;
}

/** Whether the service reads the page ids first (courses.service.ts: a title filter, or the tag probe plan). */
export function idsFirst(q: ListScenarioQuery): boolean {
  return q.titleFilter !== undefined || q.tagPlan === 'probe';
}

/**
 * The page query: with idsFirst, step 1 (the sort value and id of up to 101 courses, from an index alone), else the
 * one query of the page (its rows; `lq_id` added for the benchmark's id check).
 */
export function pageQuery(q: ListScenarioQuery): { sql: string; params: unknown[] } {
  const order = q.orderBy ?? 'created_desc';
  const sort = order === 'created_desc' ? '`c`.`created_at`' : '`c`.`title_key`';
  const desc = order.endsWith('desc');
  const params: unknown[] = [q.appId];
  const columns = idsFirst(q)
    ? `${sort} AS \`lq_sort\`, \`c\`.\`id\` AS \`lq_id\``
    : `\`c\`.\`id\` AS \`lq_id\`, ${COURSE_COLUMNS.map((c) => `\`c\`.\`${c}\` AS \`c_${c}\``).join(', ')}`;
  let sql = `SELECT ${columns} FROM \`course\` \`c\` WHERE \`c\`.\`app_id\` = ?`;
  sql += tagCondition(q, params);
  if (q.titleFilter !== undefined) {
    sql += ` AND (\`c\`.\`title_key\` LIKE ? COLLATE utf8mb4_general_ci ESCAPE '!' OR LENGTH(\`c\`.\`title_key\`) >= ${TITLE_KEY_LENGTH})`;
    params.push(likeParam(q.titleFilter));
  }
  if (q.after) {
    const value = order === 'created_desc' ? dbDateText(new Date(q.after[0])) : q.after[0];
    const op = desc ? '<' : '>';
    sql += ` AND ${sort} ${op}= ? AND (${sort} ${op} ? OR \`c\`.\`id\` ${op} ?)`;
    params.push(value, value, q.after[1]);
  }
  const dir = desc ? 'DESC' : 'ASC';
  sql += ` ORDER BY ${sort} ${dir}, \`c\`.\`id\` ${dir} LIMIT ${PAGE_SIZE + 1}`;
  return { sql, params };
}

/** Step 2 of an idsFirst page: the rows of those ids, the filters checked on the whole title. */
export function rowsQuery(q: ListScenarioQuery, ids: string[]): { sql: string; params: unknown[] } {
  const params: unknown[] = [q.appId];
  let sql = `SELECT ${COURSE_COLUMNS.map((c) => `\`c\`.\`${c}\` AS \`c_${c}\``).join(', ')} FROM \`course\` \`c\` WHERE \`c\`.\`app_id\` = ?`;
  sql += tagCondition(q, params);
  if (q.titleFilter !== undefined) {
    sql += " AND `c`.`title` LIKE ? COLLATE utf8mb4_general_ci ESCAPE '!'";
    params.push(likeParam(q.titleFilter));
  }
  sql += ` AND \`c\`.\`id\` IN (${ids.map(() => '?').join(', ')})`;
  params.push(...ids);
  return { sql, params };
}

/** TagsService.tagFilterPlan, on the first page of a tag-filtered list: the tag rows, counted up to TAG_JOIN_MAX_ROWS + 1. */
export function tagPlanQuery(q: ListScenarioQuery): { sql: string; params: unknown[] } | null {
  if (!q.tags || q.tags.length === 0 || q.after) return null;
  return {
    sql:
      'SELECT COUNT(*) AS n FROM (SELECT 1 FROM `tag` `t` WHERE `t`.`app_id` = ? AND `t`.`resource_type` = ?' +
      ` AND \`t\`.\`tag\` IN (${q.tags.map(() => '?').join(', ')}) LIMIT ${TAG_JOIN_MAX_ROWS + 1}) bounded`,
    params: [q.appId, 'course', ...q.tags],
  };
}

/** describe(): the latest version of every course of the page. */
export function versionsQuery(appId: string, ids: string[]): { sql: string; params: unknown[] } {
  return {
    sql:
      'SELECT `v`.* FROM `course_version` `v` INNER JOIN `course` `c` ON `c`.`app_id` = `v`.`app_id` AND `c`.`id` = `v`.`course_id` AND `c`.`latest_version` = `v`.`version`' +
      ` WHERE \`v\`.\`app_id\` = ? AND \`v\`.\`course_id\` IN (${ids.map(() => '?').join(', ')})`,
    params: [appId, ...ids],
  };
}

/** describe(): tags of every course of the page (TagsService.tagsFor). */
export function tagsQuery(appId: string, ids: string[]): { sql: string; params: unknown[] } {
  return {
    sql:
      'SELECT `t`.`resource_id`, `t`.`tag` FROM `tag` `t` WHERE `t`.`app_id` = ? AND `t`.`resource_type` = ?' +
      ` AND \`t\`.\`resource_id\` IN (${ids.map(() => '?').join(', ')}) ORDER BY \`t\`.\`resource_id\` ASC, \`t\`.\`tag\` ASC`,
    params: [appId, 'course', ...ids],
  };
}

/** What a `more` token carries (its payload is base64url JSON `{v, f, a}` before the signature): the keyset position and the tag plan. */
export function tokenState(token: string): { after: [string, string]; tagPlan?: 'join' | 'probe' } {
  const payload = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8')) as { a: [string, string]; f: { tagPlan?: 'join' | 'probe' } };
  return { after: payload.a, tagPlan: payload.f.tagPlan };
}
