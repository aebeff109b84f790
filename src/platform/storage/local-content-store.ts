import { randomUUID } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { copyFile, lstat, mkdir, open, opendir, readdir, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OnModuleInit } from '@nestjs/common';
import { forEachConcurrent } from './concurrency';
import {
  assertDisjointPrefixes,
  assertValidKey,
  ByteRange,
  clampRange,
  ContentKeyConflictError,
  ContentListing,
  ContentObject,
  ContentStat,
  ContentStore,
  contentTypeFor,
  InvalidContentKeyError,
  normalizePrefix,
  PrefixWriter,
  PutOptions,
} from './content-store';

/** Temporary files live here (same file system as the content, so the final rename is atomic). Not a valid key. */
const TEMP_DIR = '.lcds-tmp';
const STALE_TEMP_MS = 24 * 3600 * 1000;
const COPY_CONCURRENCY = 8;

/**
 * Content as plain files under one directory (a local disk, or a volume shared by every node). Writes go to a
 * temporary file that is renamed into place, so a reader never sees a partial file; everything is streamed.
 */
export class LocalContentStore extends ContentStore implements OnModuleInit {
  readonly kind = 'local';
  private readonly tempDir: string;
  private tempDirReady: Promise<unknown> | null = null;

  constructor(readonly root: string) {
    super();
    this.tempDir = join(root, TEMP_DIR);
  }

  /** Creates the directory and removes temporary files left over by a crash (older than a day, so no live write). */
  async onModuleInit(): Promise<void> {
    await this.ensureTempDir();
    const cutoff = Date.now() - STALE_TEMP_MS;
    for (const name of await readdir(this.tempDir)) {
      const path = join(this.tempDir, name);
      const info = await lstat(path).catch(() => null);
      if (info && info.mtimeMs < cutoff) await rm(path, { force: true, recursive: true });
    }
  }

  async put(key: string, body: Readable | Buffer, _options?: PutOptions): Promise<void> {
    const target = this.pathOf(key);
    await this.ensureTempDir();
    const temp = join(this.tempDir, `${randomUUID()}.tmp`);
    try {
      if (Buffer.isBuffer(body)) await writeFile(temp, body, { flag: 'wx' });
      else await pipeline(body, createWriteStream(temp, { flags: 'wx' }));
      await this.placeObject(temp, key, target);
    } catch (error) {
      if (!Buffer.isBuffer(body) && !body.destroyed) body.destroy();
      await rm(temp, { force: true });
      throw error;
    }
  }

  /** Moves the file into place when it is on this file system (one rename, no copy). */
  override async putFile(key: string, path: string, options?: PutOptions): Promise<void> {
    const target = this.pathOf(key);
    try {
      await this.placeObject(path, key, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') {
        await rm(path, { force: true });
        throw error;
      }
      await super.putFile(key, path, options);
    }
  }

  override async localFile(key: string): Promise<string | null> {
    const path = this.pathOf(key);
    const info = await stat(path).catch(() => null);
    return info?.isFile() ? path : null;
  }

  /** Writes straight into a staging folder (no temporary file and rename per object); commit renames the folder. */
  override async openPrefixWriter(prefix: string): Promise<PrefixWriter> {
    const folder = normalizePrefix(prefix);
    const target = this.pathOf(folder.slice(0, -1));
    await this.ensureTempDir();
    const staging = join(this.tempDir, `${randomUUID()}.staging`);
    await mkdir(staging);
    return new StagedPrefixWriter(staging, target, (relative) => this.pathOf(folder + relative), (from, to) => this.moveInto(from, to));
  }

  async get(key: string, range?: ByteRange): Promise<ContentObject | null> {
    const path = this.pathOf(key);
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) {
        await handle.close();
        return null;
      }
      const meta = this.metaOf(key, info);
      const bounds = range ? clampRange(key, range, info.size) : undefined;
      const stream = handle.createReadStream(bounds ? { start: bounds.start, end: bounds.end } : {});
      return { ...meta, stream, range: bounds, contentLength: bounds ? bounds.end - bounds.start + 1 : info.size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async stat(key: string): Promise<ContentStat | null> {
    try {
      const info = await stat(this.pathOf(key));
      return info.isFile() ? this.metaOf(key, info) : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async *list(prefix: string): AsyncIterable<ContentListing> {
    const folder = normalizePrefix(prefix, true);
    yield* this.walk(folder === '' ? this.root : this.pathOf(folder.slice(0, -1)), folder);
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    try {
      await unlink(path);
    } catch (error) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return;
      throw error;
    }
    await this.pruneEmptyParents(path);
  }

  async deletePrefix(prefix: string): Promise<void> {
    const folder = normalizePrefix(prefix);
    const path = this.pathOf(folder.slice(0, -1));
    const info = await lstat(path).catch(() => null);
    if (!info?.isDirectory()) return;
    // Move the folder aside first (atomic), so readers never see a half-deleted tree, then remove it at leisure.
    await this.ensureTempDir();
    const doomed = join(this.tempDir, `${randomUUID()}.deleted`);
    let removeFrom = doomed;
    try {
      await rename(path, doomed);
    } catch (error) {
      if (isMissing(error)) return;
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      removeFrom = path; // a folder mounted from another file system: remove it in place
    }
    await rm(removeFrom, { recursive: true, force: true });
    await this.pruneEmptyParents(path);
  }

  async copyPrefix(from: string, to: string): Promise<number> {
    const source = normalizePrefix(from);
    const target = normalizePrefix(to);
    assertDisjointPrefixes(source, target);
    let copied = 0;
    await forEachConcurrent(this.list(source), COPY_CONCURRENCY, async (item) => {
      const destination = this.pathOf(target + item.key.slice(source.length));
      await this.ensureTempDir();
      const temp = join(this.tempDir, `${randomUUID()}.tmp`);
      try {
        // A reflink where the file system supports it (copy-on-write, still independent files), else a plain copy.
        await copyFile(this.pathOf(item.key), temp, constants.COPYFILE_FICLONE | constants.COPYFILE_EXCL);
        await this.moveInto(temp, destination);
        copied++;
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    });
    return copied;
  }

  async check(): Promise<void> {
    await this.ensureTempDir();
    const probe = join(this.tempDir, `${randomUUID()}.probe`);
    await writeFile(probe, 'ok');
    await rm(probe, { force: true });
  }

  /** Absolute path of a validated key. */
  private pathOf(key: string): string {
    assertValidKey(key);
    if (key === TEMP_DIR || key.startsWith(`${TEMP_DIR}/`)) throw new InvalidContentKeyError(key, `${TEMP_DIR} is reserved by the local store`);
    return join(this.root, ...key.split('/'));
  }

  private metaOf(key: string, info: { size: number; mtime: Date; mtimeMs: number; ino: number }): ContentStat {
    return {
      size: info.size,
      contentType: contentTypeFor(key),
      etag: `"${info.ino.toString(16)}-${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`,
      lastModified: new Date(info.mtimeMs),
    };
  }

  private ensureTempDir(): Promise<unknown> {
    this.tempDirReady ??= mkdir(this.tempDir, { recursive: true }).catch((error: unknown) => {
      this.tempDirReady = null;
      throw error;
    });
    return this.tempDirReady;
  }

  /** Renames a finished temporary file (or folder) to `target`, creating folders; retries when a concurrent prune removed one. */
  private async moveInto(temp: string, target: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await mkdir(dirname(target), { recursive: true });
        await rename(temp, target);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 5) throw error;
      }
    }
  }

  /** moveInto for one object, where the key's clash with a folder or a file is a ContentKeyConflictError, not an errno. */
  private async placeObject(temp: string, key: string, target: string): Promise<void> {
    try {
      await this.moveInto(temp, target);
    } catch (error) {
      throw keyConflictOf(error, key) ?? error;
    }
  }

  /** Removes now-empty folders between `path` and the root, so deleted courses leave no directory skeletons. */
  private async pruneEmptyParents(path: string): Promise<void> {
    for (let dir = dirname(path); dir.startsWith(this.root + sep) && dir !== this.root; dir = dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        return;
      }
    }
  }

  private async *walk(dir: string, keyPrefix: string): AsyncGenerator<ContentListing> {
    let handle;
    try {
      handle = await opendir(dir, { bufferSize: 64 });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for await (const entry of handle) {
      if (keyPrefix === '' && entry.name === TEMP_DIR) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        yield* this.walk(path, `${keyPrefix}${entry.name}/`);
      } else if (entry.isFile()) {
        const info = await lstat(path).catch(() => null);
        if (info?.isFile()) yield { key: keyPrefix + entry.name, size: info.size, modified: new Date(info.mtimeMs) };
      }
    }
  }
}

/**
 * Objects written with exclusive create into `staging` (folders made once each); on commit the folder is renamed
 * to the prefix's folder, or, when that already exists, its files are moved in one by one.
 */
class StagedPrefixWriter implements PrefixWriter {
  private readonly folders = new Map<string, Promise<unknown>>();

  constructor(
    private readonly staging: string,
    private readonly target: string,
    /** Validates the key of a relative path (throws InvalidContentKeyError). */
    private readonly validate: (relative: string) => string,
    private readonly moveInto: (from: string, to: string) => Promise<void>,
  ) {}

  async write(path: string, produce: (write: (chunk: Buffer) => Promise<void>) => Promise<void>): Promise<void> {
    this.validate(path);
    const file = join(this.staging, ...path.split('/'));
    await this.folder(dirname(file));
    const handle = await open(file, 'wx');
    try {
      await produce(async (chunk) => {
        for (let offset = 0; offset < chunk.length; ) offset += (await handle.write(chunk, offset, chunk.length - offset)).bytesWritten;
      });
    } finally {
      await handle.close();
    }
  }

  async commit(): Promise<void> {
    try {
      await this.moveInto(this.staging, this.target);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    }
    for await (const file of walkFiles(this.staging)) await this.moveInto(join(this.staging, file), join(this.target, file));
    await rm(this.staging, { recursive: true, force: true });
  }

  async abort(): Promise<void> {
    await rm(this.staging, { recursive: true, force: true }).catch(() => undefined);
  }

  private folder(path: string): Promise<unknown> {
    if (path === this.staging) return Promise.resolve();
    let made = this.folders.get(path);
    if (!made) {
      made = mkdir(path, { recursive: true });
      this.folders.set(path, made);
    }
    return made;
  }
}

/** Relative paths of the files under a folder. */
async function* walkFiles(root: string, relative = ''): AsyncGenerator<string> {
  for await (const entry of await opendir(join(root, relative), { bufferSize: 64 })) {
    const path = relative === '' ? entry.name : join(relative, entry.name);
    if (entry.isDirectory()) yield* walkFiles(root, path);
    else if (entry.isFile()) yield path;
  }
}

/**
 * rename onto a folder fails with EISDIR; mkdir of the parent folders where one is a file with EEXIST (the nearest
 * parent) or ENOTDIR (a farther one), as does rename when a parent became a file meanwhile.
 */
function keyConflictOf(error: unknown, key: string): ContentKeyConflictError | null {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EISDIR') return new ContentKeyConflictError(key, 'folder');
  if (code === 'EEXIST' || code === 'ENOTDIR') return new ContentKeyConflictError(key, 'beneath-file');
  return null;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
