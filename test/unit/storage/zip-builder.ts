import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import * as zlib from 'node:zlib';

/**
 * A minimal zip writer for tests, able to write what real tools refuse to: hostile names, symlink modes, encryption
 * flags, lying sizes. Entries are stored (method 0) unless `deflate` is set.
 */
export interface RawEntry {
  /** Written byte-for-byte (UTF-8 flag set unless `cp437`). */
  name: string | Buffer;
  data?: Buffer;
  /** Pre-compressed data (raw deflate) and its true sizes, for large generated entries. */
  compressed?: { data: Buffer; uncompressedSize: number; crc32: number };
  deflate?: boolean;
  /** Unix mode (e.g. 0o120777 for a symlink); written in the high 16 bits of the external attributes. */
  unixMode?: number;
  /** Extra general-purpose flag bits (1 = encrypted). */
  flags?: number;
  /** Lie in the headers: declared uncompressed size. */
  declaredSize?: number;
  compressionMethod?: number;
  cp437?: boolean;
}

const crc32 = (data: Buffer, prev = 0): number => zlib.crc32(data, prev);

export function buildZip(entries: RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.isBuffer(e.name) ? e.name : Buffer.from(e.name, 'utf8');
    let method = 0;
    let payload: Buffer;
    let size: number;
    let crc: number;
    if (e.compressed) {
      method = 8;
      payload = e.compressed.data;
      size = e.compressed.uncompressedSize;
      crc = e.compressed.crc32;
    } else {
      const data = e.data ?? Buffer.alloc(0);
      size = data.length;
      crc = crc32(data);
      if (e.deflate) {
        method = 8;
        payload = zlib.deflateRawSync(data);
      } else payload = data;
    }
    if (e.compressionMethod !== undefined) method = e.compressionMethod;
    const declared = e.declaredSize ?? size;
    const flags = (e.cp437 ? 0 : 0x800) | (e.flags ?? 0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(payload.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, payload);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(payload.length, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((e.unixMode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + payload.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length & 0xffff, 8);
  end.writeUInt16LE(entries.length & 0xffff, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** Raw-deflates `size` zero bytes without ever holding them: returns the compressed data and its CRC. */
export async function deflatedZeros(size: number): Promise<{ data: Buffer; uncompressedSize: number; crc32: number }> {
  const chunk = Buffer.alloc(1024 * 1024);
  const deflate = zlib.createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (b: Buffer) => out.push(b));
  let crc = 0;
  for (let left = size; left > 0; left -= chunk.length) {
    const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
    crc = crc32(piece, crc);
    if (!deflate.write(piece)) await once(deflate, 'drain');
  }
  deflate.end();
  await once(deflate, 'end');
  return { data: Buffer.concat(out), uncompressedSize: size, crc32: crc };
}

/** A zip with `count` tiny stored entries, streamed to disk (central directory built in memory, ~60 bytes each). */
export async function writeManyEntriesZip(path: string, count: number): Promise<void> {
  const out = createWriteStream(path);
  const centrals: Buffer[] = [];
  let offset = 0;
  const write = async (b: Buffer) => {
    if (!out.write(b)) await once(out, 'drain');
    offset += b.length;
  };
  for (let i = 0; i < count; i++) {
    const name = Buffer.from(`f/${i}.txt`);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    await write(Buffer.concat([local, name]));
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(count, 0xffff), 8);
  end.writeUInt16LE(Math.min(count, 0xffff), 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  await write(cd);
  await write(end);
  out.end();
  await once(out, 'finish');
}
