import type { DataSource } from 'typeorm';

/** The part of a mysql2 pool (callback API, as TypeORM creates it) that runs prepared statements. */
interface PreparedStatementPool {
  execute(sql: string, values: unknown[], callback: (err: Error | null, result: unknown) => void): void;
}

/**
 * Runs one statement of a hot path (a runtime commit's read and write), on its own, outside any transaction.
 * MySQL: a prepared statement on TypeORM's pool (mysql2 `execute`: parsed once per connection, parameters sent in
 * binary, so kilobytes of JSON are not escaped into the SQL text, and no query runner is made); the other drivers:
 * `DataSource.query`. Parameters are `?` placeholders; none may be undefined.
 */
export function runHotStatement<T>(dataSource: DataSource, sql: string, values: unknown[]): Promise<T> {
  const pool = dataSource.options.type === 'mysql' ? (dataSource.driver as unknown as { pool?: PreparedStatementPool }).pool : undefined;
  if (!pool) return dataSource.query<T>(sql, values);
  return new Promise<T>((resolve, reject) => pool.execute(sql, values, (err, result) => (err ? reject(err) : resolve(result as T))));
}
