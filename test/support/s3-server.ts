import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// s3rver ships no type declarations.
 
const S3rver = require('s3rver');

/** A real S3-compatible server (s3rver) on loopback, with one bucket, for tests of the S3 content store. */
export async function startS3Server(bucket = 'lcds-test'): Promise<{ endpoint: string; bucket: string; env: Record<string, string>; dir: string; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'lcds-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(dir, 'data'), configureBuckets: [{ name: bucket }] });
  const address = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    bucket,
    dir,
    env: {
      LCDS_STORAGE: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
    close: async () => {
      await (server as { close(): Promise<void> }).close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
