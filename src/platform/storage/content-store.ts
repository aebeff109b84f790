import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { lookup } from 'mime-types';

/**
 * Course content storage: a flat namespace of immutable-once-written objects addressed by forward-slash keys such as
 * `apps/{appId}/courses/{courseId}/v{n}/shared/launch.html`. Implemented over a directory (LocalContentStore) or an
 * S3-compatible bucket (S3ContentStore); inject the abstract class, StorageModule picks the implementation.
 *
 * Prefixes are folder prefixes: `list('a/b')` and `list('a/b/')` both mean "everything under a/b/", never `a/bc`.
 */
export abstract class ContentStore {
  /** 'local' or 's3', for logs and health output. */
  abstract readonly kind: string;

  /**
   * Writes an object, replacing any previous one atomically (readers see the old or the new object, never a
   * half-written one). A Readable body is streamed, never buffered whole. The local store derives the content type
   * from the key's extension; S3 stores `contentType` (default: derived from the extension too).
   * A key that is a folder prefix, or lies beneath another object, fails with ContentKeyConflictError on the local
   * store (a file system cannot hold both) and is accepted by S3: callers that must not create such keys check first.
   */
  abstract put(key: string, body: Readable | Buffer, options?: PutOptions): Promise<void>;

  /** The object (or the inclusive byte `range` of it), or null when there is no such key. */
  abstract get(key: string, range?: ByteRange): Promise<ContentObject | null>;

  abstract stat(key: string): Promise<ContentStat | null>;

  /** Every object under a folder prefix ('' = the whole store), paged internally. Order is unspecified. */
  abstract list(prefix: string): AsyncIterable<ContentListing>;

  /** Deletes one object; no error when it does not exist. */
  abstract delete(key: string): Promise<void>;

  /** Deletes everything under a folder prefix (which must not be '', the whole store); no error when empty. */
  abstract deletePrefix(prefix: string): Promise<void>;

  /**
   * Copies every object under `from` to the same relative key under `to` (a real copy: nothing is shared, so either
   * side can later be deleted or overwritten independently). The prefixes must not contain each other.
   * Returns the number of objects copied.
   */
  abstract copyPrefix(from: string, to: string): Promise<number>;

  /** Throws when the store cannot be used (directory not writable, bucket unreachable or missing). */
  abstract check(): Promise<void>;

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  /**
   * Stores the local file at `path` under `key` and takes it over: `path` is gone afterwards (also after a failure).
   * The local store moves the file when it is on the same file system (no copy); others stream it.
   */
  async putFile(key: string, path: string, options?: PutOptions): Promise<void> {
    try {
      await this.put(key, createReadStream(path), options);
    } finally {
      await unlink(path).catch(() => undefined);
    }
  }

  /**
   * A local file holding the object, for reading it at random (a zip): the object's own file in the local store,
   * else a download to `downloadTo`. Null when there is no such key. The file must only be read.
   */
  async localFile(key: string, downloadTo: string): Promise<string | null> {
    const object = await this.get(key);
    if (!object) return null;
    await pipeline(object.stream, createWriteStream(downloadTo));
    return downloadTo;
  }

  /**
   * Writes many new objects under a folder prefix (a package being extracted). Writes may run concurrently; the
   * objects are visible at the latest after `commit()`; `abort()` removes what the writer wrote (only that, when
   * the prefix already held objects). The local store writes them into a hidden staging folder and renames it
   * into place on commit; other stores put each object as it comes.
   */
  async openPrefixWriter(prefix: string): Promise<PrefixWriter> {
    const folder = normalizePrefix(prefix);
    return new StreamingPrefixWriter(this, folder, await this.isEmptyPrefix(folder));
  }

  protected async isEmptyPrefix(prefix: string): Promise<boolean> {
    for await (const _item of this.list(prefix)) return false;
    return true;
  }
}

/** See ContentStore.openPrefixWriter. */
export interface PrefixWriter {
  /**
   * Writes the object `prefix + path` (a new key). `produce` calls `write` with each chunk in order and awaits it;
   * the chunk's memory may be reused once that promise settles. A failure of `produce` fails the write.
   */
  write(path: string, produce: (write: (chunk: Buffer) => Promise<void>) => Promise<void>): Promise<void>;
  commit(): Promise<void>;
  /** Best effort, never throws. */
  abort(): Promise<void>;
}

/** The generic writer: one `put` per object, streamed; abort deletes what was written. */
class StreamingPrefixWriter implements PrefixWriter {
  private readonly written: string[] = [];

  constructor(
    private readonly store: ContentStore,
    private readonly prefix: string,
    private readonly prefixWasEmpty: boolean,
  ) {}

  async write(path: string, produce: (write: (chunk: Buffer) => Promise<void>) => Promise<void>): Promise<void> {
    const key = assertValidKey(this.prefix + path);
    this.written.push(key);
    const body = new PassThrough({ highWaterMark: 1024 * 1024 });
    const putting = this.store.put(key, body);
    // Observed here; awaited below. A failed put destroys the body, which ends any wait for 'drain'.
    putting.catch(() => undefined);
    try {
      await produce(async (chunk) => {
        if (body.destroyed) throw new Error(`writing ${key} stopped`);
        if (!body.write(Buffer.from(chunk))) await Promise.race([once(body, 'drain'), putting]);
      });
      body.end();
    } catch (error) {
      body.destroy();
      await putting.catch(() => undefined);
      throw error;
    }
    await putting;
  }

  async commit(): Promise<void> {}

  async abort(): Promise<void> {
    try {
      if (this.prefixWasEmpty) await this.store.deletePrefix(this.prefix);
      else for (const key of this.written) await this.store.delete(key);
    } catch {
      // Best effort: callers delete a failed import's prefix too; the original error matters more.
    }
  }
}
export interface PutOptions {
  contentType?: string;
}

/** Inclusive byte offsets, as in HTTP `Range: bytes=start-end`; `end` omitted or past the end = to the last byte. */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface ContentStat {
  /** Size of the whole object in bytes. */
  size: number;
  contentType: string;
  /** A quoted entity tag, usable as-is in an HTTP ETag header. */
  etag: string;
  lastModified: Date;
}

export interface ContentObject extends ContentStat {
  stream: Readable;
  /** The inclusive byte range the stream holds when a range was asked for (end clamped to the object). */
  range?: { start: number; end: number };
  /** Bytes in `stream`: `size`, or the length of the range. */
  contentLength: number;
}

export interface ContentListing {
  key: string;
  size: number;
  modified: Date;
}

/** A key or prefix that could escape its folder or is not portable across file systems and S3. */
export class InvalidContentKeyError extends Error {
  constructor(
    readonly key: string,
    /** Why, without the key (which holds the store's internal prefix). */
    readonly reason: string,
  ) {
    super(`Invalid content key ${JSON.stringify(key)}: ${reason}`);
    this.name = 'InvalidContentKeyError';
  }
}

/**
 * A write the local store cannot make without a file also being a folder: `folder` = the key is a folder there,
 * `beneath-file` = one of its parent folders is a file. Nothing was changed.
 */
export class ContentKeyConflictError extends Error {
  constructor(
    readonly key: string,
    readonly clash: 'folder' | 'beneath-file',
  ) {
    super(`Cannot write ${JSON.stringify(key)}: ${clash === 'folder' ? 'it is a folder' : 'a parent of it is a file'}`);
    this.name = 'ContentKeyConflictError';
  }
}

/** The requested byte range starts past the end of the object (HTTP 416); `size` is the object's size. */
export class RangeNotSatisfiableError extends Error {
  constructor(
    readonly key: string,
    readonly size: number,
  ) {
    super(`Range not satisfiable for ${key}: the object holds ${size} bytes`);
    this.name = 'RangeNotSatisfiableError';
  }
}

/** S3's limit on a key (the local store has the same so content can move between stores). */
export const MAX_KEY_BYTES = 1024;
/** Usual file-system limit on one path component. */
export const MAX_SEGMENT_BYTES = 255;

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** Why a path segment is not acceptable in a key, or null. Shared with zip extraction. */
export function segmentProblem(segment: string): string | null {
  if (segment === '') return 'it has an empty path segment (// or a leading or trailing /)';
  if (segment === '.' || segment === '..') return `it has a "${segment}" path segment`;
  if (segment.includes('\\')) return 'it contains a backslash';
  if (CONTROL_CHARS.test(segment)) return 'it contains a control character';
  if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) return `a path segment is longer than ${MAX_SEGMENT_BYTES} bytes`;
  return null;
}

/** Validates an object key; every store operation calls this (or assertValidPrefix) first. Returns the key. */
export function assertValidKey(key: string): string {
  if (typeof key !== 'string' || key === '') throw new InvalidContentKeyError(String(key), 'it is empty');
  if (key.startsWith('/')) throw new InvalidContentKeyError(key, 'it is absolute (starts with /)');
  if (/^[A-Za-z]:/.test(key)) throw new InvalidContentKeyError(key, 'it starts with a drive letter');
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw new InvalidContentKeyError(key, `it is longer than ${MAX_KEY_BYTES} bytes`);
  for (const segment of key.split('/')) {
    const problem = segmentProblem(segment);
    if (problem !== null) throw new InvalidContentKeyError(key, problem);
  }
  return key;
}

/**
 * Validates a folder prefix and returns it normalised: '' (whole store) or ending in exactly one '/'.
 * `allowRoot` = whether '' is acceptable (it is for list, not for deletePrefix/copyPrefix).
 */
export function normalizePrefix(prefix: string, allowRoot = false): string {
  if (typeof prefix !== 'string') throw new InvalidContentKeyError(String(prefix), 'it is not a string');
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (trimmed === '') {
    if (allowRoot) return '';
    throw new InvalidContentKeyError(prefix, 'an empty prefix would mean the whole store');
  }
  assertValidKey(trimmed);
  return `${trimmed}/`;
}

/** Throws unless neither folder prefix contains the other. Both must be normalised. */
export function assertDisjointPrefixes(from: string, to: string): void {
  if (from.startsWith(to) || to.startsWith(from)) {
    throw new InvalidContentKeyError(to, `it overlaps the source prefix ${JSON.stringify(from)}`);
  }
}

export function contentTypeFor(key: string): string {
  return lookup(key) || 'application/octet-stream';
}

/** Resolves the inclusive range within an object of `size` bytes, or throws RangeNotSatisfiableError. */
export function clampRange(key: string, range: ByteRange, size: number): { start: number; end: number } {
  if (!Number.isSafeInteger(range.start) || range.start < 0 || (range.end !== undefined && (!Number.isSafeInteger(range.end) || range.end < range.start))) {
    throw new RangeError(`Invalid byte range ${range.start}-${range.end ?? ''}`);
  }
  if (range.start >= size) throw new RangeNotSatisfiableError(key, size);
  return { start: range.start, end: Math.min(range.end ?? size - 1, size - 1) };
}
