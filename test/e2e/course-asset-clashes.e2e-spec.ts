import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { ContentKeyConflictError } from '../../src/platform/storage/content-store';
import { LocalContentStore } from '../../src/platform/storage/local-content-store';
import { fixture, importCourse } from '../support/courses';
import { startS3Server } from '../support/s3-server';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * A course path is a file or a folder, never both, on every content store: an asset written onto a folder or
 * beneath a file is refused with 400 (the operations document 400 and 404 only) and nothing is lost.
 */
describe.each(['local', 's3'] as const)('course assets onto a folder or beneath a file (%s store)', (kind) => {
  let s3: Awaited<ReturnType<typeof startS3Server>> | undefined;
  let s: TestServer;
  let app: string;
  let peer: Server;
  let peerUrl: string;
  const peerRequests: string[] = [];

  beforeAll(async () => {
    if (kind === 's3') s3 = await startS3Server();
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true', ...(s3?.env ?? {}) });
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    expect((await importCourse(s.api, app, 'clash', fixture('scorm12-golf-runtime-basic.zip'))).status).toBe('COMPLETE');
    peer = createServer((req, res) => {
      peerRequests.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('fetched by the server');
    });
    await new Promise<void>((r) => peer.listen(0, '127.0.0.1', () => r()));
    peerUrl = `http://127.0.0.1:${(peer.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    peer?.close();
    await s?.close();
    await s3?.close();
  });

  const upload = async (path: string, destination: string, content = 'new content') => {
    const form = new FormData();
    form.append('destination', destination);
    form.append('file', new Blob([content]), 'x.txt');
    const res = await fetch(`${s.api}/courses/clash/${path}`, { method: 'POST', headers: { authorization: app }, body: form });
    return { status: res.status, body: await res.json() };
  };
  const files = async (path: string) => {
    const list = await call(`${s.api}/courses/clash/${path}`, { auth: app });
    expect(list.status).toBe(200);
    return (list.body.files as Array<{ path: string; size: number }>).map((f) => `${f.path} ${f.size}`).sort();
  };
  const asset = async (relativePath: string) => (await call(`${s.api}/courses/clash/asset?relativePath=${encodeURIComponent(relativePath)}`, { auth: app })).body;

  it('refuses an upload onto a folder, for the course and for a version, and keeps the folder', async () => {
    const before = await files('asset/list');
    expect(before).toEqual(expect.arrayContaining([expect.stringMatching(/^shared\/style\.css /)]));
    for (const destination of ['shared', './shared', 'shared/../shared', '/shared']) {
      expect({ destination, ...(await upload('asset/upload', destination)) }).toEqual({ destination, status: 400, body: { message: "destination 'shared' is a folder of the course" } });
    }
    expect(await upload('versions/1/asset/upload', 'Etiquette')).toEqual({ status: 400, body: { message: "destination 'Etiquette' is a folder of the course" } });
    expect(await files('asset/list')).toEqual(before);
    expect(await files('versions/1/asset/list')).toEqual(before);
  });

  it('refuses an upload beneath a file, for the course and for a version, and keeps the file', async () => {
    const manifest = await asset('imsmanifest.xml');
    expect(String(manifest)).toContain('<manifest');
    const before = await files('asset/list');
    expect(await upload('asset/upload', 'imsmanifest.xml/x.txt')).toEqual({ status: 400, body: { message: "destination 'imsmanifest.xml/x.txt' is beneath the file 'imsmanifest.xml'" } });
    expect(await upload('asset/upload', 'shared/style.css/deeper/x.txt')).toEqual({
      status: 400,
      body: { message: "destination 'shared/style.css/deeper/x.txt' is beneath the file 'shared/style.css'" },
    });
    expect(await upload('versions/1/asset/upload', 'imsmanifest.xml/x.txt')).toEqual({ status: 400, body: { message: "destination 'imsmanifest.xml/x.txt' is beneath the file 'imsmanifest.xml'" } });
    expect(await files('asset/list')).toEqual(before);
    expect(await asset('imsmanifest.xml')).toBe(manifest);

    // A file uploaded just before is a file like any other.
    expect(await upload('versions/1/asset/upload', 'x.txt', 'plain')).toEqual({ status: 200, body: { filename: 'x.txt', destination: 'x.txt' } });
    expect(await upload('versions/1/asset/upload', 'x.txt/y')).toEqual({ status: 400, body: { message: "destination 'x.txt/y' is beneath the file 'x.txt'" } });
    expect(await asset('x.txt')).toBe('plain');
    expect(await files('asset/list')).not.toEqual(expect.arrayContaining([expect.stringMatching(/^x\.txt\//)]));
  });

  it('refuses an import from a URL onto a folder or beneath a file before fetching anything', async () => {
    const before = await files('asset/list');
    const imported = (path: string, destination: string) => call(`${s.api}/courses/clash/${path}`, { method: 'POST', auth: app, json: { fetchUrl: `${peerUrl}/asset.txt`, destination } });
    expect(await imported('asset', 'shared')).toMatchObject({ status: 400, body: { message: "destination 'shared' is a folder of the course" } });
    expect(await imported('versions/1/asset', 'imsmanifest.xml/x.txt')).toMatchObject({ status: 400, body: { message: "destination 'imsmanifest.xml/x.txt' is beneath the file 'imsmanifest.xml'" } });
    expect(peerRequests).toEqual([]);
    expect(await files('asset/list')).toEqual(before);
    // The same operation still writes beside them.
    expect(await imported('asset', 'shared/fetched.txt')).toMatchObject({ status: 200, body: { filename: 'fetched.txt', destination: 'shared/fetched.txt' } });
    expect(await asset('shared/fetched.txt')).toBe('fetched by the server');
  });

  it('refuses a destination no store can hold (a name over 255 bytes, a path over the key limit) with 400', async () => {
    const long = await upload('asset/upload', `shared/${'n'.repeat(256)}.txt`);
    expect(long).toEqual({ status: 400, body: { message: expect.stringMatching(/cannot be stored: a path segment is longer than 255 bytes/) } });
    const deep = await upload('asset/upload', `${'d'.repeat(200)}/`.repeat(5) + 'x.txt');
    expect(deep.status).toBe(400);
    expect(deep.body.message).toMatch(/cannot be stored/);
    expect(deep.body.message).not.toMatch(/apps\//);
    // Reading such a path is the same client error, not a 500.
    const read = await call(`${s.api}/courses/clash/asset?relativePath=${'n'.repeat(300)}`, { auth: app });
    expect(read).toMatchObject({ status: 400, body: { message: expect.stringMatching(/cannot be used: a path segment is longer than 255 bytes/) } });
  });

  it('still writes into a folder, and beside a file or folder whose name it starts with', async () => {
    expect((await upload('asset/upload', 'shared/new.txt', 'in the folder')).status).toBe(200);
    expect((await upload('asset/upload', 'shared.txt', 'beside the folder')).status).toBe(200);
    expect((await upload('asset/upload', 'imsmanifest.xml.bak/x.txt', 'beside the file')).status).toBe(200);
    expect(await asset('shared/new.txt')).toBe('in the folder');
    expect(await asset('shared.txt')).toBe('beside the folder');
    expect(await asset('imsmanifest.xml.bak/x.txt')).toBe('beside the file');
  });

  it('leaves no temporary file behind', () => {
    const leftovers = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);
    expect(leftovers(join(s.config.dataDir, 'tmp', 'uploads'))).toEqual([]);
    expect(leftovers(join(s.config.dataDir, 'tmp')).filter((name) => name.startsWith('asset-'))).toEqual([]);
    if (s.config.storage.kind === 'local') expect(leftovers(join(s.config.storage.dir, '.lcds-tmp'))).toEqual([]);
  });

  if (kind === 'local') {
    // An empty folder is invisible to the listing the service checks, so the local store's own refusal answers.
    it('refuses an upload onto an empty folder of the local store, which stays', async () => {
      if (s.config.storage.kind !== 'local') throw new Error('expected the local store');
      const rows: Array<{ content_prefix: string }> = await s.app.get(DataSource).query('SELECT content_prefix FROM course_version WHERE course_id = ?', ['clash']);
      const folder = join(s.config.storage.dir, ...`${rows[0].content_prefix}empty`.split('/'));
      mkdirSync(folder);
      expect(await upload('asset/upload', 'empty')).toEqual({ status: 400, body: { message: "destination 'empty' is a folder of the course" } });
      expect(statSync(folder).isDirectory()).toBe(true);
      expect(readdirSync(join(s.config.storage.dir, '.lcds-tmp'))).toEqual([]);
    });
  }
});

/** The second line of defence: the local store's file-system errors for these clashes are typed, not raw EISDIR/EEXIST/ENOTDIR. */
describe('local content store: a key onto a folder or beneath a file', () => {
  let root: string;
  let store: LocalContentStore;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'lcds-clash-'));
    store = new LocalContentStore(root);
    await store.onModuleInit();
    await store.put('c/file.txt', Buffer.from('file'));
    await store.put('c/folder/inner.txt', Buffer.from('inner'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each([
    ['onto a folder', 'c/folder', 'folder'],
    ['just beneath a file (EEXIST)', 'c/file.txt/x', 'beneath-file'],
    ['deeper beneath a file (ENOTDIR)', 'c/file.txt/x/y', 'beneath-file'],
  ])('%s: put and putFile throw ContentKeyConflictError and change nothing', async (_name, key, clash) => {
    await expect(store.put(key, Buffer.from('new'))).rejects.toMatchObject({ constructor: ContentKeyConflictError, key, clash });
    const upload = join(root, 'upload.tmp');
    writeFileSync(upload, 'new');
    await expect(store.putFile(key, upload)).rejects.toMatchObject({ constructor: ContentKeyConflictError, key, clash });
    expect(existsSync(upload)).toBe(false);
    expect((await store.get('c/file.txt'))?.size).toBe(4);
    expect((await store.get('c/folder/inner.txt'))?.size).toBe(5);
    expect(readdirSync(join(root, '.lcds-tmp'))).toEqual([]);
  });
});
