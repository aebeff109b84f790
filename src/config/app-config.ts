import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { isAbsolute, join, resolve } from 'node:path';

export type LcdsRole = 'api' | 'worker' | 'all';
export type DatabaseKind = 'sqlite' | 'mysql';
export type LogFormat = 'json' | 'pretty';
export type StorageKind = 'local' | 's3';

/** Where course content lives: a directory (local disk or a shared volume) or an S3-compatible bucket. */
export type StorageConfig =
  | { kind: 'local'; dir: string }
  | {
      kind: 's3';
      bucket: string;
      region: string;
      /** null = AWS itself; otherwise e.g. http://minio:9000 */
      endpoint: string | null;
      forcePathStyle: boolean;
      /** null = the AWS default credential chain (instance profile, AWS_* variables, …) */
      credentials: { accessKeyId: string; secretAccessKey: string } | null;
      /** '' or a key prefix ending in '/', e.g. 'lcds/' */
      prefix: string;
    };

export interface AppConfig {
  env: string;
  role: LcdsRole;
  host: string;
  port: number;
  publicUrl: string;
  dataDir: string;
  /**
   * sqliteSynchronous: SQLite's `synchronous` (FULL: an acknowledged transaction survives a power cut; NORMAL: faster,
   * may lose the last ones), LCDS_SQLITE_SYNCHRONOUS.
   */
  database: { kind: DatabaseKind; url: string; sqlitePath: string; runMigrations: boolean; poolSize: number; sqliteSynchronous: 'FULL' | 'NORMAL' };
  redis: { url: string; prefix: string } | null;
  storage: StorageConfig;
  imports: { maxPackageBytes: number; maxExtractedBytes: number };
  outbound: { allowPrivateNetworks: boolean };
  masterKey: Buffer;
  masterKeySource: 'environment' | 'generated-file' | 'file';
  /**
   * Earlier master keys (LCDS_PREVIOUS_MASTER_KEYS), newest first: secrets sealed and tokens signed with them are
   * still accepted while `lcds secrets reseal` moves the stored secrets to the current key. Nothing new uses them.
   */
  previousMasterKeys: Buffer[];
  log: { level: string; format: LogFormat };
  http: { jsonBodyLimit: number; trustProxy: boolean; shutdownTimeoutMs: number; keepAliveTimeoutMs: number };
  /** METRICS_TOKEN: when set, GET /metrics needs `Authorization: Bearer <token>`. */
  metricsToken: string | null;
  /**
   * Requests per minute (0: no limit). `api`: per application (LCDS_RATE_LIMIT); `apiCredential`: per secret key or
   * token (LCDS_RATE_LIMIT_CREDENTIAL, default the same); `lrs`: LRS requests per application (LCDS_RATE_LIMIT_LRS);
   * `player`: runtime commits per application (LCDS_RATE_LIMIT_PLAYER). Shared across nodes through Redis.
   */
  rateLimits: { api: number; apiCredential: number; lrs: number; player: number };
  auth: { cacheTtlMs: number; maxTokenLifetimeSeconds: number };
  jobs: { concurrency: number; lockMs: number; maxAttempts: number; postbackBackoffMs: number };
  /** Statement pipes: how long a caught-up pipe waits before it reads its source again; first retry delay after a failure. */
  xapiPipes: { intervalMs: number; backoffMs: number };
  /**
   * The LRS: the X-Experience-API-Version it answers to a request that sends none (such a request is refused with a
   * 400 except on `about`). xAPI 2.0 (IEEE 9274.1.1, Communication 3.3) has an LRS answer 2.0.0 on every response and
   * keeps 1.0.x behaviour for requests that ask for 1.0.x; `1.0.3` is what ADL's 1.0.3 conformance suite expects.
   */
  lrs: { unversionedAnswer: '2.0.0' | '1.0.3' };
  /**
   * Outgoing e-mail (private invitations). `smtpUrl` null: messages are written as .eml files under `outboxDir`.
   * `emailBackoffMs`: first retry delay after a temporary SMTP failure (doubling).
   */
  mail: { smtpUrl: string | null; from: string; outboxDir: string; emailBackoffMs: number };
  /** The AI plugin's partner (LCDS_AIPLUGIN_URL, its base URL): null when none is configured (docs/aiplugin.md). */
  aiPlugin: { url: string | null };
  bootstrap: boolean;
  /** LCDS_EXTENSIONS: module specifiers (npm package names or absolute paths) of the extensions to load, in order. */
  extensions: string[];
  version: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Reads the environment once into one typed object. Nothing else in the code base reads process.env,
 * so every setting is validated here at boot with a message that names the variable and the rule.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}=${raw} must be an integer from ${min} to ${max}`);
      return fallback;
    }
    return Number(raw);
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    problems.push(`${name}=${raw} must be true or false`);
    return fallback;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name}=${raw} must be one of ${allowed.join(', ')}`);
      return fallback;
    }
    return raw as T;
  };

  const nodeEnv = read('NODE_ENV') ?? 'development';
  const port = int('PORT', 3000, 0, 65535);
  const host = read('HOST') ?? '0.0.0.0';
  const role = oneOf<LcdsRole>('LCDS_ROLE', ['api', 'worker', 'all'], 'all');
  const dataDir = resolve(read('DATA_DIR') ?? './data');

  let publicUrl = read('PUBLIC_URL') ?? `http://localhost:${port}`;
  try {
    const parsed = new URL(publicUrl);
    if (!['http:', 'https:'].includes(parsed.protocol)) throw new Error('protocol');
    publicUrl = publicUrl.replace(/\/+$/, '');
  } catch {
    problems.push(`PUBLIC_URL=${publicUrl} must be an absolute http(s) URL such as https://lcds.example.com`);
  }

  const databaseUrl = read('DATABASE_URL');
  let database: AppConfig['database'] = {
    kind: 'sqlite',
    url: '',
    sqlitePath: join(dataDir, 'lcds.sqlite'),
    runMigrations: bool('LCDS_RUN_MIGRATIONS', true),
    poolSize: int('DATABASE_POOL_SIZE', 10, 1, 500),
    sqliteSynchronous: 'FULL',
  };
  const synchronous = (read('LCDS_SQLITE_SYNCHRONOUS') ?? 'FULL').toUpperCase();
  if (synchronous === 'FULL' || synchronous === 'NORMAL') database.sqliteSynchronous = synchronous;
  else problems.push(`LCDS_SQLITE_SYNCHRONOUS=${synchronous} must be FULL (the default: acknowledged commits survive a power cut) or NORMAL`);
  if (databaseUrl !== undefined) {
    if (/^(mysql|mariadb):\/\//i.test(databaseUrl)) {
      try {
        const u = new URL(databaseUrl);
        if (u.pathname.replace(/^\//, '') === '') throw new Error('no database');
        database = { ...database, kind: 'mysql', url: databaseUrl.replace(/^mariadb:/i, 'mysql:') };
      } catch {
        problems.push('DATABASE_URL must look like mysql://user:password@host:3306/database (the database name is required)');
      }
    } else if (/^sqlite:/i.test(databaseUrl)) {
      const path = databaseUrl.replace(/^sqlite:(\/\/)?/i, '');
      database = { ...database, kind: 'sqlite', sqlitePath: isAbsolute(path) ? path : resolve(path) };
    } else {
      problems.push('DATABASE_URL must start with mysql://, mariadb:// or sqlite:');
    }
  }

  const redisUrl = read('REDIS_URL');
  let redis: AppConfig['redis'] = null;
  if (redisUrl !== undefined) {
    if (/^rediss?:\/\//i.test(redisUrl)) redis = { url: redisUrl, prefix: read('REDIS_PREFIX') ?? 'lcds' };
    else problems.push(`REDIS_URL=${redisUrl} must start with redis:// or rediss://`);
  }
  if (role !== 'all' && redis === null) {
    problems.push(`LCDS_ROLE=${role} needs REDIS_URL: separate API and worker processes share their jobs through Redis`);
  }
  if (role !== 'all' && database.kind === 'sqlite') {
    problems.push(`LCDS_ROLE=${role} needs DATABASE_URL=mysql://…: the embedded SQLite file cannot be shared between processes`);
  }

  const storage = readStorage(read, bool, oneOf, dataDir, problems);

  let masterKey: Buffer = Buffer.alloc(0);
  let masterKeySource: AppConfig['masterKeySource'] = 'environment';
  const keyRaw = read('LCDS_MASTER_KEY');
  if (keyRaw !== undefined) {
    masterKey = decodeKey(keyRaw);
    if (masterKey.length < 32) {
      problems.push('LCDS_MASTER_KEY must hold at least 32 bytes, as 64 hex digits or base64 (generate one with: openssl rand -hex 32)');
    }
  } else if (database.kind === 'mysql') {
    problems.push(
      'LCDS_MASTER_KEY is required with DATABASE_URL=mysql://…: every node must encrypt secrets and sign tokens with the same key (generate one with: openssl rand -hex 32)',
    );
  } else if (problems.length === 0) {
    const keyFile = join(dataDir, 'master.key');
    if (existsSync(keyFile)) {
      masterKey = decodeKey(readFileSync(keyFile, 'utf8').trim());
      masterKeySource = 'file';
    } else {
      mkdirSync(dataDir, { recursive: true });
      masterKey = randomBytes(32);
      writeFileSync(keyFile, masterKey.toString('hex') + '\n', { mode: 0o600 });
      masterKeySource = 'generated-file';
    }
  }

  const previousMasterKeys: Buffer[] = [];
  for (const [i, raw] of (read('LCDS_PREVIOUS_MASTER_KEYS') ?? '').split(/[\s,]+/).filter((k) => k !== '').entries()) {
    const key = decodeKey(raw);
    if (key.length < 32) problems.push(`LCDS_PREVIOUS_MASTER_KEYS: key ${i + 1} must hold at least 32 bytes, as 64 hex digits or base64`);
    else if (!key.equals(masterKey)) previousMasterKeys.push(key);
  }

  const config: AppConfig = {
    env: nodeEnv,
    role,
    host,
    port,
    publicUrl,
    dataDir,
    database,
    redis,
    storage,
    imports: {
      maxPackageBytes: int('LCDS_MAX_PACKAGE_BYTES', 4 * 1024 ** 3, 1024, 64 * 1024 ** 3),
      maxExtractedBytes: int('LCDS_MAX_EXTRACTED_BYTES', 8 * 1024 ** 3, 1024, 256 * 1024 ** 3),
    },
    outbound: { allowPrivateNetworks: bool('LCDS_OUTBOUND_ALLOW_PRIVATE', false) },
    masterKey,
    masterKeySource,
    previousMasterKeys,
    metricsToken: read('METRICS_TOKEN') || null,
    rateLimits: rateLimits(int),
    log: {
      level: oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
      format: oneOf<LogFormat>('LOG_FORMAT', ['json', 'pretty'], nodeEnv === 'production' ? 'json' : 'pretty'),
    },
    http: {
      jsonBodyLimit: int('LCDS_JSON_BODY_LIMIT', 1024 * 1024, 1024, 1024 * 1024 * 1024),
      trustProxy: bool('LCDS_TRUST_PROXY', false),
      shutdownTimeoutMs: int('LCDS_SHUTDOWN_TIMEOUT_MS', 25_000, 0, 600_000),
      // Longer than a load balancer's idle timeout (60 s on the common ones): the node, not the balancer, must be
      // the one that never closes a connection a request is about to use.
      keepAliveTimeoutMs: int('LCDS_KEEP_ALIVE_TIMEOUT_MS', 65_000, 1000, 600_000),
    },
    auth: {
      cacheTtlMs: int('LCDS_AUTH_CACHE_TTL_MS', 60_000, 0, 3_600_000),
      maxTokenLifetimeSeconds: int('LCDS_MAX_TOKEN_LIFETIME_SECONDS', 365 * 24 * 3600, 60, 10 * 365 * 24 * 3600),
    },
    jobs: {
      concurrency: int('LCDS_JOB_CONCURRENCY', 4, 1, 256),
      lockMs: int('LCDS_JOB_LOCK_MS', 30_000, 500, 3_600_000),
      maxAttempts: int('LCDS_JOB_MAX_ATTEMPTS', 5, 1, 100),
      /** First retry delay of registration postbacks (doubling, capped at an hour); lowered only by tests. */
      postbackBackoffMs: int('LCDS_POSTBACK_BACKOFF_MS', 30_000, 10, 3_600_000),
    },
    lrs: { unversionedAnswer: oneOf('LCDS_LRS_UNVERSIONED_ANSWER', ['2.0.0', '1.0.3'] as const, '2.0.0') },
    xapiPipes: {
      intervalMs: int('LCDS_XAPI_PIPE_INTERVAL_MS', 60_000, 100, 24 * 3600 * 1000),
      backoffMs: int('LCDS_XAPI_PIPE_BACKOFF_MS', 30_000, 10, 3_600_000),
    },
    mail: readMail(read, int, dataDir, publicUrl, problems),
    aiPlugin: { url: readHttpUrl(read('LCDS_AIPLUGIN_URL'), 'LCDS_AIPLUGIN_URL', problems) },
    bootstrap: bool('LCDS_BOOTSTRAP', true),
    extensions: readExtensions(read('LCDS_EXTENSIONS'), problems),
    version: packageVersion(),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** An optional http(s) base URL, without its trailing slash. */
function readHttpUrl(value: string | undefined, name: string, problems: string[]): string | null {
  if (value === undefined || value === '') return null;
  try {
    const u = new URL(value);
    if (u.protocol === 'http:' || u.protocol === 'https:') return value.replace(/\/+$/, '');
  } catch {
    // reported below
  }
  problems.push(`${name} must be an http:// or https:// URL`);
  return null;
}

/** SMTP_URL (smtp:// or smtps://, with optional user:pass@), MAIL_FROM (an address, or `Name <address>`). */
function readMail(
  read: (name: string) => string | undefined,
  int: (name: string, fallback: number, min: number, max: number) => number,
  dataDir: string,
  publicUrl: string,
  problems: string[],
): AppConfig['mail'] {
  const smtpUrl = read('SMTP_URL') ?? null;
  if (smtpUrl !== null) {
    let ok = false;
    try {
      const u = new URL(smtpUrl);
      ok = (u.protocol === 'smtp:' || u.protocol === 'smtps:') && u.hostname !== '';
    } catch {
      ok = false;
    }
    if (!ok) problems.push('SMTP_URL must be an smtp:// or smtps:// URL such as smtp://user:pass@mail.example.com:587');
  }
  let host = 'localhost';
  try {
    host = new URL(publicUrl).hostname || host;
  } catch {
    // PUBLIC_URL's own problem is reported where it is read.
  }
  const from = read('MAIL_FROM') ?? `LCDS <no-reply@${host.includes('.') ? host : `${host}.invalid`}>`;
  if (!/^(?:[^<>]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(from)) problems.push(`MAIL_FROM=${from} must be an e-mail address, or a name and <address>`);
  return { smtpUrl, from, outboxDir: join(dataDir, 'outbox'), emailBackoffMs: int('LCDS_EMAIL_BACKOFF_MS', 30_000, 10, 3_600_000) };
}

/** An npm package name (scoped or not), optionally with a subpath: what `require` finds in node_modules. */
const PACKAGE_SPECIFIER = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w.-]+)*$/i;

function readExtensions(raw: string | undefined, problems: string[]): string[] {
  if (raw === undefined) return [];
  const specifiers = raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  for (const s of specifiers) {
    if (!isAbsolute(s) && !PACKAGE_SPECIFIER.test(s)) {
      problems.push(`LCDS_EXTENSIONS: "${s}" must be an npm package name (my-extension, @team/lcds-extension) or an absolute path`);
    }
  }
  if (new Set(specifiers).size !== specifiers.length) problems.push('LCDS_EXTENSIONS names an extension twice');
  return specifiers;
}

function readStorage(
  read: (name: string) => string | undefined,
  bool: (name: string, fallback: boolean) => boolean,
  oneOf: <T extends string>(name: string, allowed: readonly T[], fallback: T) => T,
  dataDir: string,
  problems: string[],
): StorageConfig {
  const kind = oneOf<StorageKind>('LCDS_STORAGE', ['local', 's3'], 'local');
  const bucket = read('S3_BUCKET');
  if (kind === 'local') {
    if (bucket !== undefined && read('LCDS_STORAGE') === undefined) {
      problems.push(
        `S3_BUCKET=${bucket} is set but LCDS_STORAGE is not: set LCDS_STORAGE=s3 to keep course content in the bucket, or LCDS_STORAGE=local (and remove S3_BUCKET) to keep it on disk`,
      );
    }
    return { kind, dir: resolve(read('LCDS_STORAGE_DIR') ?? join(dataDir, 'content')) };
  }

  if (bucket === undefined) {
    problems.push('S3_BUCKET is required with LCDS_STORAGE=s3: the name of an existing bucket that will hold course content');
  } else if (!/^[A-Za-z0-9][A-Za-z0-9._-]{1,253}[A-Za-z0-9]$/.test(bucket)) {
    problems.push(`S3_BUCKET=${bucket} is not a valid bucket name (3 to 255 letters, digits, dots, hyphens or underscores)`);
  }
  let endpoint = read('S3_ENDPOINT') ?? null;
  if (endpoint !== null) {
    try {
      const parsed = new URL(endpoint);
      if (!['http:', 'https:'].includes(parsed.protocol)) throw new Error('protocol');
      endpoint = endpoint.replace(/\/+$/, '');
    } catch {
      problems.push(`S3_ENDPOINT=${endpoint} must be an absolute http(s) URL such as http://minio:9000 (leave it unset for AWS S3)`);
    }
  }
  const region = read('S3_REGION') ?? 'us-east-1';
  if (!/^[a-z0-9-]+$/i.test(region)) problems.push(`S3_REGION=${region} must look like us-east-1`);
  const accessKeyId = read('S3_ACCESS_KEY_ID');
  const secretAccessKey = read('S3_SECRET_ACCESS_KEY');
  let credentials: { accessKeyId: string; secretAccessKey: string } | null = null;
  if (accessKeyId !== undefined && secretAccessKey !== undefined) credentials = { accessKeyId, secretAccessKey };
  else if (accessKeyId !== undefined || secretAccessKey !== undefined) {
    problems.push(
      'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (leave both unset to use the AWS default credentials: AWS_* variables, instance profile, …)',
    );
  }
  const rawPrefix = (read('S3_PREFIX') ?? '').replace(/^\/+|\/+$/g, '');
  const prefixSegments = rawPrefix === '' ? [] : rawPrefix.split('/');
  // eslint-disable-next-line no-control-regex
  if (prefixSegments.some((s) => s === '' || s === '.' || s === '..' || /[\\\u0000-\u001f\u007f]/.test(s))) {
    problems.push(`S3_PREFIX=${rawPrefix} must be a plain key prefix such as lcds/prod (no empty, . or .. segments, backslashes or control characters)`);
  }
  return {
    kind,
    bucket: bucket ?? '',
    region,
    endpoint,
    forcePathStyle: bool('S3_FORCE_PATH_STYLE', endpoint !== null),
    credentials,
    prefix: rawPrefix === '' ? '' : `${rawPrefix}/`,
  };
}

function decodeKey(raw: string): Buffer {
  if (/^[0-9a-f]+$/i.test(raw) && raw.length % 2 === 0) return Buffer.from(raw, 'hex');
  return Buffer.from(raw, 'base64');
}

function packageVersion(): string {
  for (const candidate of [join(__dirname, '..', '..', 'package.json'), join(__dirname, '..', 'package.json')]) {
    if (existsSync(candidate)) return (JSON.parse(readFileSync(candidate, 'utf8')) as { version: string }).version;
  }
  return '0.0.0';
}

function rateLimits(int: (name: string, fallback: number, min: number, max: number) => number): AppConfig['rateLimits'] {
  const api = int('LCDS_RATE_LIMIT', 0, 0, 10_000_000);
  return {
    api,
    apiCredential: int('LCDS_RATE_LIMIT_CREDENTIAL', api, 0, 10_000_000),
    lrs: int('LCDS_RATE_LIMIT_LRS', 0, 0, 10_000_000),
    player: int('LCDS_RATE_LIMIT_PLAYER', 0, 0, 10_000_000),
  };
}
