import { QueryFailedError } from 'typeorm';

/** A duplicate key on insert: MySQL/MariaDB ER_DUP_ENTRY, SQLite's PRIMARY KEY / UNIQUE constraint. */
export function isUniqueViolation(err: unknown): boolean {
  // A driver's own error too: a hot transaction's statements (inHotTransaction) run without TypeORM.
  const code = ((err instanceof QueryFailedError ? err.driverError : err) as { code?: unknown } | undefined)?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * Runs a read-then-insert transaction again when a concurrent request inserted the same key first: the second run
 * sees that row and answers as if the requests had come one after the other (idempotent, 409 or 412).
 */
export async function onceMoreIfRaced<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return work();
  }
}
