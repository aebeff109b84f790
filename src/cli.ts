#!/usr/bin/env node
import 'reflect-metadata';
import { DynamicModule, INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { SingleBar, Presets } from 'cli-progress';
import { Command } from 'commander';
import { DataSource } from 'typeorm';
import { ConfigError, loadConfig, type AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { AuthModule } from './platform/auth/auth.module';
import { CryptoModule } from './platform/crypto/crypto.module';
import { DatabaseModule } from './platform/database/database.module';
import { dataSourceOptions } from './platform/database/data-source-options';
import { runMigrationsLocked } from './platform/database/run-migrations';
import { HttpPlatformModule } from './platform/http/http-platform.module';
import { RedisModule } from './platform/redis/redis.module';
import { ApplicationsModule } from './modules/applications/applications.module';
import { ApplicationsService } from './modules/applications/applications.service';
import { CredentialsService } from './modules/applications/credentials.service';
import { ApplicationAdminsModule } from './modules/learners/application-admins.module';
import { ApplicationAdminsService } from './modules/learners/application-admins.service';
import { RegistrationSummaries } from './modules/registrations/registration-summaries';
import { postbackSigningKey } from './modules/registrations/registration-postback-signing';
import { KeyRing } from './platform/crypto/keyring';
import { AuditModule } from './platform/audit/audit.module';
import { AuditLog, cliActor, type AuditEntryView } from './platform/audit/audit-log.service';
import { SecretResealer } from './platform/crypto/secret-reseal';
import { createBackup, restoreBackup, type BackupProgress } from './platform/backup/backup';
import { createContentStore } from './platform/storage/storage.module';
import { join } from 'node:path';

/** What the admin commands need: the same configuration and services as the server, without HTTP. */
@Module({})
class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [ConfigModule.forRoot(config), CryptoModule, DatabaseModule, RedisModule, AuthModule, HttpPlatformModule, AuditModule, ApplicationsModule, ApplicationAdminsModule],
    };
  }
}

function config(overrides: Partial<AppConfig['database']> = {}): AppConfig {
  try {
    const loaded = loadConfig();
    return { ...loaded, database: { ...loaded.database, ...overrides } };
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

async function withContext<T>(cfg: AppConfig, work: (ctx: INestApplicationContext) => Promise<T>): Promise<T> {
  const ctx = await NestFactory.createApplicationContext(CliModule.forRoot(cfg), { logger: ['error'] });
  try {
    return await work(ctx);
  } finally {
    await ctx.close();
  }
}

function table(rows: Array<Record<string, string | boolean>>): string {
  if (rows.length === 0) return '(none)\n';
  const keys = Object.keys(rows[0]);
  const widths = keys.map((k) => Math.max(k.length, ...rows.map((r) => String(r[k]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(keys), line(widths.map((w) => '-'.repeat(w))), ...rows.map((r) => line(keys.map((k) => String(r[k]))))].join('\n') + '\n';
}

const program = new Command();
program.name('lcds').description('LCDS administration. Reads the same environment as the server (DATABASE_URL, REDIS_URL, DATA_DIR, LCDS_MASTER_KEY, …).');

program
  .command('migrate')
  .description('apply pending database migrations')
  .action(async () => {
    const cfg = config({ runMigrations: false });
    const migrations = dataSourceOptions(cfg).migrations as unknown[];
    let done = 0;
    const bar = new SingleBar({ format: 'migrating [{bar}] {value}/{total} {name}', hideCursor: true, noTTYOutput: true, notTTYSchedule: 1000 }, Presets.shades_classic);
    const ds = new DataSource({
      ...dataSourceOptions(cfg),
      logging: ['migration'],
      logger: {
        // TypeORM reports each finished migration through logSchemaBuild.
        logSchemaBuild: (message: string) => {
          const m = /Migration (\S+) has been +executed successfully/.exec(message);
          if (m) bar.update(++done, { name: m[1] });
        },
        logMigration: () => undefined,
        logQuery: () => undefined,
        logQueryError: () => undefined,
        logQuerySlow: () => undefined,
        log: () => undefined,
      },
    });
    await ds.initialize();
    try {
      const pending = await ds.showMigrations();
      if (!pending) {
        process.stdout.write(`Database is up to date (${migrations.length} migration(s)).\n`);
        return;
      }
      bar.start(migrations.length, 0, { name: '' });
      done = (await runMigrationsLocked(ds)).length;
      bar.update(migrations.length, { name: 'done' });
      bar.stop();
      process.stdout.write(`Applied ${done} migration(s).\n`);
    } finally {
      await ds.destroy();
    }
  });

const apps = program.command('apps').description('applications');
apps
  .command('create')
  .description('create an application with a first secret key')
  .requiredOption('--name <name>', 'application name')
  .option('--management', 'a management application (Application Management API)', false)
  .option('--json', 'print {"appId", "secretKey"} as JSON', false)
  .action(async (opts: { name: string; management: boolean; json: boolean }) => {
    await withContext(config(), async (ctx) => {
      const { app, credential } = await ctx.get(ApplicationsService).create({ name: opts.name, isManagement: opts.management });
      await audit(ctx, app.id, 'CreateApplication', { credentialId: credential.id }, ['name', ...(opts.management ? ['management'] : [])]);
      if (opts.json) process.stdout.write(JSON.stringify({ appId: app.id, secretKey: credential.credential }) + '\n');
      else process.stdout.write(`Created ${opts.management ? 'management ' : ''}application ${app.id} (${app.name})\nSecret key: ${credential.credential}\n`);
    });
  });
apps
  .command('list')
  .description('list applications')
  .option('--json', 'print JSON', false)
  .action(async (opts: { json: boolean }) => {
    await withContext(config(), async (ctx) => {
      const rows = await ctx.get(ApplicationsService).listEntities();
      const view = rows.map((a) => ({ appId: a.id, name: a.name, management: a.isManagement, created: a.createdAt.toISOString() }));
      process.stdout.write(opts.json ? JSON.stringify(view) + '\n' : table(view));
    });
  });

apps
  .command('postback-key')
  .description("print the key (hex) that signs an application's registration postbacks (X-LCDS-Signature)")
  .requiredOption('--app <id>', 'application id')
  .action(async (opts: { app: string }) => {
    await withContext(config(), async (ctx) => {
      const known = (await ctx.get(ApplicationsService).listEntities()).some((a) => a.id === opts.app);
      if (!known) throw new Error(`no application ${opts.app}`);
      process.stdout.write(postbackSigningKey(ctx.get(KeyRing), opts.app).toString('hex') + '\n');
    });
  });

/** Records a change made with the CLI in the audit log (actor `cli:<user>`). */
function audit(ctx: INestApplicationContext, appId: string, action: string, targets: Record<string, string>, fields: string[] = []): Promise<void> {
  return ctx.get(AuditLog).record({ appId, action, actor: cliActor(), targets, fields });
}

async function requireApp(ctx: INestApplicationContext, appId: string): Promise<void> {
  const known = (await ctx.get(ApplicationsService).listEntities()).some((a) => a.id === appId);
  if (!known) throw new Error(`no application ${appId}`);
}

const admins = apps.command('admins').description('administrators of an application: the addresses DeleteAllLearnerData accepts as userEmail');
admins
  .command('add')
  .description('make an address an administrator of an application')
  .requiredOption('--app <id>', 'application id')
  .requiredOption('--email <address>', 'e-mail address')
  .action(async (opts: { app: string; email: string }) => {
    await withContext(config(), async (ctx) => {
      await requireApp(ctx, opts.app);
      await ctx.get(ApplicationAdminsService).add(opts.app, opts.email);
      await audit(ctx, opts.app, 'LcdsAddApplicationAdmin', { email: opts.email.trim() }, ['email']);
      process.stdout.write(`${opts.email.trim()} administers application ${opts.app}\n`);
    });
  });
admins
  .command('remove')
  .description('remove an administrator of an application')
  .requiredOption('--app <id>', 'application id')
  .requiredOption('--email <address>', 'e-mail address')
  .action(async (opts: { app: string; email: string }) => {
    await withContext(config(), async (ctx) => {
      await requireApp(ctx, opts.app);
      const removed = await ctx.get(ApplicationAdminsService).remove(opts.app, opts.email);
      if (!removed) throw new Error(`${opts.email.trim()} is not an administrator of application ${opts.app}`);
      await audit(ctx, opts.app, 'LcdsRemoveApplicationAdmin', { email: opts.email.trim() });
      process.stdout.write(`${opts.email.trim()} no longer administers application ${opts.app}\n`);
    });
  });
admins
  .command('list')
  .description('list the administrators of an application')
  .requiredOption('--app <id>', 'application id')
  .option('--json', 'print JSON', false)
  .action(async (opts: { app: string; json: boolean }) => {
    await withContext(config(), async (ctx) => {
      await requireApp(ctx, opts.app);
      const rows = await ctx.get(ApplicationAdminsService).list(opts.app);
      process.stdout.write(opts.json ? JSON.stringify(rows) + '\n' : table(rows));
    });
  });

apps
  .command('account')
  .description("set an application's registration limit (per calendar month, UTC) and contact details; prints the account")
  .requiredOption('--app <id>', 'application id')
  .option('--reg-limit <n>', "registrations the application may create per month, or 'none'")
  .option('--strict', 'past the limit, CreateRegistration answers 403')
  .option('--no-strict', 'the limit is only reported (GetAccountInfo)')
  .option('--email <address>', "contact e-mail address ('' clears it)")
  .option('--company <name>', "company ('' clears it)")
  .option('--json', 'print JSON', false)
  .action(async (opts: { app: string; regLimit?: string; strict?: boolean; email?: string; company?: string; json: boolean }) => {
    let regLimit: number | null | undefined;
    if (opts.regLimit !== undefined) {
      regLimit = opts.regLimit === 'none' ? null : Number(opts.regLimit);
      if (regLimit !== null && !(/^\d+$/.test(opts.regLimit) && Number.isSafeInteger(regLimit))) throw new Error(`--reg-limit must be a whole number or 'none', not '${opts.regLimit}'`);
    }
    await withContext(config(), async (ctx) => {
      const service = ctx.get(ApplicationsService);
      const clear = (v: string | undefined) => (v === undefined ? undefined : v.trim() === '' ? null : v.trim());
      const changes = { regLimit, strictLimit: opts.strict, email: clear(opts.email), company: clear(opts.company) };
      await service.updateAccount(opts.app, changes);
      await audit(ctx, opts.app, 'LcdsUpdateApplicationAccount', {}, Object.keys(changes).filter((k) => changes[k as keyof typeof changes] !== undefined));
      const a = await service.account(opts.app);
      const view = { appId: a.id, regLimit: a.regLimit === null ? 'none' : String(a.regLimit), strictLimit: a.strictLimit, email: a.contactEmail ?? '', company: a.contactCompany ?? '' };
      process.stdout.write(opts.json ? JSON.stringify({ ...view, regLimit: a.regLimit }) + '\n' : table([view]));
    });
  });

const reports = program.command('reports').description('the report viewer');
reports
  .command('rebuild')
  .description("recompute the report summaries from the registrations (all applications', or one's); safe to run at any time, also while LCDS runs")
  .option('--app <id>', 'only this application')
  .option('--json', 'print {"applications": [{"appId", "registrations", "seconds"}]} as JSON', false)
  .action(async (opts: { app?: string; json: boolean }) => {
    await withContext(config(), async (ctx) => {
      const summaries = new RegistrationSummaries(ctx.get(DataSource));
      if (opts.app) await requireApp(ctx, opts.app);
      const appIds = opts.app ? [opts.app] : await summaries.applications();
      const done: Array<{ appId: string; registrations: number; seconds: number }> = [];
      for (const appId of appIds) {
        const started = Date.now();
        let registrations = 0;
        let shown = false;
        const bar = new SingleBar(
          { format: `${appId} [{bar}] {value}/{total} registrations, {eta_formatted} left`, hideCursor: true, noTTYOutput: !opts.json, notTTYSchedule: 2000, stream: process.stderr },
          Presets.shades_classic,
        );
        await summaries.rebuild(appId, (n, total) => {
          if (!shown) bar.start(total, 0);
          shown = true;
          registrations = total;
          bar.update(n);
        });
        bar.stop();
        done.push({ appId, registrations, seconds: Math.round((Date.now() - started) / 100) / 10 });
      }
      if (opts.json) process.stdout.write(JSON.stringify({ applications: done }) + '\n');
      else process.stdout.write(done.length ? done.map((d) => `Rebuilt the report summaries of ${d.appId}: ${d.registrations} registration(s) in ${d.seconds} s.`).join('\n') + '\n' : 'No application has registrations.\n');
    });
  });

const credentials = program.command('credentials').description('secret keys of applications');
credentials
  .command('create')
  .description('create a new secret key for an application')
  .requiredOption('--app <id>', 'application id')
  .option('--name <name>', 'name of the key', 'Secret key')
  .option('--json', 'print {"appId", "credentialId", "secretKey"} as JSON', false)
  .action(async (opts: { app: string; name: string; json: boolean }) => {
    await withContext(config(), async (ctx) => {
      const c = await ctx.get(CredentialsService).create(opts.app, { name: opts.name });
      await audit(ctx, opts.app, 'CreateCredential', { credentialId: c.id }, ['name']);
      if (opts.json) process.stdout.write(JSON.stringify({ appId: opts.app, credentialId: c.id, secretKey: c.credential }) + '\n');
      else process.stdout.write(`Secret key ${c.id} for application ${opts.app}: ${c.credential}\n`);
    });
  });
credentials
  .command('list')
  .description('list the secret keys of an application')
  .requiredOption('--app <id>', 'application id')
  .option('--json', 'print JSON', false)
  .action(async (opts: { app: string; json: boolean }) => {
    await withContext(config(), async (ctx) => {
      const rows = await ctx.get(CredentialsService).list(opts.app);
      const view = rows.map((c) => ({ credentialId: c.id, name: c.name, status: c.status, secretKey: c.credential }));
      process.stdout.write(opts.json ? JSON.stringify(view) + '\n' : table(view));
    });
  });

program
  .command('audit')
  .description("an application's audit log, newest first: who (application, key or token id, address), what, when")
  .requiredOption('--app <id>', 'application id')
  .option('--since <time>', 'entries at or after this ISO 8601 time')
  .option('--action <name>', 'only this action (an operationId such as CreateCredential)')
  .option('--limit <n>', 'at most this many entries', '100')
  .option('--json', 'print JSON', false)
  .action(async (opts: { app: string; since?: string; action?: string; limit: string; json: boolean }) => {
    const limit = Number(opts.limit);
    if (!/^\d+$/.test(opts.limit) || limit < 1) throw new Error(`--limit must be a whole number above 0, not '${opts.limit}'`);
    const since = opts.since === undefined ? undefined : new Date(opts.since);
    if (since && Number.isNaN(since.getTime())) throw new Error(`--since must be an ISO 8601 time, not '${opts.since}'`);
    await withContext(config(), async (ctx) => {
      const log = ctx.get(AuditLog);
      const entries: AuditEntryView[] = [];
      let more: string | undefined;
      do {
        const page = await log.list(opts.app, { since: since?.toISOString(), action: opts.action, more });
        entries.push(...page.entries);
        more = page.more;
      } while (more && entries.length < limit);
      const shown = entries.slice(0, limit);
      if (opts.json) {
        process.stdout.write(JSON.stringify(shown) + '\n');
        return;
      }
      const view = shown.map((e) => ({
        when: e.occurredAt,
        action: e.action,
        who: e.actorKind === 'cli' ? 'cli' : `${e.actorAppId ?? ''} (${e.actorKind} ${e.actorCredentialId ?? ''})`,
        from: e.source ?? '',
        targets: Object.entries(e.targets)
          .map(([k, v]) => `${k}=${v}`)
          .join(' '),
        fields: e.fields.join(','),
      }));
      process.stdout.write(table(view));
    });
  });

const secrets = program.command('secrets').description('secrets stored sealed with the master key');
secrets
  .command('reseal')
  .description(
    'seal every stored secret with the current LCDS_MASTER_KEY (secrets sealed with a key of LCDS_PREVIOUS_MASTER_KEYS are re-sealed); safe while the service runs, and resumable: run it again after an interruption',
  )
  .option('--dry-run', 'only count: how many secrets a previous key sealed, and how many no key opens', false)
  .action(async (opts: { dryRun: boolean }) => {
    const cfg = config({ runMigrations: false });
    // Every entity of the build, so that every column marked @Sealed is found whatever module declares it.
    const ds = new DataSource({ ...dataSourceOptions(cfg, [join(__dirname, '**', '*.entity.{js,ts}')]), logging: false });
    await ds.initialize();
    try {
      const resealer = new SecretResealer(ds, new KeyRing(cfg));
      const total = await resealer.total();
      const bar = new SingleBar({ format: `${opts.dryRun ? 'checking' : 're-sealing'} [{bar}] {value}/{total} secrets`, hideCursor: true, noTTYOutput: true, notTTYSchedule: 1000 }, Presets.shades_classic);
      bar.start(total, 0);
      const counts = await resealer.run({ dryRun: opts.dryRun, progress: (c) => bar.update(Math.min(c.examined, total)) });
      bar.update(total);
      bar.stop();
      const verb = opts.dryRun ? 'sealed with a previous key' : 're-sealed with the current key';
      process.stdout.write(`${counts.examined} secret(s) examined, ${counts.resealed} ${verb}, ${counts.unreadable} that no configured key opens.\n`);
      if (counts.unreadable > 0) {
        process.stderr.write('Some secrets open with none of LCDS_MASTER_KEY and LCDS_PREVIOUS_MASTER_KEYS: add the key that sealed them to LCDS_PREVIOUS_MASTER_KEYS and run again.\n');
        process.exitCode = 1;
      } else if (opts.dryRun && counts.resealed > 0) {
        process.exitCode = 3;
      }
    } finally {
      await ds.destroy();
    }
  });

function objectsBar(label: string): { update: (p: BackupProgress) => void; stop: () => void } {
  const bar = new SingleBar({ format: `${label} [{bar}] {value}/{total} content objects`, hideCursor: true, noTTYOutput: true, notTTYSchedule: 1000 }, Presets.shades_classic);
  let started = false;
  return {
    update: (p) => {
      if (!started) bar.start(p.total, 0);
      started = true;
      bar.update(p.objects);
    },
    stop: () => started && bar.stop(),
  };
}

program
  .command('backup')
  .description(
    'write one file with the content store and, on the embedded stack, a consistent copy of the SQLite database (online: the service may run); on MySQL/MariaDB dump the database with its own tool (docs/operations.md)',
  )
  .requiredOption('--out <file>', 'the backup file to write (.tar.gz)')
  .action(async (opts: { out: string }) => {
    const cfg = config({ runMigrations: false });
    const bar = objectsBar('backing up');
    const manifest = await createBackup(cfg, createContentStore(cfg.storage), opts.out, bar.update).finally(bar.stop);
    process.stdout.write(
      `Wrote ${opts.out}: ${manifest.database === 'sqlite' ? 'the database and ' : ''}${manifest.objects} content object(s), ${manifest.bytes} bytes of content.\n` +
        (manifest.databaseNote ? `${manifest.databaseNote}\n` : '') +
        'The master key is not in it: keep LCDS_MASTER_KEY (or DATA_DIR/master.key) with your backups, apart from them.\n',
    );
  });

program
  .command('restore')
  .description('restore a backup made by `lcds backup` into this configuration (the same kind of stack); stop the service first')
  .requiredOption('--in <file>', 'the backup file')
  .option('--force', 'replace an existing SQLite database', false)
  .action(async (opts: { in: string; force: boolean }) => {
    const cfg = config({ runMigrations: false });
    const bar = objectsBar('restoring');
    const manifest = await restoreBackup(cfg, createContentStore(cfg.storage), opts.in, { force: opts.force, onProgress: bar.update }).finally(bar.stop);
    process.stdout.write(
      `Restored ${manifest.database === 'sqlite' ? 'the database and ' : ''}${manifest.objects} content object(s) from the backup of ${manifest.createdAt}.\n` +
        (manifest.databaseNote ? `${manifest.databaseNote}\n` : '') +
        'Start the service with the master key of the backed-up installation; `lcds migrate` brings an older backup up to date.\n',
    );
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`lcds: ${message}\n`);
  process.exit(1);
});
