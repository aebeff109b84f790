import type { DataSource } from 'typeorm';

/** A Date as raw SQL parameters need it: SQLite keeps UTC text as TypeORM writes it, MySQL takes a Date (UTC connection). */
export function dbDate(ds: DataSource, date: Date): string | Date {
  return ds.options.type === 'mysql' ? date : date.toISOString().replace('T', ' ').replace('Z', '');
}
