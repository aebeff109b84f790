import { dbDateText } from './seed-db';

/**
 * The SQL one GetCourses page runs, rebuilt by hand from src/modules/courses/courses.service.ts (list, describe),
 * src/platform/http/list-query.ts (filters, keyset, LIMIT pageSize + 1) and src/modules/tags/tags.service.ts
 * (tag filter, tagsFor) as of this benchmark's writing, for EXPLAIN and for timing the database alone. The
 * benchmark checks that the page query answers the same ids as the API (see `checkSameIds`), so a drift of
 * the service's query shows up as an error instead of a misleading plan.
 */

export interface ListScenarioQuery {
  appId: string;
  /** `tags=` of the call (any of). */
  tags?: readonly string[];
  /** `filter=` with filterBy=course_title. */
  titleFilter?: string;
  /** The keyset position carried by the `more` token: [created_at ISO, id]. */
  after?: [string, string];
}

export const PAGE_SIZE = 100;

const COURSE_COLUMNS = ['app_id', 'id', 'title', 'latest_version', 'created_at', 'updated_at'];

/** The page query (orderBy created_desc, the default). */
export function pageQuery(q: ListScenarioQuery): { sql: string; params: unknown[] } {
  const params: unknown[] = [q.appId];
  let sql = `SELECT ${COURSE_COLUMNS.map((c) => `\`c\`.\`${c}\` AS \`c_${c}\``).join(', ')} FROM \`course\` \`c\` WHERE \`c\`.\`app_id\` = ?`;
  if (q.tags && q.tags.length > 0) {
    sql +=
      ' AND EXISTS (SELECT 1 FROM `tag` `tagf1` WHERE `tagf1`.`app_id` = ? AND `tagf1`.`resource_type` = ? AND `tagf1`.`resource_id` = `c`.`id`' +
      ` AND \`tagf1\`.\`tag\` IN (${q.tags.map(() => '?').join(', ')}))`;
    params.push(q.appId, 'course', ...q.tags);
  }
  if (q.titleFilter !== undefined) {
    sql += " AND LOWER(`c`.`title`) LIKE ? ESCAPE '!'";
    params.push(`%${q.titleFilter.toLowerCase().replace(/[!%_]/g, (ch) => `!${ch}`)}%`);
  }
  if (q.after) {
    const at = dbDateText(new Date(q.after[0]));
    sql += ' AND ((`c`.`created_at` < ? OR (`c`.`created_at` = ? AND `c`.`id` < ?)))';
    params.push(at, at, q.after[1]);
  }
  sql += ` ORDER BY \`c\`.\`created_at\` DESC, \`c\`.\`id\` DESC LIMIT ${PAGE_SIZE + 1}`;
  return { sql, params };
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

/** The keyset position in a `more` token (its payload is base64url JSON `{v, f, a}` before the signature). */
export function afterOfToken(token: string): [string, string] {
  const payload = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8')) as { a: [string, string] };
  return payload.a;
}
