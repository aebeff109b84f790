import { type DataSource, QueryFailedError } from 'typeorm';
import { Mysql2Connection, MysqlPipeline } from './mysql-pipeline';

type Callback<T> = (err: Error | null, result: T) => void;

/** A connection of a mysql2 pool (callback API, as TypeORM creates it). */
interface PooledConnection extends Mysql2Connection {
  release(): void;
  destroy(): void;
}

/** The part of a mysql2 pool (callback API, as TypeORM creates it) that runs prepared statements. */
interface PreparedStatementPool {
  execute(sql: string, values: unknown[], callback: Callback<unknown>): void;
  getConnection(callback: Callback<PooledConnection>): void;
}

const mysqlPool = (dataSource: DataSource): PreparedStatementPool | undefined =>
  dataSource.options.type === 'mysql' ? (dataSource.driver as unknown as { pool?: PreparedStatementPool }).pool : undefined;

const promised = <T>(run: (cb: Callback<T>) => void): Promise<T> => new Promise<T>((resolve, reject) => run((err, result) => (err ? reject(err) : resolve(result))));

/**
 * Runs one statement of a hot path (a runtime commit's read and write), on its own, outside any transaction.
 * MySQL: a prepared statement on TypeORM's pool (mysql2 `execute`: parsed once per connection, parameters sent in
 * binary, so kilobytes of JSON are not escaped into the SQL text, and no query runner is made); the other drivers:
 * `DataSource.query`. Parameters are `?` placeholders; none may be undefined.
 */
export function runHotStatement<T>(dataSource: DataSource, sql: string, values: unknown[]): Promise<T> {
  const pool = mysqlPool(dataSource);
  if (!pool) return dataSource.query<T>(sql, values);
  return promised<T>((cb) => pool.execute(sql, values, cb as Callback<unknown>));
}

/**
 * A lean statement (LeanRead, LeanUpdate, LeanInsert: SQL text made once) outside any transaction. MySQL: a prepared
 * statement on TypeORM's pool, as runHotStatement, its error a QueryFailedError as TypeORM's own (callers tell a
 * duplicate key by it); a query runner a statement (pool checkout, logger, broadcaster, the SQL text escaped on the
 * client) was a third of a dispatch launch's CPU in its profile. The other drivers: a query runner of the data
 * source, TypeORM's (on SQLite its one connection, so inside an open transaction). Rows for a SELECT; the affected
 * row count otherwise.
 */
export async function runLeanStatement(dataSource: DataSource, sql: string, values: unknown[], answersRows: true): Promise<Array<Record<string, unknown>>>;
export async function runLeanStatement(dataSource: DataSource, sql: string, values: unknown[], answersRows: false): Promise<number>;
export async function runLeanStatement(dataSource: DataSource, sql: string, values: unknown[], answersRows: boolean): Promise<Array<Record<string, unknown>> | number> {
  const pool = mysqlPool(dataSource);
  if (pool) {
    // A prepared statement refuses undefined; TypeORM's SQL text wrote NULL for it.
    const params = values.includes(undefined) ? values.map((v) => (v === undefined ? null : v)) : values;
    const result = await promised<unknown>((cb) => pool.execute(sql, params, (err, res) => cb(err && new QueryFailedError(sql, params, err), res)));
    return answersRows ? (result as Array<Record<string, unknown>>) : ((result as { affectedRows?: number }).affectedRows ?? 0);
  }
  const runner = dataSource.createQueryRunner();
  try {
    const result = await runner.query(sql, values, true);
    return answersRows ? (result.records as Array<Record<string, unknown>>) : (result.affected ?? 0);
  } finally {
    await runner.release();
  }
}

/** Runs a prepared statement on the transaction's connection: rows for a SELECT, the OK packet otherwise. */
export type HotExecute = <R = { affectedRows?: number }>(sql: string, values: unknown[]) => Promise<R>;

/**
 * Runs `work` in one transaction on one connection of TypeORM's pool, MySQL only: its statements are prepared
 * statements (no query runner, no entity manager, no savepoints). On an error the transaction is rolled back and the
 * error thrown; a connection whose transaction could not be ended, or its session put back, is destroyed, not handed
 * to the next user.
 *
 * The connection runs the transaction with autocommit off (`SET autocommit = 0`, sent together with the first
 * statement; `COMMIT` or `ROLLBACK` and `SET autocommit = 1` sent together at the end): every round trip waits for
 * the event loop to come round, a few milliseconds under load, so the fewer the better. With autocommit off, `work`
 * may send statements without waiting for the ones before: those without a result set that it sends in the same
 * turn go to the server together, pipelined (MysqlPipeline: one round trip for all), and a statement answering rows
 * goes after them. If one fails, even by a deadlock that rolls the transaction back, those after it run in the (new,
 * implicit) transaction that the ROLLBACK ends, never on their own.
 *
 * Hot paths use it for several single-table UPDATEs rather than one multi-table UPDATE: MariaDB runs a multi-table
 * UPDATE through a temporary table per statement (on disk when a TEXT column is set), measured at 4-5 times the
 * server CPU of the same rows updated one statement each.
 */
export async function inHotTransaction<T>(dataSource: DataSource, work: (execute: HotExecute) => Promise<T>): Promise<T> {
  const pool = mysqlPool(dataSource);
  if (!pool) throw new Error('inHotTransaction runs on MySQL only');
  const conn = await promised<PooledConnection>((cb) => pool.getConnection(cb));
  // Statements without a result set go pipelined: those sent in the same turn of the event loop reach the server
  // together, without waiting for each other's answers (MysqlPipeline); statements answering rows go after them.
  const wire = new MysqlPipeline(conn);
  const execute: HotExecute = <R>(sql: string, values: unknown[]) => (answersRows(sql) ? wire.execute<R>(sql, values) : (wire.send(sql, values) as Promise<R>));
  let reusable = false;
  try {
    // Queued in front of work's first statement (on the wire with it): its answer is awaited with the end of the transaction.
    const begun = wire.send('SET autocommit = 0');
    begun.catch(() => undefined);
    let result: T;
    try {
      result = await work(execute);
      await begun;
    } catch (err) {
      await Promise.all([wire.send('ROLLBACK'), wire.send('SET autocommit = 1')]);
      reusable = true;
      throw err;
    }
    await Promise.all([wire.send('COMMIT'), wire.send('SET autocommit = 1')]);
    reusable = true;
    return result;
  } finally {
    if (reusable) conn.release();
    else conn.destroy();
  }
}

/** A statement that answers rows (a SELECT): the others answer one OK packet, and may be pipelined. */
const answersRows = (sql: string): boolean => /^\s*\(?\s*(select|with|show|values|table|explain|describe)\b/i.test(sql);

/**
 * Statements of a hot transaction sent without waiting for each other (inHotTransaction runs them in order and rolls
 * them all back if one fails): `send` each as it is made, then `all()` waits for their answers (the first failure).
 */
export function pipeline(): { send(statement: Promise<unknown>): void; all(): Promise<unknown[]> } {
  const sent: Array<Promise<unknown>> = [];
  return {
    send: (statement) => {
      statement.catch(() => undefined); // awaited by all(); a failure before that is not unhandled
      sent.push(statement);
    },
    all: () => Promise.all(sent),
  };
}

/** A MySQL deadlock or lock wait timeout: the transaction was rolled back and may simply be tried again. */
export function isLockConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT';
}

/**
 * Runs `transaction` again (up to `attempts` times in all) when the database chose it as a deadlock's victim or its
 * lock wait timed out: it was rolled back whole, so running it again is safe. For transactions that lock rows in
 * another order than the runtime commits do (instance, statements, registration, launch), which runtime commits
 * under way can otherwise turn into a 500.
 */
export async function retryOnLockConflict<T>(transaction: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (err) {
      if (attempt >= attempts || !isLockConflict(err)) throw err;
      await new Promise((r) => setTimeout(r, 10 * attempt + Math.random() * 20));
    }
  }
}

/**
 * `list` padded to a power of two by repeating its last element. A prepared statement is cached per connection for
 * each distinct SQL text, with a column definition object per parameter: statements over lists of any length (an
 * `IN (…)` of 1 to 32 keys, a multi-row upsert) would prepare one shape per length on every connection, hundreds of
 * thousands of objects, tens of megabytes. Padded, at most log2(max) + 1 shapes exist. Only for statements where a
 * repeated element changes nothing (an `IN` list, an OR of keys, a CASE branch, a row of an upsert or of an insert
 * that ignores duplicate keys).
 */
export function padToPowerOfTwo<T>(list: readonly T[]): T[] {
  let size = 1;
  while (size < list.length) size *= 2;
  const out = [...list];
  while (out.length < size) out.push(list[list.length - 1]);
  return out;
}

/**
 * `list` cut into runs of power-of-two lengths of at most `max` (itself a power of two), longest first (21 → 16, 4, 1):
 * at most log2(max) + 1 statement shapes, however long the lists.
 */
export function powerOfTwoChunks<T>(list: readonly T[], max = 1024): T[][] {
  const out: T[][] = [];
  let at = 0;
  while (at < list.length) {
    let size = 1;
    while (size * 2 <= list.length - at && size * 2 <= max) size *= 2;
    out.push(list.slice(at, at + size));
    at += size;
  }
  return out;
}

/**
 * `list` cut into runs of `max` (a power of two), the last padded to a power of two (padToPowerOfTwo): as few
 * statements as the length allows (21 → one of 32 rows), each of at most log2(max) + 1 shapes. For statements where a
 * repeated row changes nothing; the others take powerOfTwoChunks (21 → 16, 4, 1).
 */
export function paddedChunks<T>(list: readonly T[], max = 1024): T[][] {
  return runsOf(list, max).map((run) => padToPowerOfTwo(run));
}

/** `list` in runs of `max`, the last one shorter (for SQLite, which caches no statement shapes). */
export function runsOf<T>(list: readonly T[], max: number): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < list.length; at += max) out.push(list.slice(at, at + max));
  return out;
}

/** SQL texts of hot statements by their shape (a few dozen: lengths are powers of two or bounded). */
const sqlTexts = new Map<string, string>();

/**
 * The SQL text of a hot statement of shape `key`, built once: batches of the same length reuse the same string (no
 * rebuilding of kilobytes of placeholders a batch), whose hash V8 keeps, so mysql2's prepared statement cache finds
 * it without hashing it again.
 */
export function sqlOf(key: string, build: () => string): string {
  let sql = sqlTexts.get(key);
  if (sql === undefined) {
    sql = build();
    sqlTexts.set(key, sql);
  }
  return sql;
}
