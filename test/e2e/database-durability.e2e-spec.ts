import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { DatabaseDurabilityService } from '../../src/platform/database/database-durability.service';
import { startTestServer, TestServer } from '../support/test-server';

/**
 * Acknowledged commits are durable by default: SQLite runs with synchronous=FULL (LCDS_SQLITE_SYNCHRONOUS=NORMAL is
 * the documented opt-out), and on MySQL/MariaDB a server whose innodb_flush_log_at_trx_commit is not 1 is reported.
 */
describe('durable acknowledged commits', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('the default stack keeps what it acknowledged (no durability problem reported)', async () => {
    expect(await s.app.get(DatabaseDurabilityService).check()).toBeNull();
    if (s.config.database.kind === 'sqlite') {
      expect(await s.app.get(DataSource).query('PRAGMA synchronous')).toEqual([{ synchronous: 2 }]);
    }
  });

  it('SQLite: LCDS_SQLITE_SYNCHRONOUS=NORMAL is taken and reported; another value is refused at start', async () => {
    if (s.config.database.kind !== 'sqlite') return;
    const normal = await startTestServer({ LCDS_SQLITE_SYNCHRONOUS: 'normal' });
    try {
      expect(await normal.app.get(DataSource).query('PRAGMA synchronous')).toEqual([{ synchronous: 1 }]);
      expect(await normal.app.get(DatabaseDurabilityService).check()).toMatch(/synchronous=NORMAL: a power cut can lose the last acknowledged commits/);
    } finally {
      await normal.close();
    }
    expect(() => loadConfig({ LCDS_SQLITE_SYNCHRONOUS: 'OFF' })).toThrow(/LCDS_SQLITE_SYNCHRONOUS=OFF must be FULL/);
  }, 60_000);

  it('MySQL/MariaDB: a server that flushes its log less often than each commit is reported', async () => {
    if (s.config.database.kind !== 'mysql') return;
    const db = s.app.get(DataSource);
    const [{ flush }] = await db.query<Array<{ flush: number }>>('SELECT @@GLOBAL.innodb_flush_log_at_trx_commit AS flush');
    await db.query('SET GLOBAL innodb_flush_log_at_trx_commit = 2');
    try {
      expect(await s.app.get(DatabaseDurabilityService).check()).toMatch(/innodb_flush_log_at_trx_commit is 2 on the database server/);
    } finally {
      await db.query(`SET GLOBAL innodb_flush_log_at_trx_commit = ${Number(flush)}`);
    }
  });
});
