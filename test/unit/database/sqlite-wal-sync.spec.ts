import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deferCommitSyncOn, SharedSync, withDeferredWalSync } from '../../../src/platform/database/sqlite-wal-sync';

describe('SharedSync: one flush at a time, each caller waits for one that began after its call', () => {
  /** A flush the test finishes by hand. */
  const gatedFlush = () => {
    const gates: Array<() => void> = [];
    let started = 0;
    const flush = () => {
      started++;
      return new Promise<void>((resolve) => gates.push(resolve));
    };
    return { flush, gates, started: () => started };
  };

  it('callers that arrive while a flush runs share the next one, not the running one', async () => {
    const f = gatedFlush();
    const sync = new SharedSync(f.flush);
    const done: string[] = [];
    const first = sync.sync().then(() => done.push('first'));
    const later = [1, 2, 3].map((n) => sync.sync().then(() => done.push(`later-${n}`)));
    expect(f.started()).toBe(1);
    f.gates[0]();
    await first;
    // The running flush may have begun before the later callers' writes: they are not done with it.
    expect(done).toEqual(['first']);
    await new Promise((r) => setImmediate(r));
    expect(f.started()).toBe(2);
    f.gates[1]();
    await Promise.all(later);
    expect(done).toEqual(['first', 'later-1', 'later-2', 'later-3']);
    // Idle again: the next caller starts a flush of its own at once.
    const again = sync.sync();
    expect(f.started()).toBe(3);
    f.gates[2]();
    await again;
  });

  it('a failed flush fails its callers, and the next callers get a new flush', async () => {
    let fail = true;
    const sync = new SharedSync(() => (fail ? Promise.reject(new Error('EIO')) : Promise.resolve()));
    await expect(sync.sync()).rejects.toThrow('EIO');
    fail = false;
    await expect(sync.sync()).resolves.toBeUndefined();
  });
});

describe('deferCommitSyncOn: a transaction begun in a deferred context commits at NORMAL, everything else at FULL', () => {
  let dir: string;
  let path: string;
  let db: Database.Database;
  const pragmas: string[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lcds-walsync-'));
    path = join(dir, 'db.sqlite');
    db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE t (n INTEGER)');
    const pragma = db.pragma.bind(db);
    db.pragma = ((sql: string, options?: Database.PragmaOptions) => {
      pragmas.push(sql);
      return pragma(sql, options);
    });
    deferCommitSyncOn(db, 'FULL');
    pragmas.length = 0;
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A transaction as TypeORM runs it: BEGIN, statements, COMMIT prepared by its text. */
  const transaction = async (n: number, end = 'COMMIT') => {
    db.prepare('BEGIN TRANSACTION').run();
    await Promise.resolve();
    db.prepare('INSERT INTO t (n) VALUES (?)').run(n);
    await Promise.resolve();
    db.prepare(end).run();
  };
  const synchronous = () => (db.prepare('PRAGMA synchronous').get() as { synchronous: number }).synchronous;

  it('inside withDeferredWalSync: NORMAL from BEGIN to COMMIT, FULL again with the COMMIT; the rows are there after the WAL sync', async () => {
    await withDeferredWalSync(path, () => transaction(1));
    expect(pragmas).toEqual(['synchronous = NORMAL', 'synchronous = FULL']);
    expect(synchronous()).toBe(2);
    expect(db.prepare('SELECT n FROM t').all()).toEqual([{ n: 1 }]);
  });

  it('outside it, and for work it started that commits after it returned, COMMIT keeps its own fsync', async () => {
    await transaction(2);
    let late: Promise<void> = Promise.resolve();
    await withDeferredWalSync(path, () => {
      late = new Promise<void>((resolve) => setTimeout(resolve, 20)).then(() => transaction(3));
      return Promise.resolve();
    });
    await late;
    expect(pragmas).toEqual([]);
    expect(synchronous()).toBe(2);
    expect(db.prepare('SELECT n FROM t ORDER BY n').all()).toEqual([{ n: 2 }, { n: 3 }]);
  });

  it('a deferred transaction rolled back, or a COMMIT with no transaction, leaves the connection at FULL', async () => {
    await withDeferredWalSync(path, () => transaction(4, 'ROLLBACK'));
    expect(pragmas).toEqual(['synchronous = NORMAL', 'synchronous = FULL']);
    // better-sqlite3's native part keeps the error class of the first test file in this worker that loaded it: from
    // another file's realm, its errors are not `instanceof Error` here, and `rejects.toThrow` would not see them.
    await expect(withDeferredWalSync(path, () => Promise.resolve().then(() => db.prepare('COMMIT').run()))).rejects.toMatchObject({
      message: expect.stringMatching(/no transaction is active/),
    });
    expect(pragmas).toHaveLength(2);
    expect(synchronous()).toBe(2);
    expect(db.prepare('SELECT n FROM t').all()).toEqual([]);
  });

  it('a COMMIT that fails keeps the transaction at NORMAL until its ROLLBACK', async () => {
    db.exec('CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (p INTEGER REFERENCES p(id) DEFERRABLE INITIALLY DEFERRED)');
    db.pragma('foreign_keys = ON');
    pragmas.length = 0;
    await withDeferredWalSync(path, async () => {
      await Promise.resolve();
      db.prepare('BEGIN TRANSACTION').run();
      db.prepare('INSERT INTO c (p) VALUES (9)').run();
      expect(() => db.prepare('COMMIT').run()).toThrow(/FOREIGN KEY/);
      expect(db.inTransaction).toBe(true);
      expect(pragmas).toEqual(['synchronous = NORMAL']);
      db.prepare('ROLLBACK').run();
    });
    expect(pragmas).toEqual(['synchronous = NORMAL', 'synchronous = FULL']);
    expect(synchronous()).toBe(2);
  });

  it('a connection configured at NORMAL is left alone', () => {
    const other = new Database(join(dir, 'other.sqlite'));
    const prepare = other.prepare;
    deferCommitSyncOn(other, 'NORMAL');
    expect(other.prepare).toBe(prepare);
    other.close();
  });
});
