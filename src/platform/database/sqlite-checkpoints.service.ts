import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Worker } from 'node:worker_threads';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';

/** How often the checkpointing thread copies the WAL into the database file (PASSIVE: it never waits for anyone). */
const CHECKPOINT_EVERY_MS = 200;
/**
 * The service's connection checkpoints by itself once the WAL holds this many pages (64 MB), not SQLite's 1,000: what
 * is left then is the few frames written since the thread's last round, and that checkpoint, with no commit between
 * it and the next write, lets SQLite start the WAL over. While writes never pause, a checkpoint by another connection
 * never leaves the WAL wholly copied when the writer begins, and the WAL would grow without bound.
 */
export const SERVICE_CHECKPOINT_PAGES = 16_000;
/** SQLite's own default: what the connection goes back to when the thread is gone. */
const AUTOCHECKPOINT_PAGES = 1000;

/**
 * The checkpointing thread: its own connection to the database file, a PASSIVE checkpoint every few hundred ms (the
 * WAL's frames copied into the database file, both synced at synchronous FULL). Plain JavaScript, so that it runs the
 * same from the build and from the tests' sources.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = FULL');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  try { db.close(); } finally { parentPort.close(); }
});
`;

/**
 * SQLite checkpoints off the event loop. By default the connection that commits copies the WAL into the database file
 * whenever the WAL passed 1,000 pages, inside that COMMIT, with two fsyncs, and better-sqlite3 waits for it on the
 * event loop: measured at about 400 µs per commit on average here, more than the commit's own writes. Here a worker
 * thread with a connection of its own copies the WAL every 200 ms, and the service's connection checkpoints only
 * once the WAL passed SERVICE_CHECKPOINT_PAGES, to let SQLite start it over (see there). If the thread fails, the
 * connection checkpoints at SQLite's default again. Embedded stack only (MySQL has nothing of the kind to do).
 */
@Injectable()
export class SqliteCheckpoints implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SqliteCheckpoints.name);
  private worker: Worker | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.dataSource.options.type !== 'better-sqlite3' || this.config.database.sqlitePath === ':memory:') return;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver: require.resolve('better-sqlite3'), path: this.config.database.sqlitePath, everyMs: CHECKPOINT_EVERY_MS },
    });
    // Never what keeps a process alive (a CLI command, a test): the service's own lifetime is its HTTP server's.
    worker.unref();
    this.worker = worker;
    worker.on('message', (m: { error?: string }) => {
      if (m.error) this.logger.warn({ msg: 'WAL checkpoint failed; the next one tries again', err: m.error });
    });
    const lost = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.logger.warn({ msg: 'the checkpointing thread stopped; commits checkpoint the WAL themselves again', why });
      void this.autocheckpoint(AUTOCHECKPOINT_PAGES);
    };
    worker.on('error', (err) => lost(err.message));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    await this.autocheckpoint(SERVICE_CHECKPOINT_PAGES);
  }

  async onApplicationShutdown(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // Held while it stops: with nothing else left on the event loop (a CLI command that failed), an unreferenced wait
    // would let the process end in the middle of this close, with exit code 0 instead of the command's own.
    worker.ref();
    worker.postMessage('stop');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 2_000)))]);
    clearTimeout(timer);
    await worker.terminate();
  }

  /** Whether a thread checkpoints for the connection now. */
  get running(): boolean {
    return this.worker !== null;
  }

  private async autocheckpoint(pages: number): Promise<void> {
    if (!this.dataSource.isInitialized) return;
    await this.dataSource.query(`PRAGMA wal_autocheckpoint = ${pages}`).catch((err: Error) => this.logger.warn({ msg: 'could not set wal_autocheckpoint', pages, err: err.message }));
  }
}
