import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { dataSourceOptions } from './data-source-options';
import { serializeSqliteTransactions } from './sqlite-transactions';
import { SystemStateEntity } from './system-state.entity';
import { DatabaseDurabilityService } from './database-durability.service';
import { MigrationsService } from './migrations.service';
import { SqliteCheckpoints } from './sqlite-checkpoints.service';
import { SystemStateService } from './system-state.service';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config),
        autoLoadEntities: true,
        // MigrationsService runs them, under a lock, so that nodes starting together do not race.
        migrationsRun: false,
      }),
      // SQLite's one connection takes one transaction at a time (see serializeSqliteTransactions).
      dataSourceFactory: async (options) => {
        if (!options) throw new Error('no data source options');
        const dataSource = await new DataSource(options).initialize();
        serializeSqliteTransactions(dataSource);
        return dataSource;
      },
    }),
    TypeOrmModule.forFeature([SystemStateEntity]),
  ],
  providers: [SystemStateService, MigrationsService, DatabaseDurabilityService, SqliteCheckpoints],
  exports: [SystemStateService, DatabaseDurabilityService],
})
export class DatabaseModule {}
