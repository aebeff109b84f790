import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { createConnection } from 'mysql2/promise';

/**
 * A throw-away stack for one test file. Embedded (SQLite file in a temp dir, jobs in-process) by default;
 * MySQL/MariaDB + Redis when LCDS_TEST_DATABASE_URL (server URL without a database) and LCDS_TEST_REDIS_URL are set,
 * each test file on a database and a Redis key prefix of its own.
 */
export interface TestStack {
  kind: 'embedded' | 'production';
  env: Record<string, string>;
  dataDir: string;
  destroy(): Promise<void>;
}

export function isProductionStack(): boolean {
  return !!process.env.LCDS_TEST_DATABASE_URL;
}

export async function createTestStack(): Promise<TestStack> {
  const id = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'lcds-test-'));
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    LCDS_MASTER_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: process.env.LCDS_TEST_LOG_LEVEL ?? 'silent',
    LOG_FORMAT: 'json',
    LCDS_BOOTSTRAP: 'true',
  };
  const serverUrl = process.env.LCDS_TEST_DATABASE_URL;
  if (!serverUrl) {
    return {
      kind: 'embedded',
      env,
      dataDir,
      destroy: () => {
        rmSync(dataDir, { recursive: true, force: true });
        return Promise.resolve();
      },
    };
  }
  const database = `lcds_t_${id}`;
  const admin = await createConnection(serverUrl);
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  env.DATABASE_URL = url.toString();
  if (process.env.LCDS_TEST_REDIS_URL) {
    env.REDIS_URL = process.env.LCDS_TEST_REDIS_URL;
    env.REDIS_PREFIX = `lcdst:${id}`;
  }
  return {
    kind: 'production',
    env,
    dataDir,
    destroy: async () => {
      const conn = await createConnection(serverUrl);
      await conn.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await conn.end();
      if (env.REDIS_URL) await deleteRedisPrefix(env.REDIS_URL, env.REDIS_PREFIX);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
