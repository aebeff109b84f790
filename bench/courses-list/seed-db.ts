import { join } from 'node:path';
import type { Stack } from '../lib/lcds';

/**
 * Direct access to the throw-away database of a benchmark's service: bulk seeding and query plans. The bench
 * owns that database (a temp SQLite file, or a `lcds_bench_<random>` MySQL database), so writing to it
 * behind the service's back is fine; the service keeps no cache of these tables.
 */

/** The part of better-sqlite3 used here (the package ships no types and @types/better-sqlite3 is not installed). */
interface SqliteStatement {
  /** True when the statement returns rows (SELECT, … RETURNING); all() refuses the others. */
  reader: boolean;
  run(...params: unknown[]): unknown;
  all(...params: unknown[]): any[];
}
interface SqliteDatabase {
  pragma(sql: string): unknown;
  prepare(sql: string): SqliteStatement;
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void;
  exec(sql: string): unknown;
  close(): void;
}
type SqliteCtor = new (file: string, options?: { readonly?: boolean; fileMustExist?: boolean }) => SqliteDatabase;

export interface BenchDb {
  kind: 'sqlite' | 'mysql';
  /** How explain() gets its plan, for the report. */
  planLabel: string;
  /** Rows as objects (a statement without rows, e.g. INSERT … SELECT: its result, in a list of one). */
  query(sql: string, params?: unknown[]): Promise<any[]>;
  /**
   * The query plan, one line per step: EXPLAIN QUERY PLAN on SQLite; on MariaDB `ANALYZE <query>` (EXPLAIN plus
   * the rows actually read, r_rows), on MySQL EXPLAIN plus EXPLAIN ANALYZE (8.0.18+).
   */
  explain(sql: string, params?: unknown[]): Promise<string[]>;
  /** Inserts rows (arrays in column order) in batches, all in one transaction. */
  insertRows(table: string, columns: string[], rows: unknown[][], batch?: number): Promise<void>;
  /** Refreshes the optimizer's statistics (ANALYZE). */
  analyze(tables: string[]): Promise<void>;
  close(): Promise<void>;
}

/** A date as both databases store DATETIME(3): UTC text 'YYYY-MM-DD HH:MM:SS.SSS'. */
export function dbDateText(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

export async function openBenchDb(stack: Stack): Promise<BenchDb> {
  if (stack.kind === 'production') return openMysql(stack.env.DATABASE_URL);
  return openSqlite(join(stack.env.DATA_DIR, 'lcds.sqlite'));
}

function openSqlite(file: string): BenchDb {
  const Database = require('better-sqlite3') as SqliteCtor;
  const db = new Database(file, { fileMustExist: true });
  db.pragma('busy_timeout = 10000');
  return {
    kind: 'sqlite',
    planLabel: 'EXPLAIN QUERY PLAN',
    // better-sqlite3 is synchronous; the interface is async for mysql2.
    query: (sql, params = []) => {
      const statement = db.prepare(sql);
      return Promise.resolve(statement.reader ? statement.all(...params) : [statement.run(...params)]);
    },
    explain: (sql, params = []) =>
      Promise.resolve(
        db
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...params)
          .map((r: { id: number; parent: number; detail: string }) => `${r.parent === 0 ? '' : '  '}${r.detail}`),
      ),
    insertRows: (table, columns, rows) => {
      const insert = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
      db.transaction((all: unknown[][]) => {
        for (const row of all) insert.run(...row);
      })(rows);
      return Promise.resolve();
    },
    analyze: (tables) => {
      for (const t of tables) db.exec(`ANALYZE ${t}`);
      return Promise.resolve();
    },
    close: () => {
      db.close();
      return Promise.resolve();
    },
  };
}

async function openMysql(url: string | undefined): Promise<BenchDb> {
  if (!url) throw new Error('production stack without DATABASE_URL');
  const { createConnection } = await import('mysql2/promise');
  const conn = await createConnection({ uri: url, multipleStatements: false, dateStrings: true });
  const [versionRows] = await conn.query('SELECT VERSION() AS v');
  const mariadb = /mariadb/i.test(String((versionRows as Array<{ v: string }>)[0]?.v));
  return {
    kind: 'mysql',
    planLabel: mariadb ? 'MariaDB ANALYZE: EXPLAIN columns + r_rows, the rows actually read' : 'EXPLAIN + EXPLAIN ANALYZE',
    query: async (sql, params = []) => (await conn.query(sql, params))[0] as any[],
    explain: async (sql, params = []) => {
      const [rows] = await conn.query(`${mariadb ? 'ANALYZE' : 'EXPLAIN'} ${sql}`, params);
      const text = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));
      const lines = (rows as Array<Record<string, unknown>>).map(
        (r) =>
          `id=${text(r.id)} ${text(r.select_type)} table=${text(r.table)} type=${text(r.type)} possible_keys=${text(r.possible_keys)} ` +
          `key=${text(r.key)} key_len=${text(r.key_len)} ref=${text(r.ref)} rows=${text(r.rows)}` +
          (mariadb ? ` r_rows=${text(r.r_rows)} filtered=${text(r.filtered)} r_filtered=${text(r.r_filtered)}` : '') +
          ` Extra=${text(r.Extra)}`,
      );
      if (!mariadb) {
        try {
          const [analyzed] = await conn.query(`EXPLAIN ANALYZE ${sql}`, params);
          for (const r of analyzed as Array<Record<string, string>>) lines.push(...Object.values(r)[0].split('\n'));
        } catch {
          /* before MySQL 8.0.18 */
        }
      }
      return lines;
    },
    insertRows: async (table, columns, rows, batch = 1000) => {
      await conn.beginTransaction();
      try {
        for (let i = 0; i < rows.length; i += batch) {
          await conn.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ?`, [rows.slice(i, i + batch)]);
        }
        await conn.commit();
      } catch (err) {
        await conn.rollback().catch(() => undefined);
        throw err;
      }
    },
    analyze: async (tables) => {
      await conn.query(`ANALYZE TABLE ${tables.join(', ')}`);
    },
    close: () => conn.end(),
  };
}

export const SEED_TAG = 'bench-tag';
/** On every 1,000th course (0.1 %): a tag the list reads by its tagged ids rather than by a probe per course. */
export const SEED_RARE_TAG = 'bench-rare';
export const SEED_TOPICS = 100;

function courseRows(appId: string, n: number) {
  const base = Date.UTC(2024, 0, 1);
  const courses: unknown[][] = [];
  const versions: unknown[][] = [];
  const tags: unknown[][] = [];
  const rootActivity = '{"externalIdentifier":"x","itemIdentifier":"x","activityType":"SCO","title":"x","children":[]}';
  for (let i = 0; i < n; i++) {
    const id = `bench-${String(i).padStart(6, '0')}`;
    const title = `Course ${i}: topic-${String(i % SEED_TOPICS).padStart(2, '0')}`;
    // One a minute, oldest first; updated a little later.
    const created = dbDateText(new Date(base + i * 60_000));
    const updated = dbDateText(new Date(base + i * 60_000 + 1_000));
    courses.push([appId, id, title, title, 1, created, updated]);
    versions.push([appId, id, 1, title, 'SCORM12', null, '{}', rootActivity, '{"launchables":[]}', `apps/${appId}/content/seed-${id}/`, 0, created, updated]);
    if (i % 10 === 3) tags.push([appId, 'course', id, SEED_TAG]);
    if (i % 1000 === 7) tags.push([appId, 'course', id, SEED_RARE_TAG]);
  }
  return { courses, versions, tags };
}

/**
 * Seeds n courses (version 1 each, one a minute from 2024-01-01, titles `Course <i>: topic-<i mod 100>`) and
 * tags every tenth one with SEED_TAG; ANALYZE afterwards when asked.
 */
export async function seedCourses(db: BenchDb, appId: string, n: number, analyze: boolean): Promise<{ ms: number; tagged: number; rare: number }> {
  const started = Date.now();
  const { courses, versions, tags } = courseRows(appId, n);
  await db.insertRows('course', ['app_id', 'id', 'title', 'title_key', 'latest_version', 'created_at', 'updated_at'], courses);
  await db.insertRows(
    'course_version',
    ['app_id', 'course_id', 'version', 'title', 'learning_standard', 'xapi_activity_id', 'metadata', 'root_activity', 'package', 'content_prefix', 'size_bytes', 'created_at', 'updated_at'],
    versions,
  );
  await db.insertRows('tag', ['app_id', 'resource_type', 'resource_id', 'tag'], tags);
  if (analyze) await db.analyze(['course', 'course_version', 'tag']);
  return { ms: Date.now() - started, tagged: tags.filter((t) => t[3] === SEED_TAG).length, rare: tags.filter((t) => t[3] === SEED_RARE_TAG).length };
}
