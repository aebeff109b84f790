import type { ObjectLiteral, Repository } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

/**
 * One row by equality on some of its columns, as `repository.findOneBy(where)` reads it (the same columns: those not
 * `select: false`; each value hydrated by the driver, its transformer applied), but by SQL text made once, run by
 * `DataSource.query`: no query builder, alias map or entity transformer per read, which on a hot path (a dispatch
 * launch, a player link: a dozen such reads each) is most of a read's CPU. The where values are strings and numbers
 * (ids, keys), passed as they are. Entities with relations or embedded columns are refused (their hydration is
 * TypeORM's own).
 */
export class LeanRead<E extends ObjectLiteral, K extends keyof E & string> {
  private readonly sql: string;
  private readonly columns: ColumnMetadata[];
  private readonly keyColumns: ColumnMetadata[];

  constructor(
    private readonly repository: Repository<E>,
    keys: readonly K[],
  ) {
    const meta = repository.metadata;
    if (meta.relations.length || meta.embeddeds.length) throw new Error(`LeanRead: ${meta.name} has relations or embedded columns`);
    const driver = repository.manager.connection.driver;
    const esc = (name: string) => driver.escape(name);
    this.columns = meta.columns.filter((c) => c.isSelect && !c.isVirtual && !c.isVirtualProperty);
    this.keyColumns = keys.map((k) => {
      const column = meta.findColumnWithPropertyName(k);
      if (!column) throw new Error(`LeanRead: ${meta.name} has no column ${k}`);
      return column;
    });
    const table = meta.tablePath.split('.').map(esc).join('.');
    this.sql = `SELECT ${this.columns.map((c) => esc(c.databaseName)).join(', ')} FROM ${table} WHERE ${this.keyColumns.map((c) => `${esc(c.databaseName)} = ?`).join(' AND ')} LIMIT 1`;
  }

  async one(where: Pick<E, K>): Promise<E | null> {
    const values = this.keyColumns.map((c) => where[c.propertyName as K]);
    const rows = await this.repository.manager.connection.query<Array<Record<string, unknown>>>(this.sql, values);
    const row = rows[0];
    if (!row) return null;
    const driver = this.repository.manager.connection.driver;
    const entity = this.repository.metadata.create() as Record<string, unknown>;
    for (const c of this.columns) entity[c.propertyName] = driver.prepareHydratedValue(row[c.databaseName], c);
    return entity as E;
  }
}

const made = new WeakMap<object, Map<string, unknown>>();

/** The LeanRead of a repository by these key columns (made on first use, then kept with the repository). */
export function leanRead<E extends ObjectLiteral, K extends keyof E & string>(repository: Repository<E>, keys: readonly K[]): LeanRead<E, K> {
  let byKeys = made.get(repository);
  if (!byKeys) made.set(repository, (byKeys = new Map<string, unknown>()));
  const name = keys.join(',');
  let read = byKeys.get(name);
  if (!read) byKeys.set(name, (read = new LeanRead(repository, keys)));
  return read as LeanRead<E, K>;
}
