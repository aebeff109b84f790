import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource } from 'typeorm';
import { withDeferredWalSync } from './sqlite-wal-sync';

/** The transaction a piece of work runs in, while it is open (work it started that outlives it must queue again). */
interface OpenTransaction {
  open: boolean;
}

/**
 * SQLite: TypeORM's better-sqlite3 driver has one connection and one query runner for every caller, so two
 * transactions begun at once (two creations awaited together in one process) interleave on it: the second BEGIN fails
 * ("cannot start a transaction within a transaction"), or one's ROLLBACK undoes the other's statements, and a caller
 * that then looks for what it wrote may find another's. SQLite has one writer anyway; this makes the data source's
 * transactions (`DataSource.transaction`, a repository's `manager.transaction`) take turns, in call order. A
 * transaction begun inside another's callback (same async context) runs at once, as TypeORM's savepoint. No effect
 * on other drivers.
 */
export function serializeSqliteTransactions(dataSource: DataSource): void {
  if (dataSource.options.type !== 'better-sqlite3' && dataSource.options.type !== 'sqlite') return;
  const manager = dataSource.manager;
  const original = manager.transaction.bind(manager) as (...args: unknown[]) => Promise<unknown>;
  const current = new AsyncLocalStorage<OpenTransaction>();
  let tail: Promise<unknown> = Promise.resolve();
  const transaction = (...args: unknown[]): Promise<unknown> => {
    if (current.getStore()?.open) return original(...args);
    const run = tail.then(() => {
      const tx: OpenTransaction = { open: true };
      return current.run(tx, () => original(...args)).finally(() => {
        tx.open = false;
      });
    });
    tail = run.catch(() => undefined);
    return run;
  };
  manager.transaction = transaction;
}

/**
 * SQLite: runs `work` in one transaction (its own transactions nest as savepoints, and its lone statements run on
 * the one connection inside it), so that a request's several writes cost one durable commit instead of one per
 * statement; that commit's fsync runs off the event loop, shared with concurrent requests' (`withDeferredWalSync`),
 * and the returned promise settles once it is on disk. `work` must await nothing but the database (another request's
 * lone statement would otherwise join the transaction). Other drivers: `work` as it is (its statements on the pool).
 */
export function inOneSqliteTransaction<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  if (dataSource.options.type !== 'better-sqlite3' && dataSource.options.type !== 'sqlite') return work();
  return withDeferredWalSync(dataSource.options.database, () => dataSource.transaction(() => work()));
}
