import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Test } from '@nestjs/testing';
import * as yauzl from 'yauzl';
import { ZipFile } from 'yazl';
import { loadConfig } from '../../src/config/app-config';
import { ConfigModule } from '../../src/config/config.module';
import { ContentStore, InvalidContentKeyError, PrefixWriter, RangeNotSatisfiableError } from '../../src/platform/storage/content-store';
import { LocalContentStore } from '../../src/platform/storage/local-content-store';
import { S3ContentStore } from '../../src/platform/storage/s3-content-store';
import { StorageModule } from '../../src/platform/storage/storage.module';
import { zipPrefix } from '../../src/platform/storage/zip-create';
import { extractZip, isZipFile, ZipRejectedError } from '../../src/platform/storage/zip-extract';
import { FIXTURES } from '../support/fixtures';
import { buildZip, deflatedZeros, writeManyEntriesZip } from '../unit/storage/zip-builder';

// s3rver ships no type declarations.
const S3rver = require('s3rver');

const GOLF = `${FIXTURES}/packages/scorm12-golf-runtime-basic.zip`;
const ZIP64 = `${FIXTURES}/cmi5-lms-test-suite/102-zip64.zip`;
const BUCKET = 'lcds-test';

let work: string;
let s3server: { close(): Promise<void> } | null = null;
let s3Endpoint = '';
const stores: Record<'local' | 's3', ContentStore> = {} as Record<'local' | 's3', ContentStore>;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'lcds-storage-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: join(work, 's3rver'),
    configureBuckets: [{ name: BUCKET }],
  });
  const address = (await server.run()) as { port: number };
  s3server = server;
  s3Endpoint = `http://127.0.0.1:${address.port}`;
  stores.local = new LocalContentStore(join(work, 'content'));
  stores.s3 = new S3ContentStore({
    kind: 's3',
    bucket: BUCKET,
    region: 'us-east-1',
    endpoint: s3Endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    prefix: 'tenant-a/',
  });
});

afterAll(async () => {
  (stores.s3 as S3ContentStore | undefined)?.onModuleDestroy();
  await s3server?.close();
  rmSync(work, { recursive: true, force: true });
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function keysUnder(store: ContentStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const item of store.list(prefix)) keys.push(item.key);
  return keys.sort();
}

let zerosBomb: ReturnType<typeof deflatedZeros> | null = null;
/** 200 MB of zeros, raw-deflated (~200 KB), made once. */
const bomb = () => (zerosBomb ??= deflatedZeros(200 * 1024 * 1024));

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** name -> sha256 of every file in a zip, read independently with yauzl's own (validating) name decoding. */
async function zipContents(path: string): Promise<Map<string, string>> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true });
  const result = new Map<string, string>();
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.endsWith('/')) continue;
    result.set(entry.fileName, sha(await readAll(await zip.openReadStreamPromise(entry))));
  }
  zip.close();
  return result;
}

function writeZip(name: string, data: Buffer): string {
  const path = join(work, name);
  writeFileSync(path, data);
  return path;
}

describe.each(['local', 's3'] as const)('%s content store', (kind) => {
  let store: ContentStore;
  const base = `apps/app1/courses/c-${kind}`;
  beforeAll(() => {
    store = stores[kind];
  });

  it('passes its health check', async () => {
    await expect(store.check()).resolves.toBeUndefined();
  });

  it('puts, stats and gets buffers and streams; missing keys are null', async () => {
    const key = `${base}/v1/index.html`;
    await store.put(key, Buffer.from('<html>hello</html>'));
    const info = await store.stat(key);
    expect(info).toMatchObject({ size: 18, contentType: 'text/html' });
    expect(info!.etag).toMatch(/^"[^"]+"$/);
    expect(info!.lastModified).toBeInstanceOf(Date);
    const object = await store.get(key);
    expect(object).toMatchObject({ size: 18, contentLength: 18, contentType: 'text/html' });
    expect((await readAll(object!.stream)).toString()).toBe('<html>hello</html>');
    expect(await store.exists(key)).toBe(true);
    expect(await store.get(`${base}/v1/missing.html`)).toBeNull();
    expect(await store.stat(`${base}/v1/missing.html`)).toBeNull();
    expect(await store.exists(`${base}/v1`)).toBe(false); // a "folder" is not an object

    // Overwrite replaces, with a new ETag.
    await store.put(key, Readable.from([Buffer.from('<html>bye</html>')]));
    expect((await readAll((await store.get(key))!.stream)).toString()).toBe('<html>bye</html>');
    expect((await store.stat(key))!.etag).not.toBe(info!.etag);
  });

  it('streams a 12 MB body in and out (multipart on S3) and serves byte ranges', async () => {
    const data = randomBytes(12 * 1024 * 1024 + 123);
    const key = `${base}/v1/media/movie.mp4`;
    await store.put(key, Readable.from(chunksOf(data, 64 * 1024)));
    const whole = await store.get(key);
    expect(whole!.size).toBe(data.length);
    expect(whole!.contentType).toBe('video/mp4');
    expect(sha(await readAll(whole!.stream))).toBe(sha(data));

    const middle = await store.get(key, { start: 5_000_000, end: 5_000_099 });
    expect(middle).toMatchObject({ size: data.length, contentLength: 100, range: { start: 5_000_000, end: 5_000_099 } });
    expect((await readAll(middle!.stream)).equals(data.subarray(5_000_000, 5_000_100))).toBe(true);

    const tail = await store.get(key, { start: data.length - 10 });
    expect(tail!.range).toEqual({ start: data.length - 10, end: data.length - 1 });
    expect((await readAll(tail!.stream)).equals(data.subarray(data.length - 10))).toBe(true);

    const clamped = await store.get(key, { start: data.length - 5, end: data.length + 1000 });
    expect(clamped!.contentLength).toBe(5);
    await readAll(clamped!.stream);

    await expect(store.get(key, { start: data.length })).rejects.toMatchObject({ name: 'RangeNotSatisfiableError', size: data.length });
    await expect(store.get(key, { start: data.length })).rejects.toBeInstanceOf(RangeNotSatisfiableError);
    expect(await store.get(`${base}/v1/media/none.mp4`, { start: 0, end: 1 })).toBeNull();
  });

  it('aborts a put whose source stream fails, leaving no object', async () => {
    const key = `${base}/v1/broken.bin`;
    let pushed = 0;
    const source = new Readable({
      read() {
        this.push(randomBytes(1024 * 1024));
        if (++pushed > 9) this.destroy(new Error('source failed'));
      },
    });
    await expect(store.put(key, source)).rejects.toThrow('source failed');
    expect(await store.exists(key)).toBe(false);
    if (store instanceof LocalContentStore) expect(readdirSync(join(store.root, '.lcds-tmp'))).toEqual([]);
  });

  it('keeps Unicode, spaces and URL-special characters in keys, including through copies', async () => {
    const special = `${base}/unicode/a+b #1?&=;@.html`;
    await store.put(special, Buffer.from('special'));
    expect((await readAll((await store.get(special))!.stream)).toString()).toBe('special');
    const key = `${base}/unicode/dossier é/fichier ü (1) 100%.html`;
    await store.put(key, Buffer.from('ü'));
    expect(await keysUnder(store, `${base}/unicode`)).toEqual([special, key].sort());
    await store.delete(special); // s3rver decodes x-amz-copy-source with decodeURI, so it cannot copy "+#?&" keys
    expect(await store.copyPrefix(`${base}/unicode`, `${base}/unicode-copy`)).toBe(1);
    expect((await readAll((await store.get(`${base}/unicode-copy/dossier é/fichier ü (1) 100%.html`))!.stream)).toString()).toBe('ü');
    await store.deletePrefix(`${base}/unicode`);
    await store.deletePrefix(`${base}/unicode-copy`);
    expect(await keysUnder(store, `${base}/unicode`)).toEqual([]);
  });

  it('lists more than 1,000 keys (paged), treats prefixes as folders, copies and deletes them', async () => {
    const prefix = `${base}/v2`;
    const keys = Array.from({ length: 1100 }, (_, i) => `${prefix}/d${i % 7}/f${i}.txt`);
    await mapLimit(keys, 32, (key) => store.put(key, Buffer.from(key)));
    await store.put(`${base}/v20/sibling.txt`, Buffer.from('not under v2/'));

    const listed: Array<{ key: string; size: number; modified: Date }> = [];
    for await (const item of store.list(prefix)) listed.push(item);
    expect(listed.map((i) => i.key).sort()).toEqual([...keys].sort());
    expect(listed.every((i) => i.size === Buffer.byteLength(i.key) && i.modified instanceof Date)).toBe(true);
    expect(await keysUnder(store, `${prefix}/`)).toHaveLength(1100);
    expect(await keysUnder(store, `${base}/nothing-here`)).toEqual([]);

    // copy (one sub-folder, to keep the test quick on s3rver): a real, independent copy
    const inD0 = keys.filter((k) => k.startsWith(`${prefix}/d0/`)).length;
    expect(await store.copyPrefix(`${prefix}/d0`, `${base}/v3/d0`)).toBe(inD0);
    expect(await keysUnder(store, `${base}/v3`)).toHaveLength(inD0);
    await store.put(`${prefix}/d0/f0.txt`, Buffer.from('changed'));
    expect((await readAll((await store.get(`${base}/v3/d0/f0.txt`))!.stream)).toString()).toBe(`${prefix}/d0/f0.txt`);
    await expect(store.copyPrefix(prefix, `${prefix}/inner`)).rejects.toBeInstanceOf(InvalidContentKeyError);

    // delete one, then whole prefixes; the v20 sibling survives deleting v2
    await store.delete(`${base}/v3/d0/f0.txt`);
    await store.delete(`${base}/v3/d0/f0.txt`); // missing: no error
    expect(await store.exists(`${base}/v3/d0/f0.txt`)).toBe(false);
    await store.deletePrefix(prefix);
    await store.deletePrefix(`${base}/v3/`);
    await store.deletePrefix(`${base}/never-existed`);
    expect(await keysUnder(store, prefix)).toEqual([]);
    expect(await keysUnder(store, `${base}/v3`)).toEqual([]);
    expect(await keysUnder(store, `${base}/v20`)).toEqual([`${base}/v20/sibling.txt`]);
    await store.deletePrefix(`${base}/v20`);
    if (store instanceof LocalContentStore) {
      // no empty directory skeletons are left behind
      expect(existsSync(join(store.root, 'apps/app1/courses', `c-${kind}`, 'v2'))).toBe(false);
      expect(existsSync(join(store.root, 'apps/app1/courses', `c-${kind}`, 'v20'))).toBe(false);
    }
  }, 30_000);

  it.each([
    ['../escape.txt', 'path segment'],
    ['apps/../../etc/passwd', 'path segment'],
    ['/abs/key.txt', 'absolute'],
    ['apps//double.txt', 'empty path segment'],
    ['apps/back\\slash.txt', 'backslash'],
    ['apps/nul\u0000.txt', 'control character'],
    ['apps/bell\u0007.txt', 'control character'],
    ['C:/windows.txt', 'drive letter'],
    ['', 'empty'],
    ['apps/./dot.txt', 'path segment'],
    [`apps/${'x'.repeat(256)}`, 'longer than 255'],
  ])('rejects the key %j', async (key, reason) => {
    await expect(store.put(key, Buffer.from('x'))).rejects.toThrow(reason);
    await expect(store.get(key)).rejects.toBeInstanceOf(InvalidContentKeyError);
    await expect(store.stat(key)).rejects.toBeInstanceOf(InvalidContentKeyError);
    await expect(store.delete(key)).rejects.toBeInstanceOf(InvalidContentKeyError);
  });

  it('refuses to delete or copy the whole store', async () => {
    await expect(store.deletePrefix('')).rejects.toBeInstanceOf(InvalidContentKeyError);
    await expect(store.deletePrefix('/')).rejects.toBeInstanceOf(InvalidContentKeyError);
    await expect(store.copyPrefix('', 'x')).rejects.toBeInstanceOf(InvalidContentKeyError);
  });

  it('takes over an uploaded file with putFile (the local store moves it; the file is gone either way)', async () => {
    const file = join(work, `upload-${kind}.bin`);
    const data = randomBytes(300_000);
    writeFileSync(file, data);
    await store.putFile(`${base}/uploads/one`, file, { contentType: 'application/zip' });
    expect(existsSync(file)).toBe(false);
    expect(await readAll((await store.get(`${base}/uploads/one`))!.stream)).toEqual(data);
    const local = await store.localFile(`${base}/uploads/one`, join(work, `download-${kind}.bin`));
    expect(readFileSync(local!)).toEqual(data);
    if (store instanceof LocalContentStore) expect(local!.startsWith(store.root)).toBe(true); // no copy
    expect(await store.localFile(`${base}/uploads/none`, join(work, 'none.bin'))).toBeNull();
    await store.deletePrefix(`${base}/uploads`);
  });

  it('writes a prefix with a PrefixWriter: concurrent writes, visible after commit, nothing left after abort', async () => {
    const body = (text: string) => async (write: (chunk: Buffer) => Promise<void>) => {
      const chunk = Buffer.from(text);
      await write(chunk);
      chunk.fill(0); // the writer may not keep the chunk after the write settled
      await write(Buffer.from('!'));
    };
    const writer = await store.openPrefixWriter(`${base}/staged`);
    await Promise.all([writer.write('a.txt', body('a')), writer.write('d/e/b.txt', body('b')), writer.write('d/c.txt', body('c'))]);
    if (kind === 'local') expect(await keysUnder(store, `${base}/staged`)).toEqual([]); // staged until commit
    await writer.commit();
    expect(await keysUnder(store, `${base}/staged`)).toEqual([`${base}/staged/a.txt`, `${base}/staged/d/c.txt`, `${base}/staged/d/e/b.txt`]);
    expect((await readAll((await store.get(`${base}/staged/d/e/b.txt`))!.stream)).toString()).toBe('b!');

    // into a prefix that already has objects: merged; an aborted writer leaves the prefix as it was
    const more = await store.openPrefixWriter(`${base}/staged`);
    await more.write('d/new.txt', body('n'));
    await more.commit();
    expect(await keysUnder(store, `${base}/staged`)).toHaveLength(4);
    const aborted = await store.openPrefixWriter(`${base}/staged`);
    await aborted.write('gone.txt', body('g'));
    await expect(aborted.write('bad.txt', () => Promise.reject(new Error('source failed')))).rejects.toThrow('source failed');
    await aborted.abort();
    expect(await keysUnder(store, `${base}/staged`)).toHaveLength(4);
    if (store instanceof LocalContentStore) expect(readdirSync(join(store.root, '.lcds-tmp')).filter((n) => n.endsWith('.staging'))).toEqual([]);
    await store.deletePrefix(`${base}/staged`);
  });

  describe('zip extraction', () => {
    it('extracts a real SCORM 1.2 package byte-for-byte, reporting progress, and zips it back', async () => {
      const dest = `${base}/golf/v1`;
      const progress: Array<[number, number]> = [];
      const result = await extractZip(GOLF, store, dest, { onProgress: (done, total) => progress.push([done, total]) });
      const expected = await zipContents(GOLF);
      expect(result.files).toHaveLength(expected.size);
      expect(result.totalBytes).toBe(464029);
      expect(result.files.map((f) => f.path).sort()).toEqual([...expected.keys()].sort());
      expect(progress[0]).toEqual([0, 464029]);
      expect(progress[progress.length - 1]).toEqual([464029, 464029]);
      for (const [name, hash] of expected) {
        const object = await store.get(`${dest}/${name}`);
        expect(sha(await readAll(object!.stream))).toBe(hash);
      }
      expect((await store.stat(`${dest}/imsmanifest.xml`))!.contentType).toBe('application/xml');

      // GET /courses/{id}/zip: stream it back out and check the archive holds the same files
      const zipped = join(work, `golf-${kind}.zip`);
      await pipeline(zipPrefix(store, dest), createWriteStream(zipped));
      expect(await zipContents(zipped)).toEqual(expected);

      // and a new version copied from it shares nothing mutable
      await store.copyPrefix(dest, `${base}/golf/v2`);
      await store.deletePrefix(dest);
      expect(await keysUnder(store, `${base}/golf/v2`)).toHaveLength(expected.size);
      await store.deletePrefix(`${base}/golf`);
    });

    it('streams a 200 MB entry through with flat memory when the limits allow it', async () => {
      const zip = writeZip(`zeros-ok-${kind}.zip`, buildZip([{ name: 'zeros.bin', compressed: await bomb() }]));
      const rss = process.memoryUsage().rss;
      const progress: number[] = [];
      const result = await extractZip(zip, store, `${base}/zeros`, { maxCompressionRatio: 10_000, onProgress: (done) => progress.push(done) });
      expect(result.totalBytes).toBe(200 * 1024 * 1024);
      expect(progress.length).toBeGreaterThan(2);
      expect(process.memoryUsage().rss - rss).toBeLessThan(96 * 1024 * 1024);
      const object = await store.get(`${base}/zeros/zeros.bin`, { start: 150 * 1024 * 1024, end: 150 * 1024 * 1024 + 9 });
      expect(await readAll(object!.stream)).toEqual(Buffer.alloc(10));
      await store.deletePrefix(`${base}/zeros`);
    }, 30_000);

    it('stops producing the zip when the consumer goes away', async () => {
      await extractZip(GOLF, store, `${base}/abandon`);
      const stream = zipPrefix(store, `${base}/abandon`);
      for await (const _chunk of stream) break; // destroys the stream after the first chunk
      await new Promise((r) => setTimeout(r, 100));
      expect(stream.destroyed).toBe(true);
      expect(await keysUnder(store, `${base}/abandon`)).toHaveLength(44); // the store is still usable
      await store.deletePrefix(`${base}/abandon`);
    });

    it('extracts zip64 archives (the cmi5 test-suite fixture and a yazl-forced one)', async () => {
      const fixture = await extractZip(ZIP64, store, `${base}/zip64/v1`);
      expect(fixture.files.map((f) => f.path).sort()).toEqual(['102-zip64.js', 'cmi5.xml', 'index.html']);
      expect(fixture.totalBytes).toBe(1652);

      const yz = new ZipFile();
      yz.addBuffer(Buffer.from('a'.repeat(5000)), 'big/a.txt', { forceZip64Format: true });
      yz.addBuffer(Buffer.from('é'), 'ünï/b.txt', { forceZip64Format: true });
      const forced = join(work, `forced64-${kind}.zip`);
      const done = pipeline(yz.outputStream as unknown as Readable, createWriteStream(forced));
      yz.end({ forceZip64Format: true, comment: '' });
      await done;
      const result = await extractZip(forced, store, `${base}/zip64/v2`);
      expect(result.files).toEqual([
        { path: 'big/a.txt', size: 5000 },
        { path: 'ünï/b.txt', size: 2 },
      ]);
      expect((await readAll((await store.get(`${base}/zip64/v2/ünï/b.txt`))!.stream)).toString()).toBe('é');
      await store.deletePrefix(`${base}/zip64`);
    });

    it('normalises backslash folders and ./ segments, skips folder entries and decodes unflagged UTF-8 and CP437 names', async () => {
      const zip = writeZip(
        `names-${kind}.zip`,
        buildZip([
          { name: 'content/', data: Buffer.alloc(0) },
          { name: 'content\\page.html', data: Buffer.from('p') },
          { name: './content/./other.html', data: Buffer.from('o') },
          { name: Buffer.from('caf\u00e9.html', 'utf8'), data: Buffer.from('u'), cp437: true },
          { name: Buffer.from([0x6e, 0x81, 0x2e, 0x74, 0x78, 0x74]), data: Buffer.from('c'), cp437: true }, // "nü.txt" in CP437
        ]),
      );
      const result = await extractZip(zip, store, `${base}/names`);
      expect(result.files.map((f) => f.path)).toEqual(['content/page.html', 'content/other.html', 'café.html', 'nü.txt']);
      await store.deletePrefix(`${base}/names`);
    });

    describe('refuses hostile or broken zips, leaving nothing behind', () => {
      const dest = `${base}/hostile/v1`;
      const expectRejected = async (zipPath: string, message: RegExp | string, options = {}) => {
        const started = Date.now();
        const error = await extractZip(zipPath, store, dest, options).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ZipRejectedError);
        expect((error as Error).message).toMatch(message);
        expect(await keysUnder(store, dest)).toEqual([]);
        if (store instanceof LocalContentStore) expect(readdirSync(join(store.root, '.lcds-tmp')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
        return Date.now() - started;
      };
      const ok = { name: 'index.html', data: Buffer.from('<html></html>') };

      it.each([
        ['../evil.txt', /The zip entry "\.\.\/evil\.txt" points outside the package/],
        ['a/../../evil.txt', /"a\/\.\.\/\.\.\/evil\.txt" points outside the package/],
        ['..\\win.txt', /"\.\.\\\\win\.txt" points outside the package/],
        ['a\\..\\..\\win.txt', /points outside the package/],
        ['/abs.txt', /The zip entry "\/abs\.txt" has an absolute path/],
        ['\\\\server\\share\\x.txt', /has an absolute path/],
        ['C:\\Windows\\evil.dll', /"C:\\\\Windows\\\\evil\.dll" has an absolute path/],
        ['c:evil.txt', /has an absolute path/],
        ['nul\u0000.txt', /has control characters in its name/],
      ])('entry named %j', async (name, message) => {
        await expectRejected(writeZip(`evil-${kind}.zip`, buildZip([ok, { name, data: Buffer.from('x') }])), message);
      });

      it('a symlink entry', async () => {
        const zip = buildZip([ok, { name: 'passwd', data: Buffer.from('/etc/passwd'), unixMode: 0o120777 }]);
        await expectRejected(writeZip(`symlink-${kind}.zip`, zip), /The zip entry "passwd" is a symbolic link/);
      });

      it('an encrypted entry', async () => {
        const zip = buildZip([ok, { name: 'secret.txt', data: Buffer.from('x'), deflate: true, flags: 1 }]);
        await expectRejected(writeZip(`enc-${kind}.zip`, zip), /The zip entry "secret\.txt" is encrypted \(password-protected\)/);
      });

      it('an unsupported compression method', async () => {
        const zip = buildZip([ok, { name: 'x.bin', data: Buffer.from('xx'), compressionMethod: 14 }]);
        await expectRejected(writeZip(`lzma-${kind}.zip`, zip), /"x\.bin" uses compression method 14 \(LZMA\)/);
      });

      it('duplicate names after normalisation (including Unicode normal forms) and file/folder clashes', async () => {
        await expectRejected(
          writeZip(`dup-${kind}.zip`, buildZip([ok, { name: 'a/b.txt', data: Buffer.from('1') }, { name: 'a\\b.txt', data: Buffer.from('2') }])),
          /contains "a\/b\.txt" more than once/,
        );
        await expectRejected(
          writeZip(`nfc-${kind}.zip`, buildZip([{ name: 'caf\u00e9.txt', data: Buffer.from('1') }, { name: 'cafe\u0301.txt', data: Buffer.from('2') }])),
          /more than once/,
        );
        await expectRejected(
          writeZip(`clash-${kind}.zip`, buildZip([{ name: 'a', data: Buffer.from('1') }, { name: 'a/b.txt', data: Buffer.from('2') }])),
          /inside a folder named like the file "a"/,
        );
      });

      it('too many entries (25,000), before reading any of them', async () => {
        const zip = join(work, 'many.zip');
        if (!existsSync(zip)) await writeManyEntriesZip(zip, 25_000);
        const ms = await expectRejected(zip, /has 25,000 entries; at most 20,000 files and folders are allowed/);
        expect(ms).toBeLessThan(2000);
      });

      it('a 200 MB-of-zeros entry compressed to ~200 KB (ratio bomb): refused early, memory stays low', async () => {
        const zeros = await bomb();
        expect(zeros.data.length).toBeLessThan(400 * 1024);
        const zip = writeZip(`bomb-${kind}.zip`, buildZip([ok, { name: 'zeros.bin', compressed: zeros }]));
        const rss = process.memoryUsage().rss;
        const ms = await expectRejected(zip, /The zip entry "zeros\.bin" expands from .* to 200 MB \(more than 200:1\).*zip bomb/);
        expect(ms).toBeLessThan(2000);
        expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
      });

      it('a header that lies about the size (the 200 MB bomb declared as 1 KB): stops at the declared size', async () => {
        const zeros = await bomb();
        const zip = writeZip(
          `liar-${kind}.zip`,
          buildZip([ok, { name: 'big/first.txt', data: randomBytes(3000) }, { name: 'liar.bin', compressed: zeros, declaredSize: 1024 }]),
        );
        const rss = process.memoryUsage().rss;
        // the first two files were written before the liar was reached: they must be removed again
        const ms = await expectRejected(zip, /The zip entry "liar\.bin" is damaged: it holds more data than its header declares/);
        expect(ms).toBeLessThan(3000);
        expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
      });

      it('actual bytes beyond the limits even when headers are consistent', async () => {
        const zip = writeZip(`limits-${kind}.zip`, buildZip([ok, { name: 'a.bin', data: Buffer.alloc(5000, 1) }, { name: 'b.bin', data: Buffer.alloc(5000, 2) }]));
        await expectRejected(zip, /"a\.bin" is 4\.9 KB uncompressed; one file may be at most 4\.0 KB/, { maxEntryBytes: 4096 });
        await expectRejected(zip, /more than 9\.8 KB uncompressed \(the limit\) by the time entry "b\.bin"/, { maxTotalBytes: 10_000 });
      });

      it('a corrupted entry (CRC mismatch) after good ones', async () => {
        const zip = buildZip([ok, { name: 'data.txt', data: Buffer.from('hello world, this is fine') }]);
        const at = zip.indexOf('hello world');
        zip[at] = 'j'.charCodeAt(0);
        await expectRejected(writeZip(`crc-${kind}.zip`, zip), /The zip entry "data\.txt" is damaged: its checksum \(CRC-32\) does not match/);
      });

      it('a file that is not a zip, and a truncated zip', async () => {
        const notZip = writeZip(`not-${kind}.zip`, Buffer.from('%PDF-1.4 this is not a zip file at all'));
        expect(await isZipFile(notZip)).toBe(false);
        await expectRejected(notZip, 'The uploaded file is not a zip file. Course packages must be uploaded as .zip archives.');
        const whole = buildZip([ok, { name: 'x.txt', data: randomBytes(4000) }]);
        const truncated = writeZip(`trunc-${kind}.zip`, whole.subarray(0, 2000));
        expect(await isZipFile(truncated)).toBe(true);
        await expectRejected(truncated, /The zip file is damaged or truncated/);
      });

      it('overlapping entries (non-recursive zip bomb technique)', async () => {
        const zip = buildZip([{ name: 'a.txt', data: Buffer.from('aaaa') }]);
        // add a second central directory record pointing at the same local header
        const cdAt = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
        const eocdAt = zip.indexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
        const record = Buffer.from(zip.subarray(cdAt, eocdAt));
        record.write('b', 46);
        const eocd = Buffer.from(zip.subarray(eocdAt));
        eocd.writeUInt16LE(2, 8);
        eocd.writeUInt16LE(2, 10);
        eocd.writeUInt32LE(record.length * 2, 12);
        const evil = Buffer.concat([zip.subarray(0, eocdAt), record, eocd]);
        await expectRejected(writeZip(`overlap-${kind}.zip`, evil), /overlap \(share compressed data\)/);
      });

      it('an abort signal', async () => {
        const controller = new AbortController();
        let writes = 0;
        const cancelling: ContentStore = Object.assign(Object.create(store) as ContentStore, {
          openPrefixWriter: async (prefix: string): Promise<PrefixWriter> => {
            const writer = await store.openPrefixWriter(prefix);
            return {
              write: (path, produce) => {
                if (++writes === 10) controller.abort(new Error('job cancelled'));
                return writer.write(path, produce);
              },
              commit: () => writer.commit(),
              abort: () => writer.abort(),
            };
          },
        });
        const error = await extractZip(GOLF, cancelling, dest, { signal: controller.signal }).catch((e: unknown) => e);
        expect((error as Error).message).toBe('job cancelled');
        expect(await keysUnder(store, dest)).toEqual([]);
      });
    });

    it('cleans up only its own files when the destination already held some', async () => {
      const dest = `${base}/shared/v1`;
      await store.put(`${dest}/existing.txt`, Buffer.from('keep me'));
      const zip = writeZip(`partial-${kind}.zip`, buildZip([{ name: 'new.txt', data: Buffer.from('n') }, { name: '../x', data: Buffer.from('x') }]));
      await expect(extractZip(zip, store, dest)).rejects.toBeInstanceOf(ZipRejectedError);
      const liar = writeZip(
        `partial2-${kind}.zip`,
        buildZip([{ name: 'new.txt', data: Buffer.from('n') }, { name: 'bad.bin', data: Buffer.alloc(100), declaredSize: 10 }]),
      );
      await expect(extractZip(liar, store, dest)).rejects.toThrow(/The zip entry "bad\.bin" is damaged: it is stored uncompressed, yet/);
      const short = writeZip(
        `partial3-${kind}.zip`,
        buildZip([{ name: 'new.txt', data: Buffer.from('n') }, { name: 'short.txt', data: Buffer.from('abc'), deflate: true, declaredSize: 10 }]),
      );
      await expect(extractZip(short, store, dest)).rejects.toThrow(/"short\.txt" is damaged: it holds 3 bytes, not the 10 its header declares/);
      expect(await keysUnder(store, dest)).toEqual([`${dest}/existing.txt`]);
      await store.deletePrefix(dest);
    });
  });
});

describe('StorageModule', () => {
  const env = (extra: Record<string, string>) => ({ DATA_DIR: join(work, 'data'), LCDS_MASTER_KEY: 'ab'.repeat(32), ...extra });

  it('provides a local store under DATA_DIR/content by default', async () => {
    const config = loadConfig(env({}));
    expect(config.storage).toEqual({ kind: 'local', dir: join(work, 'data', 'content') });
    const moduleRef = await Test.createTestingModule({ imports: [ConfigModule.forRoot(config), StorageModule] }).compile();
    await moduleRef.init();
    const store = moduleRef.get(ContentStore);
    expect(store).toBeInstanceOf(LocalContentStore);
    await store.put('apps/x/y.txt', Buffer.from('y'));
    expect(existsSync(join(work, 'data', 'content', 'apps', 'x', 'y.txt'))).toBe(true);
    await moduleRef.close();
  });

  it('provides an S3 store that works against the S3-compatible server', async () => {
    const config = loadConfig(
      env({ LCDS_STORAGE: 's3', S3_ENDPOINT: s3Endpoint, S3_BUCKET: BUCKET, S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER', S3_PREFIX: '/module-test/' }),
    );
    expect(config.storage).toMatchObject({ kind: 's3', prefix: 'module-test/', forcePathStyle: true, region: 'us-east-1' });
    const moduleRef = await Test.createTestingModule({ imports: [ConfigModule.forRoot(config), StorageModule] }).compile();
    await moduleRef.init();
    const store = moduleRef.get(ContentStore);
    expect(store).toBeInstanceOf(S3ContentStore);
    await store.check();
    await store.put('apps/x/y.txt', Buffer.from('y'));
    expect(await store.exists('apps/x/y.txt')).toBe(true);
    expect(await stores.s3.exists('apps/x/y.txt')).toBe(false); // different S3_PREFIX
    await store.deletePrefix('apps');
    await moduleRef.close();
  });

  it('reports a missing bucket through check()', async () => {
    const store = new S3ContentStore({
      kind: 's3',
      bucket: 'no-such-bucket',
      region: 'us-east-1',
      endpoint: s3Endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      prefix: '',
    });
    await expect(store.check()).rejects.toBeDefined();
    store.onModuleDestroy();
  });
});

function* chunksOf(data: Buffer, size: number): Generator<Buffer> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

async function mapLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}
