// Data source for the TypeORM CLI (e.g. `npx typeorm-ts-node-commonjs migration:show -d ormconfig.ts`).
// The service and `lcds migrate` use the same options, so one set of migrations serves SQLite and MySQL.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config';
import { dataSourceOptions } from './src/platform/database/data-source-options';

export default new DataSource(dataSourceOptions(loadConfig()));
