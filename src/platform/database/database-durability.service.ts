import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';

/**
 * Whether a transaction the service acknowledged (a runtime commit, a stored statement) survives a power cut. SQLite:
 * the `synchronous` pragma LCDS set (FULL unless LCDS_SQLITE_SYNCHRONOUS=NORMAL). MySQL/MariaDB: the server's
 * innodb_flush_log_at_trx_commit, which LCDS cannot set; anything but 1 is logged at start as a warning.
 */
@Injectable()
export class DatabaseDurabilityService implements OnApplicationBootstrap {
  private readonly logger = new Logger(DatabaseDurabilityService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const problem = await this.check().catch(() => null);
    if (problem) this.logger.warn({ msg: 'acknowledged commits may be lost on a power cut', problem });
  }

  /** What makes acknowledged transactions less than durable, or null when they are. */
  async check(): Promise<string | null> {
    if (this.dataSource.options.type === 'mysql') {
      const rows = await this.dataSource.query<Array<{ flush: unknown }>>('SELECT @@innodb_flush_log_at_trx_commit AS flush');
      const flush = Number(rows[0]?.flush);
      return flush === 1
        ? null
        : `innodb_flush_log_at_trx_commit is ${String(rows[0]?.flush)} on the database server: a crash or power cut can lose up to a second of acknowledged commits; set it to 1 (the default) for durable commits`;
    }
    const rows = await this.dataSource.query<Array<{ synchronous: number }>>('PRAGMA synchronous');
    // 2 = FULL, 3 = EXTRA; 1 = NORMAL (in WAL mode the last transactions may be lost on a power cut).
    return Number(rows[0]?.synchronous) >= 2 ? null : `SQLite runs with synchronous=${this.config.database.sqliteSynchronous}: a power cut can lose the last acknowledged commits (LCDS_SQLITE_SYNCHRONOUS=FULL keeps them)`;
  }
}
