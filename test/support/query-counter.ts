import type { INestApplication } from '@nestjs/common';
import { DataSource, QueryRunner } from 'typeorm';

/** Counts the SQL statements the service sends from now on (both drivers create a query runner per unit of work). */
export function countQueries(app: INestApplication): { readonly count: number; stop(): void } {
  const driver = app.get(DataSource).driver;
  const original = driver.createQueryRunner.bind(driver);
  // Hot statements (platform/database/hot-statement.ts) run as prepared statements on the MySQL pool: count those too.
  const pool = (driver as unknown as { pool?: { execute: (...args: unknown[]) => unknown } }).pool;
  const execute = pool?.execute;
  if (pool && execute) {
    pool.execute = (...args: unknown[]) => {
      counter.count++;
      return execute.apply(pool, args);
    };
  }
  const counter = {
    count: 0,
    stop: () => {
      driver.createQueryRunner = original;
      if (pool && execute) pool.execute = execute;
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
