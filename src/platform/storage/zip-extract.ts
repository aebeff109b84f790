import { type FileHandle, open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import * as yauzl from 'yauzl';
import { ContentStore, MAX_KEY_BYTES, normalizePrefix, segmentProblem } from './content-store';

/**
 * The package cannot be accepted as uploaded. The message is meant for the course author: it names the entry and
 * says what to change. Anything else thrown by extractZip is an infrastructure failure (disk, S3) worth retrying.
 */
export class ZipRejectedError extends Error {
  constructor(
    message: string,
    /** The offending entry's name as stored in the zip, when one entry is to blame. */
    readonly entry?: string,
  ) {
    super(message);
    this.name = 'ZipRejectedError';
  }
}

export interface ExtractZipOptions {
  /** Files and folders in the zip (default 20,000). */
  maxEntries?: number;
  /** Sum of the uncompressed sizes (default 4 GiB). */
  maxTotalBytes?: number;
  /** Uncompressed size of one file (default: maxTotalBytes). */
  maxEntryBytes?: number;
  /** Uncompressed : compressed size above which an entry is refused as a zip bomb (default 200). */
  maxCompressionRatio?: number;
  /** The ratio is only checked for entries at least this big uncompressed (default 1 MiB). */
  ratioCheckMinBytes?: number;
  /** Called at the start, at the end and in between every 8 MB or 0.5 s, with uncompressed bytes written and expected. */
  onProgress?: (bytesDone: number, bytesTotal: number) => void;
  /** Aborts the extraction (what was written is removed, the signal's reason is thrown). */
  signal?: AbortSignal;
}

export interface ExtractZipResult {
  /** Paths relative to the destination prefix, in zip order, with their sizes. Folders are not listed. */
  files: Array<{ path: string; size: number }>;
  totalBytes: number;
}

const DEFAULTS = {
  maxEntries: 20_000,
  maxTotalBytes: 4 * 1024 ** 3,
  maxCompressionRatio: 200,
  ratioCheckMinBytes: 1024 * 1024,
};
const PROGRESS_EVERY_BYTES = 8 * 1024 * 1024;
const PROGRESS_EVERY_MS = 500;
/** Bytes read from the zip at a time (per entry being extracted). */
const READ_CHUNK_BYTES = 1024 * 1024;
/** zlib output chunks: each is a new buffer, kept whole by the slice written, so not much larger than a small text file. */
const INFLATE_CHUNK_BYTES = 64 * 1024;
/** Entries extracted at once. */
const ENTRY_CONCURRENCY = 4;
/** Smallest local file header: entries whose data ranges come closer than this overlap (a zip-bomb technique). */
const LOCAL_HEADER_MIN_BYTES = 30;

const COMPRESSION_METHODS: Record<number, string> = {
  1: 'Shrink',
  6: 'Implode',
  9: 'Deflate64',
  12: 'BZIP2',
  14: 'LZMA',
  93: 'Zstandard',
  95: 'XZ',
  98: 'PPMd',
  99: 'AES encryption',
};

/** Whether the file starts like a zip archive (local file header, or the end record of an empty zip). */
export async function isZipFile(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const magic = Buffer.alloc(4);
    const { bytesRead } = await handle.read(magic, 0, 4, 0);
    if (bytesRead < 4 || magic[0] !== 0x50 || magic[1] !== 0x4b) return false;
    return (magic[2] === 3 && magic[3] === 4) || (magic[2] === 5 && magic[3] === 6) || (magic[2] === 7 && magic[3] === 8);
  } finally {
    await handle.close();
  }
}

interface PlannedFile {
  entry: yauzl.Entry;
  /** Name as stored in the zip, for messages. */
  name: string;
  /** Normalised relative path. */
  path: string;
  /** Offset the entry's data must end by: the next entry's local header, or the end of the zip file. */
  dataLimit: number;
}

/**
 * Extracts a zip file into the store under `destPrefix`, one entry at a time and streaming (memory stays flat
 * whatever the package size). The whole central directory is checked before anything is written: unsafe names,
 * links, encryption, unsupported compression, duplicates, entry count, declared sizes and compression ratios.
 * While streaming, the bytes actually produced are counted and checksummed too, since headers can lie.
 * On any failure everything this call wrote is removed again before the error is thrown.
 */
export async function extractZip(
  zipPath: string,
  store: ContentStore,
  destPrefix: string,
  options: ExtractZipOptions = {},
): Promise<ExtractZipResult> {
  const maxTotalBytes = options.maxTotalBytes ?? DEFAULTS.maxTotalBytes;
  const limits = {
    maxEntries: options.maxEntries ?? DEFAULTS.maxEntries,
    maxTotalBytes,
    maxEntryBytes: options.maxEntryBytes ?? maxTotalBytes,
    maxCompressionRatio: options.maxCompressionRatio ?? DEFAULTS.maxCompressionRatio,
    ratioCheckMinBytes: options.ratioCheckMinBytes ?? DEFAULTS.ratioCheckMinBytes,
  };
  const prefix = normalizePrefix(destPrefix);
  options.signal?.throwIfAborted();

  const zip = await openZip(zipPath);
  try {
    if (zip.entryCount > limits.maxEntries) {
      throw new ZipRejectedError(
        `The zip file has ${zip.entryCount.toLocaleString('en-US')} entries; at most ${limits.maxEntries.toLocaleString('en-US')} files and folders are allowed. Remove unused files from the package.`,
      );
    }
    const entries = await readCentralDirectory(zip);
    const plan = planExtraction(entries, zip.fileSize, prefix, limits);
    const bytesTotal = plan.reduce((sum, file) => sum + file.entry.uncompressedSize, 0);

    const files = new Array<ExtractZipResult['files'][number]>(plan.length);
    let bytesDone = 0;
    let lastBytes = 0;
    let lastTime = Date.now();
    const report = (force: boolean) => {
      if (!options.onProgress) return;
      const now = Date.now();
      if (force || bytesDone - lastBytes >= PROGRESS_EVERY_BYTES || now - lastTime >= PROGRESS_EVERY_MS) {
        lastBytes = bytesDone;
        lastTime = now;
        options.onProgress(bytesDone, bytesTotal);
      }
    };
    report(true);
    const data = await open(zipPath, 'r');
    const writer = await store.openPrefixWriter(prefix);
    try {
      const context: EntryContext = {
        data,
        limits,
        onBytes: (n) => {
          bytesDone += n;
          if (bytesDone > limits.maxTotalBytes) throw new ZipRejectedError(`The package is more than ${formatBytes(limits.maxTotalBytes)} uncompressed (the limit).`);
          report(false);
        },
        signal: options.signal,
      };
      // A few entries at a time: the file system work of one (open, close, small writes) overlaps the others'.
      let next = 0;
      let failure: { error: unknown } | null = null;
      const worker = async () => {
        const buffer = Buffer.allocUnsafeSlow(READ_CHUNK_BYTES);
        while (!failure && next < plan.length) {
          const index = next++;
          const file = plan[index];
          try {
            options.signal?.throwIfAborted();
            let size = 0;
            await writer.write(file.path, async (write) => {
              size = await extractEntry(file, buffer, context, write);
            });
            files[index] = { path: file.path, size };
          } catch (error) {
            failure ??= { error };
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(ENTRY_CONCURRENCY, plan.length) }, worker));
      if (failure) throw (failure as { error: unknown }).error;
      options.signal?.throwIfAborted();
      await writer.commit();
    } catch (error) {
      await writer.abort();
      throw error;
    } finally {
      await data.close();
    }
    report(true);
    return { files, totalBytes: bytesDone };
  } finally {
    zip.close();
  }
}

async function openZip(zipPath: string): Promise<yauzl.ZipFile> {
  try {
    return await yauzl.openPromise(zipPath, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: false, // names are decoded and checked here, so that errors can name the entry
      // yauzl's size validation is done here instead (planExtraction and extractEntry), for the same reason:
      // stored entries whose two sizes differ, and streams longer or shorter than declared, are refused by name.
      validateEntrySizes: false,
      strictFileNames: true,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== undefined) throw error; // file system error, not the zip's fault
    if (!(await isZipFile(zipPath).catch(() => false))) {
      throw new ZipRejectedError('The uploaded file is not a zip file. Course packages must be uploaded as .zip archives.');
    }
    throw damagedZip(error);
  }
}

function readCentralDirectory(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', (error: Error) => reject(damagedZip(error)));
    zip.readEntry();
  });
}

function planExtraction(
  entries: yauzl.Entry[],
  zipSize: number,
  prefix: string,
  limits: { maxTotalBytes: number; maxEntryBytes: number; maxCompressionRatio: number; ratioCheckMinBytes: number },
): PlannedFile[] {
  const plan: PlannedFile[] = [];
  const filesByNormalName = new Map<string, string>();
  const folders = new Map<string, string>(); // normalised folder path -> a file that needs it
  let declaredTotal = 0;

  for (const entry of entries) {
    const name = decodeEntryName(entry);
    const shown = JSON.stringify(name);
    const segments = checkEntryPath(name, shown);
    const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
    if (mode === 0o120000) {
      throw new ZipRejectedError(
        `The zip entry ${shown} is a symbolic link, which packages may not contain. Replace the link with the file it points to and re-create the zip.`,
        name,
      );
    }
    const isFolder = /[/\\]$/.test(name) || (mode === 0o040000 && entry.uncompressedSize === 0);
    if (isFolder || segments.length === 0) continue;

    const path = segments.join('/');
    if (entry.isEncrypted() || (entry.generalPurposeBitFlag & 0x40) !== 0) {
      throw new ZipRejectedError(`The zip entry ${shown} is encrypted (password-protected). Re-create the zip without a password.`, name);
    }
    if (!entry.canDecodeFileData()) {
      const method = COMPRESSION_METHODS[entry.compressionMethod];
      throw new ZipRejectedError(
        `The zip entry ${shown} uses compression method ${entry.compressionMethod}${method ? ` (${method})` : ''}, which is not supported. Re-create the zip with standard Deflate compression (the default of most zip tools).`,
        name,
      );
    }
    if (entry.compressionMethod === 0 && entry.compressedSize !== entry.uncompressedSize) {
      throw damaged(name, `it is stored uncompressed, yet its header declares ${entry.compressedSize} bytes stored and ${entry.uncompressedSize} bytes of content`);
    }
    if (Buffer.byteLength(prefix + path) > MAX_KEY_BYTES) {
      throw new ZipRejectedError(`The zip entry ${shown} has a path that is too long (over ${MAX_KEY_BYTES - Buffer.byteLength(prefix)} bytes). Shorten the folder and file names.`, name);
    }
    const size = entry.uncompressedSize;
    if (size > limits.maxEntryBytes) {
      throw new ZipRejectedError(`The zip entry ${shown} is ${formatBytes(size)} uncompressed; one file may be at most ${formatBytes(limits.maxEntryBytes)}.`, name);
    }
    declaredTotal += size;
    if (declaredTotal > limits.maxTotalBytes) {
      throw new ZipRejectedError(
        `The package is more than ${formatBytes(limits.maxTotalBytes)} uncompressed (the limit) by the time entry ${shown} is counted. Make the package smaller.`,
        name,
      );
    }
    if (size >= limits.ratioCheckMinBytes && size / Math.max(entry.compressedSize, 1) > limits.maxCompressionRatio) {
      throw new ZipRejectedError(
        `The zip entry ${shown} expands from ${formatBytes(entry.compressedSize)} to ${formatBytes(size)} (more than ${limits.maxCompressionRatio}:1), which is refused as a likely zip bomb. Real course files do not compress that well; check the file.`,
        name,
      );
    }

    const normal = path.normalize('NFC');
    const previous = filesByNormalName.get(normal);
    if (previous !== undefined) {
      throw new ZipRejectedError(
        `The zip contains ${JSON.stringify(path)} more than once (${JSON.stringify(previous)} and ${shown}). Remove the duplicate and re-create the zip.`,
        name,
      );
    }
    const asFolderUser = folders.get(normal);
    if (asFolderUser !== undefined) {
      throw new ZipRejectedError(`The zip entry ${shown} is a file, but the zip also has ${JSON.stringify(asFolderUser)} inside a folder of that name.`, name);
    }
    const normalSegments = normal.split('/');
    for (let i = 1; i < normalSegments.length; i++) {
      const folder = normalSegments.slice(0, i).join('/');
      const clash = filesByNormalName.get(folder);
      if (clash !== undefined) {
        throw new ZipRejectedError(`The zip entry ${shown} is inside a folder named like the file ${JSON.stringify(clash)}. Rename one of them.`, name);
      }
      if (!folders.has(folder)) folders.set(folder, name);
    }
    filesByNormalName.set(normal, name);
    plan.push({ entry, name, path, dataLimit: zipSize });
  }

  // Overlapping entries (several names sharing one compressed stream) are a known zip-bomb technique.
  const byOffset = [...plan].sort((a, b) => a.entry.relativeOffsetOfLocalHeader - b.entry.relativeOffsetOfLocalHeader);
  for (let i = 0; i < byOffset.length; i++) {
    const { entry, name } = byOffset[i];
    const end = entry.relativeOffsetOfLocalHeader + LOCAL_HEADER_MIN_BYTES + entry.compressedSize;
    const next = byOffset[i + 1];
    if (next) byOffset[i].dataLimit = next.entry.relativeOffsetOfLocalHeader;
    if (end > zipSize || (next && end > next.entry.relativeOffsetOfLocalHeader)) {
      throw new ZipRejectedError(
        next && end <= zipSize
          ? `The zip entries ${JSON.stringify(name)} and ${JSON.stringify(next.name)} overlap (share compressed data), a technique used by zip bombs. Re-create the zip with a standard tool.`
          : `The zip file is damaged or truncated: entry ${JSON.stringify(name)} extends past the end of the file. Re-create the zip and upload it again.`,
        name,
      );
    }
  }
  return plan;
}

/**
 * The entry's name as text: the Info-ZIP Unicode path field if present, UTF-8 when flagged — or when unflagged but
 * valid UTF-8 (macOS/Linux tools often omit the flag) — else IBM code page 437 as the zip specification says.
 */
function decodeEntryName(entry: yauzl.Entry): string {
  const raw = entry.fileNameRaw;
  const flaggedUtf8 = (entry.generalPurposeBitFlag & 0x800) !== 0;
  const hasUnicodeField = entry.extraFields.some((field) => field.id === 0x7075);
  if (!flaggedUtf8 && !hasUnicodeField && raw.some((byte) => byte >= 0x80)) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      // not UTF-8: fall through to CP437
    }
  }
  return yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, raw, entry.extraFields, true);
}

/** Normalised path segments of an entry name ('.' and empty segments dropped), or a ZipRejectedError. */
function checkEntryPath(name: string, shown: string): string[] {
  // Backslashes are folder separators to Windows tools, so treat them as such before looking for "..".
  const slashed = name.replace(/\\/g, '/');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(slashed)) {
    throw new ZipRejectedError(`The zip entry ${shown} has control characters in its name. Rename the file and re-create the zip.`, name);
  }
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) {
    throw new ZipRejectedError(
      `The zip entry ${shown} has an absolute path. Re-create the zip from inside the course folder so that paths are relative (imsmanifest.xml at the top level).`,
      name,
    );
  }
  const segments = slashed.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) {
    throw new ZipRejectedError(
      `The zip entry ${shown} points outside the package (".."). A package may only contain files inside its own folder; re-create the zip from the course folder.`,
      name,
    );
  }
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem !== null) throw new ZipRejectedError(`The zip entry ${shown} cannot be stored: ${problem}. Rename it and re-create the zip.`, name);
  }
  return segments;
}

interface EntryContext {
  /** The zip file, for reading entry data. */
  data: FileHandle;
  limits: { maxTotalBytes: number; maxEntryBytes: number; maxCompressionRatio: number; ratioCheckMinBytes: number };
  onBytes: (n: number) => void;
  signal?: AbortSignal;
}

/**
 * Reads one entry's data from the zip (through `buffer`, reused) and hands the content to `write`, enforcing the
 * limits on the bytes actually produced. Returns its size.
 */
async function extractEntry(file: PlannedFile, buffer: Buffer, context: EntryContext, write: (chunk: Buffer) => Promise<void>): Promise<number> {
  const { entry, name } = file;
  const shown = JSON.stringify(name);
  const { limits } = context;
  const start = await dataStart(context.data, file);
  let produced = 0;
  let crc = 0;
  const accept = async (chunk: Buffer) => {
    produced += chunk.length;
    // Headers can lie: stop as soon as the data outgrows what was declared (and checked against the limits).
    if (produced > entry.uncompressedSize) throw damaged(name, `it holds more data than its header declares (${entry.uncompressedSize} bytes)`);
    if (produced > limits.maxEntryBytes) {
      throw new ZipRejectedError(`The zip entry ${shown} is larger than ${formatBytes(limits.maxEntryBytes)} uncompressed, the limit for one file.`, name);
    }
    if (produced >= limits.ratioCheckMinBytes && produced / Math.max(entry.compressedSize, 1) > limits.maxCompressionRatio) {
      throw new ZipRejectedError(`The zip entry ${shown} expands more than ${limits.maxCompressionRatio}:1, which is refused as a likely zip bomb.`, name);
    }
    context.signal?.throwIfAborted();
    crc = crc32(chunk, crc);
    context.onBytes(chunk.length);
    await write(chunk);
  };

  if (entry.compressionMethod === 0) {
    for await (const chunk of readRange(context.data, name, start, entry.compressedSize, buffer)) await accept(chunk);
  } else {
    // Deflate: compressed chunks are copied out of the shared buffer, since the inflater keeps them for a while.
    const inflater = zlib.createInflateRaw({ chunkSize: INFLATE_CHUNK_BYTES });
    const compressed = Readable.from(
      (async function* () {
        for await (const chunk of readRange(context.data, name, start, entry.compressedSize, buffer)) yield Buffer.from(chunk);
      })(),
    );
    const stopped: { error?: Error } = {}; // what stopped the pipeline (which itself reports an AbortError then)
    try {
      await pipeline(compressed, inflater, async (inflated: AsyncIterable<Buffer>) => {
        try {
          for await (const chunk of inflated) await accept(chunk);
        } catch (error) {
          stopped.error = error as Error;
          throw error;
        }
      });
    } catch (error) {
      if (stopped.error) throw stopped.error;
      if (error instanceof ZipRejectedError || context.signal?.aborted) throw error;
      throw damagedZip(error, name); // inflate error, truncated data, …
    }
  }
  if (produced !== entry.uncompressedSize) throw damaged(name, `it holds ${produced} bytes, not the ${entry.uncompressedSize} its header declares`);
  if (crc !== entry.crc32) throw damaged(name, 'its checksum (CRC-32) does not match its contents');
  return produced;
}

/** Where the entry's data starts: after its local header, whose name and extra field lengths may differ from the central directory's. */
async function dataStart(data: FileHandle, file: PlannedFile): Promise<number> {
  const header = Buffer.alloc(LOCAL_HEADER_MIN_BYTES);
  const offset = file.entry.relativeOffsetOfLocalHeader;
  const { bytesRead } = await data.read(header, 0, LOCAL_HEADER_MIN_BYTES, offset);
  if (bytesRead < LOCAL_HEADER_MIN_BYTES || header.readUInt32LE(0) !== 0x04034b50) throw damaged(file.name, 'its local header is missing');
  const start = offset + LOCAL_HEADER_MIN_BYTES + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (start + file.entry.compressedSize > file.dataLimit) {
    throw damaged(file.name, 'its data runs into the next entry or past the end of the file');
  }
  return start;
}

/** The bytes [start, start + length) of the file, read into `buffer` (each chunk is only valid until the next). */
async function* readRange(data: FileHandle, name: string, start: number, length: number, buffer: Buffer): AsyncGenerator<Buffer> {
  for (let position = start, end = start + length; position < end; ) {
    const { bytesRead } = await data.read(buffer, 0, Math.min(buffer.length, end - position), position);
    if (bytesRead === 0) throw damaged(name, 'the zip file ends before its data does');
    position += bytesRead;
    yield buffer.subarray(0, bytesRead);
  }
}

function damaged(name: string, reason: string): ZipRejectedError {
  return new ZipRejectedError(`The zip entry ${JSON.stringify(name)} is damaged: ${reason}. Re-create the zip and upload it again.`, name);
}

function damagedZip(error: unknown, name?: string): ZipRejectedError {
  let detail = error instanceof Error ? error.message : String(error);
  if (/^too many bytes in the stream/.test(detail)) detail = 'it holds more data than its header declares';
  else if (/^not enough bytes in the stream/.test(detail)) detail = 'it holds less data than its header declares';
  if (name !== undefined) return damaged(name, detail);
  return new ZipRejectedError(`The zip file is damaged or truncated and cannot be read (${detail}). Re-create the zip and upload it again.`);
}

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

const nativeCrc32 = (zlib as unknown as { crc32?: (data: Buffer, value?: number) => number }).crc32;
let crcTable: Uint32Array | null = null;

/** CRC-32 as used by zip; zlib.crc32 where Node has it (20.15+), a table-driven fallback otherwise. */
function crc32(data: Buffer, previous: number): number {
  if (nativeCrc32) return nativeCrc32(data, previous);
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = ~previous >>> 0;
  for (let i = 0; i < data.length; i++) crc = crcTable[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}
