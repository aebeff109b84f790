import type { INestApplication } from '@nestjs/common';
import { DataSource, QueryRunner } from 'typeorm';

/** Counts the SQL statements the service sends from now on (both drivers create a query runner per unit of work). */
export function countQueries(app: INestApplication): { readonly count: number; stop(): void } {
  const driver = app.get(DataSource).driver;
  const original = driver.createQueryRunner.bind(driver);
  // Hot statements and transactions (platform/database/hot-statement.ts) run as prepared statements on a connection
  // of the MySQL pool (pool.execute takes one too): count those (TypeORM's own runners never prepare, and their
  // queries are counted below; a hot transaction's SET autocommit and COMMIT are not counted).
  type Conn = { execute: (...args: unknown[]) => unknown; addCommand?: (command: { pipelinedStatements?: number }) => unknown };
  type Pool = { getConnection: (cb: (err: unknown, conn: Conn) => void) => void };
  const pool = (driver as unknown as { pool?: Pool }).pool;
  const getConnection = pool?.getConnection;
  let counting = true;
  const countedConns = new WeakSet<Conn>();
  if (pool && getConnection) {
    pool.getConnection = (cb) =>
      getConnection.call(pool, (err, conn) => {
        if (conn && !countedConns.has(conn)) {
          countedConns.add(conn);
          const own = conn.execute.bind(conn);
          conn.execute = (...args: unknown[]) => {
            if (counting) counter.count++;
            return own(...args);
          };
          // Statements a hot transaction pipelines go to the connection as one command (platform/database/mysql-pipeline.ts).
          const addCommand = conn.addCommand?.bind(conn);
          if (addCommand) {
            conn.addCommand = (command) => {
              if (counting && typeof command.pipelinedStatements === 'number') counter.count += command.pipelinedStatements;
              return addCommand(command);
            };
          }
        }
        cb(err, conn);
      });
  }
  const counter = {
    count: 0,
    stop: () => {
      counting = false;
      driver.createQueryRunner = original;
      if (pool && getConnection) pool.getConnection = getConnection;
    },
  };
  const wrapped = new WeakSet<QueryRunner>();
  driver.createQueryRunner = (mode) => {
    const runner: QueryRunner = original(mode);
    // SQLite hands out the same runner every time; wrap each runner once.
    if (wrapped.has(runner)) return runner;
    wrapped.add(runner);
    const query = runner.query.bind(runner);
    runner.query = ((...args: Parameters<QueryRunner['query']>) => {
      counter.count++;
      return query(...args);
    }) as QueryRunner['query'];
    return runner;
  };
  return counter;
}
