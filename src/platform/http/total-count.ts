import type { Response } from 'express';

/** `includeTotalCount=true` on a first page puts the number of matching rows into `X-Total-Count`. */
export function setTotalCount(res: Response, total: number | undefined): void {
  if (total !== undefined) res.setHeader('X-Total-Count', String(total));
}

/** A list page's body (`{[key]: items, more?}`), with its total count in `X-Total-Count` when it was asked for. */
export function pagedBody<K extends string, T>(res: Response, key: K, page: { more?: string; total?: number } & Record<K, T>): Record<K, T> & { more?: string } {
  setTotalCount(res, page.total);
  return { [key]: page[key], ...(page.more ? { more: page.more } : {}) } as Record<K, T> & { more?: string };
}
