import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { loadExtensions } from '../extensions/extension-loader';
import { MIGRATIONS } from './migration-list';
import { SnakeNamingStrategy } from './snake-naming.strategy';
import { deferCommitSyncOn } from './sqlite-wal-sync';

export function dataSourceOptions(config: AppConfig, entities: DataSourceOptions['entities'] = []): DataSourceOptions {
  const common = {
    entities,
    // LCDS's, then the extensions' (LCDS_EXTENSIONS) own.
    migrations: [...MIGRATIONS, ...loadExtensions(config.extensions).flatMap((e) => e.migrations)],
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each' as const,
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    logging: false,
  };
  if (config.database.kind === 'mysql') {
    return {
      ...common,
      type: 'mysql',
      url: config.database.url,
      timezone: 'Z',
      charset: 'utf8mb4_unicode_ci',
      poolSize: config.database.poolSize,
      supportBigNumbers: true,
      bigNumberStrings: false,
      // maxPreparedStatements: mysql2 keeps every prepared statement of a connection (16,000 by default), each with a
      // column definition object per parameter; the hot paths use a few dozen shapes, so a bound costs nothing.
      extra: { connectionLimit: config.database.poolSize, enableKeepAlive: true, maxPreparedStatements: 128 },
    };
  }
  mkdirSync(dirname(config.database.sqlitePath), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database: config.database.sqlitePath,
    enableWAL: true,
    prepareDatabase: (db: Parameters<typeof deferCommitSyncOn>[0]) => {
      db.pragma('busy_timeout = 5000');
      // FULL by default: a commit the player or the LRS acknowledged survives a power cut (WAL with NORMAL may lose the last ones).
      db.pragma(`synchronous = ${config.database.sqliteSynchronous}`);
      deferCommitSyncOn(db, config.database.sqliteSynchronous);
      db.pragma('foreign_keys = ON');
      // Deleted rows are overwritten on disk (a learner's erasure must leave no trace in free pages).
      db.pragma('secure_delete = ON');
    },
  };
}
