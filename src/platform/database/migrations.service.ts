import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { runMigrationsLocked } from './run-migrations';

/** Runs pending migrations at start unless LCDS_RUN_MIGRATIONS=false (then `lcds migrate` does it). */
@Injectable()
export class MigrationsService implements OnModuleInit {
  private readonly logger = new Logger(MigrationsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.config.database.runMigrations) return;
    const applied = await runMigrationsLocked(this.dataSource);
    if (applied.length > 0) this.logger.log({ msg: 'migrations applied', migrations: applied.map((m) => m.name) });
  }
}
