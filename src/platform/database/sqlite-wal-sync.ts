import { AsyncLocalStorage } from 'node:async_hooks';
import { open } from 'node:fs/promises';

/**
 * SQLite with synchronous FULL fsyncs the WAL inside every COMMIT, and better-sqlite3 waits for it on the event loop
 * (about 1 ms each here): a request's whole service stops for its disk. A transaction begun in
 * `withDeferredWalSync` commits without that fsync (synchronous NORMAL from its BEGIN, FULL again in the same
 * synchronous step as its COMMIT, so nothing else ever commits at NORMAL) and then waits for an fdatasync of the WAL file in
 * the thread pool, shared by every commit made before it started. The caller answers only after that wait: what it
 * acknowledges is on disk as with FULL, and concurrent requests share one fsync instead of queueing one each.
 */

/** The commits made in a deferred context, waiting for the WAL's next sync. */
interface DeferredCommits {
  committed: boolean;
  /** Work it started that commits after it returned (a job it woke) commits at FULL: nobody would wait for it. */
  closed: boolean;
}

const deferred = new AsyncLocalStorage<DeferredCommits>();

interface StatementLike {
  reader: boolean;
  run(...params: unknown[]): unknown;
}
interface SqliteHandle {
  readonly inTransaction: boolean;
  pragma(sql: string): unknown;
  prepare(sql: string): StatementLike;
}

/**
 * Makes a transaction begun in a deferred context commit without its own fsync (only when the connection runs at
 * FULL: at NORMAL there is nothing to defer). SQLite takes the safety level only outside a transaction, so BEGIN
 * sets NORMAL and the end of the transaction (COMMIT, ROLLBACK) sets FULL again, each in the same synchronous step as
 * the statement: no other statement can commit at NORMAL (while the transaction is open, everything on the one
 * connection is inside it). Called from the data source's `prepareDatabase`; TypeORM caches the statements it gets,
 * so the returned ones decide at each run.
 */
export function deferCommitSyncOn(db: SqliteHandle, synchronous: 'FULL' | 'NORMAL'): void {
  if (synchronous !== 'FULL') return;
  const prepare = db.prepare.bind(db);
  /** The commits waiting for the WAL sync of the open transaction, when it began at NORMAL. */
  let atNormal: DeferredCommits | null = null;
  const wrap = (stmt: StatementLike, run: (...params: unknown[]) => unknown) =>
    new Proxy(stmt, { get: (target, key) => (key === 'run' ? run : (Reflect.get(target, key, target) as unknown)) });
  db.prepare = (sql: string) => {
    const stmt = prepare(sql);
    const verb = sql.trim().split(/\s+/)[0].toUpperCase();
    if (verb === 'BEGIN') {
      return wrap(stmt, (...params) => {
        const commits = deferred.getStore();
        if (!commits || commits.closed || db.inTransaction) return stmt.run(...params);
        db.pragma('synchronous = NORMAL');
        try {
          const result = stmt.run(...params);
          atNormal = commits;
          return result;
        } catch (err) {
          db.pragma('synchronous = FULL');
          throw err;
        }
      });
    }
    if (verb === 'COMMIT' || verb === 'END' || verb === 'ROLLBACK') {
      return wrap(stmt, (...params) => {
        if (!atNormal) return stmt.run(...params);
        const commits = atNormal;
        try {
          return stmt.run(...params);
        } finally {
          // A COMMIT that failed leaves the transaction open (TypeORM rolls it back next): NORMAL until it ends.
          if (!db.inTransaction) {
            atNormal = null;
            db.pragma('synchronous = FULL');
            if (verb !== 'ROLLBACK') commits.committed = true;
          }
        }
      });
    }
    return stmt;
  };
}

/**
 * One fdatasync of a file at a time, shared: a caller needs a sync that began after its call (one already running
 * may have begun before the caller's writes), so callers arriving while one runs all wait for the next one.
 */
export class SharedSync {
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(private readonly flush: () => Promise<void>) {}

  static ofFile(path: string): SharedSync {
    return new SharedSync(async () => {
      // No WAL file: the last connection closed, and SQLite checkpointed it into the database file, synced, first.
      const file = await open(path, 'r+').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null;
        throw err;
      });
      if (!file) return;
      try {
        await file.datasync();
      } finally {
        await file.close();
      }
    });
  }

  sync(): Promise<void> {
    if (!this.running) return this.start();
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.start();
      });
    return this.queued;
  }

  private start(): Promise<void> {
    const run: Promise<void> = this.flush().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }
}

const walSyncs = new Map<string, SharedSync>();

/**
 * Runs `work`; if it committed a transaction whose fsync was deferred, waits for the WAL file of `databasePath` to
 * reach the disk before returning. `databasePath` undefined (not SQLite, or in memory): `work` as it is.
 */
export async function withDeferredWalSync<T>(databasePath: string | undefined, work: () => Promise<T>): Promise<T> {
  if (!databasePath || databasePath === ':memory:') return work();
  const commits: DeferredCommits = { committed: false, closed: false };
  try {
    return await deferred.run(commits, work);
  } finally {
    commits.closed = true;
    // Also when `work` failed after a commit (a refusal after a claim): what it committed reaches the disk first.
    if (commits.committed) await walSyncOf(databasePath).sync();
  }
}

function walSyncOf(databasePath: string): SharedSync {
  let walSync = walSyncs.get(databasePath);
  if (!walSync) walSyncs.set(databasePath, (walSync = SharedSync.ofFile(`${databasePath}-wal`)));
  return walSync;
}
