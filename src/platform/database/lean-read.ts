import type { DataSource, ObjectLiteral, Repository } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { runLeanStatement } from './hot-statement';

/** What every lean statement is made from: the driver's quoting, the table's quoted path, columns by property name. */
function shapeOf<E extends ObjectLiteral>(repository: Repository<E>, who: string) {
  const meta = repository.metadata;
  const esc = (name: string) => repository.manager.connection.driver.escape(name);
  const column = (k: string): ColumnMetadata => {
    const c = meta.findColumnWithPropertyName(k);
    if (!c) throw new Error(`${who}: ${meta.name} has no column ${k}`);
    return c;
  };
  return { meta, esc, column, table: meta.tablePath.split('.').map(esc).join('.') };
}

/**
 * The columns a lean read selects (those `findOneBy` reads: not `select: false`, not virtual) and the entity of a
 * result row, each value hydrated by the driver with its transformer (`valueOf`: the row's value of a column).
 * Entities with relations or embedded columns are refused (their hydration is TypeORM's own).
 */
function selectedColumns<E extends ObjectLiteral>(repository: Repository<E>, who: string) {
  const meta = repository.metadata;
  if (meta.relations.length || meta.embeddeds.length) throw new Error(`${who}: ${meta.name} has relations or embedded columns`);
  const columns = meta.columns.filter((c) => c.isSelect && !c.isVirtual && !c.isVirtualProperty);
  const driver = repository.manager.connection.driver;
  const entityOf = (valueOf: (c: ColumnMetadata) => unknown): E => {
    const entity = meta.create() as Record<string, unknown>;
    for (const c of columns) entity[c.propertyName] = driver.prepareHydratedValue(valueOf(c), c);
    return entity as E;
  };
  return { columns, entityOf };
}

/**
 * One row by equality on some of its columns, as `repository.findOneBy(where)` reads it (the same columns: those not
 * `select: false`; each value hydrated by the driver, its transformer applied), but by SQL text made once, run by
 * runLeanStatement (MySQL: a prepared statement on the pool): no query builder, alias map, entity transformer or
 * query runner per read, which on a hot path (a dispatch launch, a player link: a dozen such reads each) is most of
 * a read's CPU. The where values are strings and numbers
 * (ids, keys), passed as they are. Entities with relations or embedded columns are refused (their hydration is
 * TypeORM's own).
 */
export class LeanRead<E extends ObjectLiteral, K extends keyof E & string> {
  private readonly sql: string;
  private readonly keyColumns: ColumnMetadata[];
  private readonly entityOf: (valueOf: (c: ColumnMetadata) => unknown) => E;

  constructor(
    private readonly repository: Repository<E>,
    keys: readonly K[],
  ) {
    const { esc, column, table } = shapeOf(repository, 'LeanRead');
    const { columns, entityOf } = selectedColumns(repository, 'LeanRead');
    this.entityOf = entityOf;
    this.keyColumns = keys.map(column);
    this.sql = `SELECT ${columns.map((c) => esc(c.databaseName)).join(', ')} FROM ${table} WHERE ${this.keyColumns.map((c) => `${esc(c.databaseName)} = ?`).join(' AND ')} LIMIT 1`;
  }

  async one(where: Pick<E, K>): Promise<E | null> {
    const values = this.keyColumns.map((c) => where[c.propertyName as K]);
    const [row] = await runLeanStatement(this.repository.manager.connection, this.sql, values, true);
    return row ? this.entityOf((c) => row[c.databaseName]) : null;
  }
}

/**
 * An entity's columns as LeanRead selects them, for a statement that reads several tables at once (a join): the select
 * list, each column qualified by `alias` and named `${alias}__column`, and the entity of a result row.
 */
export interface LeanColumns<E> {
  select: string;
  /** The entity of a row (its columns hydrated as LeanRead does); null when the row has none of it (an outer join). */
  of(row: Record<string, unknown>): E | null;
  /** The quoted name of the entity's table. */
  table: string;
  /** A column's quoted name, qualified by the alias. */
  column(property: keyof E & string): string;
  /** A raw value of one column (selected by the caller under a name of its own), hydrated as the entity's would be. */
  hydrate<K extends keyof E & string>(property: K, raw: unknown): E[K];
  /** A value of one column as a statement's parameter (through the driver and the column's transformer). */
  param<K extends keyof E & string>(property: K, value: E[K]): unknown;
}

export function leanColumns<E extends ObjectLiteral>(repository: Repository<E>, alias: string): LeanColumns<E> {
  return kept(repository, `columns ${alias}`, () => {
    const { meta, esc, column, table } = shapeOf(repository, 'leanColumns');
    const { columns, entityOf } = selectedColumns(repository, 'leanColumns');
    const key = (c: ColumnMetadata) => `${alias}__${c.databaseName}`;
    const primary = meta.primaryColumns[0];
    const driver = repository.manager.connection.driver;
    return {
      select: columns.map((c) => `${esc(alias)}.${esc(c.databaseName)} AS ${esc(key(c))}`).join(', '),
      table,
      column: (property: keyof E & string) => `${esc(alias)}.${esc(column(property).databaseName)}`,
      hydrate: <K extends keyof E & string>(property: K, raw: unknown) => driver.prepareHydratedValue(raw, column(property)) as E[K],
      param: <K extends keyof E & string>(property: K, value: E[K]) => driver.preparePersistentValue(value, column(property)) as unknown,
      of: (row: Record<string, unknown>): E | null => (row[key(primary)] === null || row[key(primary)] === undefined ? null : entityOf((c) => row[key(c)])),
    };
  });
}

const made = new WeakMap<object, Map<string, unknown>>();

/** What was made for a repository under this name (made on first use, then kept with the repository). */
function kept<T>(repository: object, name: string, make: () => T): T {
  let byName = made.get(repository);
  if (!byName) made.set(repository, (byName = new Map<string, unknown>()));
  let it = byName.get(name) as T | undefined;
  if (it === undefined) byName.set(name, (it = make()));
  return it;
}

/** The LeanRead of a repository by these key columns (made once, kept). */
export function leanRead<E extends ObjectLiteral, K extends keyof E & string>(repository: Repository<E>, keys: readonly K[]): LeanRead<E, K> {
  return kept(repository, `read ${keys.join(',')}`, () => new LeanRead(repository, keys));
}

/**
 * An UPDATE of some columns of the rows matching key columns (and, `whereNull`, columns that are NULL), as
 * `repository.update(where, values)` writes it (each value through the driver and the column's transformer), by SQL
 * text made once: the affected rows. Runs on the data source's own query runner (on SQLite its one connection, so
 * inside an open transaction), never on a transaction's entity manager: not for work inside `DataSource.transaction`
 * on MySQL/MariaDB. Entities with update-date or version columns are refused (TypeORM sets those itself).
 */
export class LeanUpdate<E extends ObjectLiteral, S extends keyof E & string, K extends keyof E & string> {
  private readonly sql: string;
  private readonly setColumns: ColumnMetadata[];
  private readonly keyColumns: ColumnMetadata[];

  constructor(
    private readonly repository: Repository<E>,
    set: readonly S[],
    keys: readonly K[],
    whereNull: ReadonlyArray<keyof E & string> = [],
  ) {
    const { meta, esc, column, table } = shapeOf(repository, 'LeanUpdate');
    if (meta.updateDateColumn || meta.versionColumn) throw new Error(`LeanUpdate: ${meta.name} has update-date or version columns`);
    this.setColumns = set.map(column);
    this.keyColumns = keys.map(column);
    const conditions = [...this.keyColumns.map((c) => `${esc(c.databaseName)} = ?`), ...whereNull.map((k) => `${esc(column(k).databaseName)} IS NULL`)];
    this.sql = `UPDATE ${table} SET ${this.setColumns.map((c) => `${esc(c.databaseName)} = ?`).join(', ')} WHERE ${conditions.join(' AND ')}`;
  }

  async run(values: Pick<E, S>, where: Pick<E, K>): Promise<number> {
    const { sql, params } = this.statement(values, where);
    return affectedBy(this.repository.manager.connection, sql, params);
  }

  /** The SQL text and its parameters (each value through the driver and the transformer), to run elsewhere (a hot transaction). */
  statement(values: Pick<E, S>, where: Pick<E, K>): LeanStatement {
    const driver = this.repository.manager.connection.driver;
    const params = [...this.setColumns.map((c) => driver.preparePersistentValue(values[c.propertyName as S], c) as unknown), ...this.keyColumns.map((c) => where[c.propertyName as K] as unknown)];
    return { sql: this.sql, params };
  }
}

/** A statement made by LeanUpdate or LeanInsert: its SQL text (`?` placeholders) and parameters. */
export interface LeanStatement {
  sql: string;
  params: unknown[];
}

/**
 * Runs a statement by SQL text (`?` placeholders) outside any MySQL transaction (runLeanStatement: a prepared statement
 * on the pool; on SQLite its one connection, so inside an open transaction), as LeanUpdate does: the rows it changed.
 */
export function affectedBy(connection: DataSource, sql: string, params: unknown[]): Promise<number> {
  return runLeanStatement(connection, sql, params, false);
}

/** An INSERT of one row's columns, as `repository.insert(row)` writes them, by SQL text made once (not read back). */
export class LeanInsert<E extends ObjectLiteral, C extends keyof E & string> {
  private readonly sql: string;
  private readonly columns: ColumnMetadata[];

  constructor(
    private readonly repository: Repository<E>,
    columns: readonly C[],
    ignoreDuplicates = false,
  ) {
    const { esc, column, table } = shapeOf(repository, 'LeanInsert');
    this.columns = columns.map(column);
    // A row whose key is taken is skipped, not an error (MySQL's INSERT IGNORE, SQLite's INSERT OR IGNORE).
    const verb = !ignoreDuplicates ? 'INSERT' : repository.manager.connection.options.type === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
    this.sql = `${verb} INTO ${table} (${this.columns.map((c) => esc(c.databaseName)).join(', ')}) VALUES (${this.columns.map(() => '?').join(', ')})`;
  }

  async run(row: Pick<E, C>): Promise<void> {
    const { sql, params } = this.statement(row);
    await affectedBy(this.repository.manager.connection, sql, params);
  }

  /** The SQL text and its parameters (each value through the driver and the transformer), to run elsewhere (a hot transaction). */
  statement(row: Pick<E, C>): LeanStatement {
    const driver = this.repository.manager.connection.driver;
    return { sql: this.sql, params: this.columns.map((c) => driver.preparePersistentValue(row[c.propertyName as C], c) as unknown) };
  }
}

/** The LeanUpdate of a repository setting these columns of the rows with these keys (made once, kept). */
export function leanUpdate<E extends ObjectLiteral, S extends keyof E & string, K extends keyof E & string>(repository: Repository<E>, set: readonly S[], keys: readonly K[], whereNull: ReadonlyArray<keyof E & string> = []): LeanUpdate<E, S, K> {
  return kept(repository, `update ${set.join(',')} where ${keys.join(',')} null ${whereNull.join(',')}`, () => new LeanUpdate(repository, set, keys, whereNull));
}

/** The LeanInsert of a repository writing these columns (made once, kept); `ignoreDuplicates`: a taken key skips the row. */
export function leanInsert<E extends ObjectLiteral, C extends keyof E & string>(repository: Repository<E>, columns: readonly C[], ignoreDuplicates = false): LeanInsert<E, C> {
  return kept(repository, `insert ${ignoreDuplicates ? 'or ignore ' : ''}${columns.join(',')}`, () => new LeanInsert(repository, columns, ignoreDuplicates));
}

/**
 * The INSERT of a whole row as `repository.insert(row)` writes it: the columns it has a value for (one SQL text per
 * set of columns, kept), the others left to their defaults. `ignoreDuplicates`: as `.orIgnore()`, a taken key skips it.
 */
export function rowInsert<E extends ObjectLiteral>(repository: Repository<E>, row: Partial<E>, ignoreDuplicates = false): LeanStatement {
  const columns = Object.keys(row).filter((k) => row[k] !== undefined) as Array<keyof E & string>;
  return leanInsert(repository, columns, ignoreDuplicates).statement(row as E);
}
