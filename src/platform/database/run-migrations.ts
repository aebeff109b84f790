import type { DataSource, Migration } from 'typeorm';

const LOCK = 'lcds_schema_migrations';

/**
 * Applies pending migrations. On MySQL/MariaDB several nodes may start at once: a named lock (GET_LOCK)
 * lets one of them migrate while the others wait and then find nothing left to do.
 */
export async function runMigrationsLocked(dataSource: DataSource, timeoutSeconds = 300): Promise<Migration[]> {
  if (dataSource.options.type !== 'mysql') return dataSource.runMigrations({ transaction: 'each' });
  const runner = dataSource.createQueryRunner();
  try {
    const [row] = (await runner.query('SELECT GET_LOCK(?, ?) AS got', [LOCK, timeoutSeconds])) as Array<{ got: number | string | null }>;
    if (Number(row?.got) !== 1) throw new Error(`could not take the migration lock within ${timeoutSeconds} s (another node is migrating?)`);
    try {
      return await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await runner.query('SELECT RELEASE_LOCK(?)', [LOCK]);
    }
  } finally {
    await runner.release();
  }
}
