import { join, resolve } from 'node:path';
import { ConfigError, loadConfig } from '../../../src/config/app-config';
import {
  assertValidKey,
  clampRange,
  InvalidContentKeyError,
  normalizePrefix,
  RangeNotSatisfiableError,
} from '../../../src/platform/storage/content-store';
import { formatBytes } from '../../../src/platform/storage/zip-extract';

const base = { DATA_DIR: '/srv/lcds-data', LCDS_MASTER_KEY: 'ab'.repeat(32) };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...base, ...env });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('storage configuration', () => {
  it('defaults to a local directory under DATA_DIR', () => {
    expect(loadConfig(base).storage).toEqual({ kind: 'local', dir: join('/srv/lcds-data', 'content') });
    expect(loadConfig({ ...base, LCDS_STORAGE: 'local', LCDS_STORAGE_DIR: 'rel/content' }).storage).toEqual({
      kind: 'local',
      dir: resolve('rel/content'),
    });
  });

  it('reads an S3-compatible bucket with path-style addressing by default when an endpoint is given', () => {
    const config = loadConfig({
      ...base,
      LCDS_STORAGE: 's3',
      S3_BUCKET: 'lcds-content',
      S3_ENDPOINT: 'http://minio:9000/',
      S3_ACCESS_KEY_ID: 'key',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_PREFIX: '/prod/lcds/',
    });
    expect(config.storage).toEqual({
      kind: 's3',
      bucket: 'lcds-content',
      region: 'us-east-1',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'key', secretAccessKey: 'secret' },
      prefix: 'prod/lcds/',
    });
  });

  it('uses AWS defaults (virtual-hosted style, default credential chain) without an endpoint', () => {
    const config = loadConfig({ ...base, LCDS_STORAGE: 's3', S3_BUCKET: 'lcds', S3_REGION: 'eu-west-3' });
    expect(config.storage).toEqual({
      kind: 's3',
      bucket: 'lcds',
      region: 'eu-west-3',
      endpoint: null,
      forcePathStyle: false,
      credentials: null,
      prefix: '',
    });
    expect(loadConfig({ ...base, LCDS_STORAGE: 's3', S3_BUCKET: 'lcds', S3_ENDPOINT: 'https://s3.example', S3_FORCE_PATH_STYLE: 'false' }).storage).toMatchObject({
      forcePathStyle: false,
    });
  });

  it('explains what is wrong', () => {
    expect(problems({ LCDS_STORAGE: 'gcs' })).toEqual(['LCDS_STORAGE=gcs must be one of local, s3']);
    expect(problems({ LCDS_STORAGE: 's3' })).toEqual([
      'S3_BUCKET is required with LCDS_STORAGE=s3: the name of an existing bucket that will hold course content',
    ]);
    expect(problems({ S3_BUCKET: 'forgot-the-kind' })[0]).toMatch(/S3_BUCKET=forgot-the-kind is set but LCDS_STORAGE is not: set LCDS_STORAGE=s3/);
    expect(problems({ LCDS_STORAGE: 's3', S3_BUCKET: 'bucket', S3_ENDPOINT: 'minio:9000' })[0]).toMatch(/S3_ENDPOINT=minio:9000 must be an absolute http\(s\) URL/);
    expect(problems({ LCDS_STORAGE: 's3', S3_BUCKET: 'bucket', S3_ACCESS_KEY_ID: 'k' })[0]).toMatch(
      /S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together/,
    );
    expect(problems({ LCDS_STORAGE: 's3', S3_BUCKET: 'b/c' })[0]).toMatch(/S3_BUCKET=b\/c is not a valid bucket name/);
    expect(problems({ LCDS_STORAGE: 's3', S3_BUCKET: 'bucket', S3_PREFIX: 'a/../b' })[0]).toMatch(/S3_PREFIX=a\/\.\.\/b must be a plain key prefix/);
    expect(problems({ LCDS_STORAGE: 's3', S3_BUCKET: 'bucket', S3_FORCE_PATH_STYLE: 'maybe' })).toEqual(['S3_FORCE_PATH_STYLE=maybe must be true or false']);
  });
});

describe('content keys', () => {
  it('accepts ordinary and Unicode keys', () => {
    for (const key of ['apps/a/courses/c/v1/index.html', 'a', 'apps/x/dossier é/fichier (1).html', 'a/.hidden', 'a/..b/c..']) {
      expect(assertValidKey(key)).toBe(key);
    }
  });

  it.each([
    ['', 'empty'],
    ['/a', 'absolute'],
    ['a/', 'empty path segment'],
    ['a//b', 'empty path segment'],
    ['a/../b', '".." path segment'],
    ['..', '".." path segment'],
    ['a/./b', '"." path segment'],
    ['a\\b', 'backslash'],
    ['a/b\u0000', 'control character'],
    ['a/b\n', 'control character'],
    ['a/\u007f', 'control character'],
    ['D:/x', 'drive letter'],
    [`a/${'é'.repeat(128)}`, 'longer than 255 bytes'],
    [`${'abcdefgh/'.repeat(114)}x`, 'longer than 1024 bytes'],
  ])('rejects %j (%s)', (key, reason) => {
    expect(() => assertValidKey(key)).toThrow(InvalidContentKeyError);
    expect(() => assertValidKey(key)).toThrow(reason);
  });

  it('normalises folder prefixes', () => {
    expect(normalizePrefix('a/b')).toBe('a/b/');
    expect(normalizePrefix('a/b/')).toBe('a/b/');
    expect(normalizePrefix('', true)).toBe('');
    expect(() => normalizePrefix('')).toThrow('whole store');
    expect(() => normalizePrefix('a//')).toThrow(InvalidContentKeyError);
    expect(() => normalizePrefix('../a')).toThrow(InvalidContentKeyError);
  });

  it('clamps byte ranges to the object', () => {
    expect(clampRange('k', { start: 0 }, 10)).toEqual({ start: 0, end: 9 });
    expect(clampRange('k', { start: 2, end: 100 }, 10)).toEqual({ start: 2, end: 9 });
    expect(() => clampRange('k', { start: 10 }, 10)).toThrow(RangeNotSatisfiableError);
    expect(() => clampRange('k', { start: 5, end: 4 }, 10)).toThrow(RangeError);
    expect(() => clampRange('k', { start: -1 }, 10)).toThrow(RangeError);
  });

  it('formats sizes for authors', () => {
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(5000)).toBe('4.9 KB');
    expect(formatBytes(200 * 1024 * 1024)).toBe('200 MB');
    expect(formatBytes(4 * 1024 ** 3)).toBe('4.0 GB');
  });
});
