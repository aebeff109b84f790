import { ListQuery } from '../../platform/http/list-query';
import { PageTokens } from '../../platform/http/page-tokens';

/** A list of the Dispatch service: 100 a page, by created or updated time, filtered by one of `filterColumns`. */
export function dispatchServiceList(tokens: PageTokens, name: string, alias: string, filterColumns: Record<string, string>, filterBy: string): ListQuery {
  const created = `${alias}.createdAt`;
  const updated = `${alias}.updatedAt`;
  return new ListQuery(tokens, {
    name,
    pageSize: 100,
    datetimeColumns: { created, updated },
    filterColumns,
    orderColumns: { created_asc: created, created_desc: created, updated_asc: updated, updated_desc: updated },
    idColumn: `${alias}.id`,
    defaults: { datetimeFilter: 'updated', filterBy, orderBy: 'updated_asc' },
  });
}

/** The keyset cursor of a dated row in a list sorted (or filtered) by created or updated time. */
export function datedCursor(f: { datetimeFilter: string; orderBy: string }): (row: { createdAt: Date; updatedAt: Date; id: string }) => [Date, string] {
  return (row) => [f.datetimeFilter === 'created' || f.orderBy.startsWith('created') ? row.createdAt : row.updatedAt, row.id];
}
