import { statSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { SERVICE_CHECKPOINT_PAGES, SqliteCheckpoints } from '../../src/platform/database/sqlite-checkpoints.service';
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

  it('the thread copies the WAL into the database file; the service checkpoints only at a large WAL, which then starts over', async () => {
    expect(s.app.get(SqliteCheckpoints).running).toBe(true);
    expect(await pragma('wal_autocheckpoint')).toBe(SERVICE_CHECKPOINT_PAGES);
    const before = fileSize();
    await write('a');
    // Within a few of the thread's rounds (200 ms each), the rows are in the database file itself.
    const size = await waitFor(() => Promise.resolve(fileSize()), (bytes) => bytes > before + 3_000_000, 10_000);
    expect(size).toBeGreaterThan(before + 3_000_000);
    // Writes that never pause: the WAL starts over once past the service's threshold (500 pages here: 2 MB). The file
    // keeps its largest size (SQLite reuses it from the start); 20 MB more written would make it 5 times as large.
    await db.query('PRAGMA wal_autocheckpoint = 500');
    const start = statSync(`${s.config.database.sqlitePath}-wal`).size;
    let largest = 0;
    for (let round = 0; round < 5; round++) {
      await write(`b${round}`);
      largest = Math.max(largest, statSync(`${s.config.database.sqlitePath}-wal`).size);
    }
    expect(largest).toBeLessThan(start + 8_000_000);
    await db.query(`PRAGMA wal_autocheckpoint = ${SERVICE_CHECKPOINT_PAGES}`);
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
