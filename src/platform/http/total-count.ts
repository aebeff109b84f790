import type { Response } from 'express';

/** `includeTotalCount=true` on a first page puts the number of matching rows into `X-Total-Count`. */
export function setTotalCount(res: Response, total: number | undefined): void {
  if (total !== undefined) res.setHeader('X-Total-Count', String(total));
}
