import { statSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { SqliteCheckpoints } from '../../src/platform/database/sqlite-checkpoints.service';
import { startTestServer, TestServer } from '../support/test-server';
import { isProductionStack } from '../support/test-stack';
import { waitFor } from '../support/player';

/**
 * The embedded stack's WAL is checkpointed by a thread of its own, not inside the service's commits (where SQLite
 * puts it by default, on the event loop, with two fsyncs).
 */
(isProductionStack() ? describe.skip : describe)('SQLite checkpoints off the event loop (SqliteCheckpoints)', () => {
  let s: TestServer;
  let db: DataSource;
  const pragma = async (name: string) => Number(Object.values((await db.query<Array<Record<string, unknown>>>(`PRAGMA ${name}`))[0])[0]);
  const fileSize = () => statSync(s.config.database.sqlitePath).size;
  /** About 4 MB of rows, committed by the service's connection in many transactions. */
  const write = async (tag: string) => {
    await db.query('CREATE TABLE IF NOT EXISTS test_scratch (k TEXT PRIMARY KEY, v TEXT)');
    for (let i = 0; i < 200; i++) {
      await db.transaction((m) => m.query('INSERT INTO test_scratch (k, v) VALUES (?, ?)', [`${tag}-${i}`, 'x'.repeat(20_000)]));
    }
  };

  beforeAll(async () => {
    s = await startTestServer();
    db = s.app.get(DataSource);
  });
  afterAll(async () => s?.close());

  it("the service's connection never checkpoints; the thread copies the WAL into the database file", async () => {
    expect(s.app.get(SqliteCheckpoints).running).toBe(true);
    expect(await pragma('wal_autocheckpoint')).toBe(0);
    const before = fileSize();
    await write('a');
    // Within a few of the thread's rounds (200 ms each), the rows are in the database file itself.
    const size = await waitFor(() => Promise.resolve(fileSize()), (bytes) => bytes > before + 3_000_000, 10_000);
    expect(size).toBeGreaterThan(before + 3_000_000);
  });

  it('if the thread stops, the connection checkpoints by itself again', async () => {
    const checkpoints = s.app.get(SqliteCheckpoints);
    await checkpoints.onApplicationShutdown();
    expect(checkpoints.running).toBe(false);
    // The thread gone for good (not a stop of the service): as a crashed thread, the connection takes checkpoints back.
    await checkpoints.onApplicationBootstrap();
    expect(checkpoints.running).toBe(true);
    await (checkpoints as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    expect(await waitFor(() => pragma('wal_autocheckpoint'), (pages) => pages === 1000, 5_000)).toBe(1000);
    expect(checkpoints.running).toBe(false);
  });
});
