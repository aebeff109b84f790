import { QueryRunner, TableColumnOptions } from 'typeorm';

/**
 * Column definitions for migrations that mean the same on SQLite and MySQL/MariaDB.
 * Identifiers compare byte for byte (utf8mb4_bin) as they do on SQLite; long texts get LONGTEXT on MySQL.
 */
export class ColumnKit {
  private readonly mysql: boolean;

  constructor(queryRunner: QueryRunner) {
    this.mysql = queryRunner.connection.driver.options.type === 'mysql';
  }

  id(name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions {
    return { name, type: 'varchar', length: '191', isNullable: false, ...(this.mysql ? { collation: 'utf8mb4_bin' } : {}), ...options };
  }

  string(name: string, length = 255, options: Partial<TableColumnOptions> = {}): TableColumnOptions {
    return { name, type: 'varchar', length: String(length), isNullable: false, ...options };
  }

  text(name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions {
    return { name, type: this.mysql ? 'longtext' : 'text', isNullable: true, ...options };
  }

  int(name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions {
    return { name, type: 'int', isNullable: false, default: 0, ...options };
  }

  bigint(name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions {
    return { name, type: 'bigint', isNullable: false, default: 0, ...options };
  }

  bool(name: string, defaultValue: boolean, options: Partial<TableColumnOptions> = {}): TableColumnOptions {
    return { name, type: 'boolean', isNullable: false, default: defaultValue ? 1 : 0, ...options };
  }

  /** Millisecond precision, stored as UTC. */
  datetime(name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions {
    return { name, type: 'datetime', precision: 3, isNullable: false, ...options };
  }
}
