import Database from 'better-sqlite3';
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { extract as tarExtract, pack as tarPack } from 'tar-stream';
import type { AppConfig } from '../../config/app-config';
import type { ContentStore } from '../storage/content-store';

/** The description at the start of every backup (`lcds-backup.json`). */
export interface BackupManifest {
  format: 1;
  createdAt: string;
  lcdsVersion: string;
  /** sqlite: the database is in the archive (database/lcds.sqlite); mysql: it is not (see `databaseNote`). */
  database: 'sqlite' | 'mysql';
  storage: string;
  objects: number;
  bytes: number;
  databaseNote?: string;
}

export interface BackupProgress {
  objects: number;
  total: number;
}

const MANIFEST = 'lcds-backup.json';
const DATABASE_ENTRY = 'database/lcds.sqlite';
const CONTENT = 'content/';

export const MYSQL_DUMP_NOTE =
  'The MySQL/MariaDB database is not in this file: dump it with `mariadb-dump --single-transaction --routines <database>` (or mysqldump) next to it, and load that dump before starting nodes on the restored content.';

/**
 * `lcds backup`: one gzip'd tar holding a manifest, the embedded stack's SQLite database (an online, consistent copy
 * made with SQLite's backup API while the service runs) and every object of the content store (local directory or
 * S3 bucket alike, streamed). On the production stack the database is left to its own dump tool (a consistent dump
 * of a live MySQL/MariaDB needs `--single-transaction`, which only the server's tools do right).
 */
export async function createBackup(config: AppConfig, store: ContentStore, out: string, onProgress: (p: BackupProgress) => void = () => undefined): Promise<BackupManifest> {
  const keys: Array<{ key: string; size: number }> = [];
  for await (const item of store.list('')) keys.push({ key: item.key, size: item.size });
  keys.sort((a, b) => a.key.localeCompare(b.key));
  const manifest: BackupManifest = {
    format: 1,
    createdAt: new Date().toISOString(),
    lcdsVersion: config.version,
    database: config.database.kind,
    storage: store.kind,
    objects: keys.length,
    bytes: keys.reduce((n, k) => n + k.size, 0),
    ...(config.database.kind === 'mysql' ? { databaseNote: MYSQL_DUMP_NOTE } : {}),
  };
  mkdirSync(dirname(out), { recursive: true });
  const partial = `${out}.partial`;
  const pack = tarPack();
  const written = pipeline(pack, createGzip(), createWriteStream(partial));
  const work = (async () => {
    await addEntry(pack, MANIFEST, Buffer.from(JSON.stringify(manifest, null, 2)));
    if (config.database.kind === 'sqlite') {
      const temp = await mkdtemp(join(tmpdir(), 'lcds-backup-'));
      try {
        const copy = join(temp, 'lcds.sqlite');
        const db = new Database(config.database.sqlitePath, { readonly: true, fileMustExist: true });
        try {
          await db.backup(copy);
        } finally {
          db.close();
        }
        await addStream(pack, DATABASE_ENTRY, statSync(copy).size, createReadStream(copy));
      } finally {
        rmSync(temp, { recursive: true, force: true });
      }
    }
    let done = 0;
    onProgress({ objects: 0, total: keys.length });
    for (const { key } of keys) {
      const object = await store.get(key);
      if (object) await addStream(pack, CONTENT + key, object.contentLength, object.stream); // deleted meanwhile: left out
      onProgress({ objects: ++done, total: keys.length });
    }
    pack.finalize();
  })();
  try {
    await Promise.all([work, written]);
  } catch (err) {
    pack.destroy();
    rmSync(partial, { force: true });
    throw err;
  }
  renameSync(partial, out);
  return manifest;
}

/**
 * `lcds restore`: writes a backup's content objects into the configured store and, on the embedded stack, its
 * database to the configured SQLite path (which must not exist yet unless `force`: restore into a stopped node's
 * empty DATA_DIR). A backup made on one stack restores on the same kind of stack.
 */
export async function restoreBackup(
  config: AppConfig,
  store: ContentStore,
  file: string,
  options: { force?: boolean; onProgress?: (p: BackupProgress) => void } = {},
): Promise<BackupManifest> {
  let manifest: BackupManifest | null = null;
  let objects = 0;
  const extract = tarExtract();
  const finished = pipeline(createReadStream(file), createGunzip(), extract);
  const consume = (async () => {
    for await (const entry of extract) {
      const name = entry.header.name;
      if (manifest === null) {
        if (name !== MANIFEST) throw new BackupError(`${file} is not an LCDS backup (it does not start with ${MANIFEST})`);
        manifest = JSON.parse((await readAll(entry.pipe(new PassThrough()))).toString('utf8')) as BackupManifest;
        if (manifest.format !== 1) throw new BackupError(`backup format ${String(manifest.format)} is not supported by this version`);
        if (manifest.database !== config.database.kind) {
          throw new BackupError(`this backup is of the ${manifest.database} stack; the configuration is of the ${config.database.kind} stack`);
        }
        if (config.database.kind === 'sqlite' && existsSync(config.database.sqlitePath) && !options.force) {
          throw new BackupError(`${config.database.sqlitePath} exists: restore into an empty DATA_DIR, or pass --force to replace it (stop the service first)`);
        }
        options.onProgress?.({ objects: 0, total: manifest.objects });
        continue;
      }
      if (name === DATABASE_ENTRY && config.database.kind === 'sqlite') {
        const target = config.database.sqlitePath;
        mkdirSync(dirname(target), { recursive: true });
        for (const suffix of ['-wal', '-shm']) rmSync(target + suffix, { force: true });
        await pipeline(entry.pipe(new PassThrough()), createWriteStream(`${target}.restoring`));
        renameSync(`${target}.restoring`, target);
      } else if (name.startsWith(CONTENT) && entry.header.type === 'file') {
        // The store refuses keys that could escape it (InvalidContentKeyError): a hostile archive writes nothing outside.
        await store.put(name.slice(CONTENT.length), entry.pipe(new PassThrough()));
        options.onProgress?.({ objects: ++objects, total: manifest.objects });
      } else {
        entry.resume();
        throw new BackupError(`unexpected entry ${name} in the backup`);
      }
    }
  })();
  await Promise.all([consume, finished]);
  if (manifest === null) throw new BackupError(`${file} is empty`);
  return manifest;
}

export class BackupError extends Error {}

function addEntry(pack: ReturnType<typeof tarPack>, name: string, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => pack.entry({ name, size: body.length, mode: 0o600 }, body, (err) => (err ? reject(err) : resolve())));
}

function addStream(pack: ReturnType<typeof tarPack>, name: string, size: number, body: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    const sink = pack.entry({ name, size, mode: 0o600 }, (err) => (err ? reject(err) : resolve()));
    body.once('error', reject);
    body.pipe(sink);
  });
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
