import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ContentStore } from './content-store';
import { LocalContentStore } from './local-content-store';

/** The store chosen by LCDS_STORAGE (local directory or S3-compatible bucket). */
export function createContentStore(config: AppConfig['storage']): ContentStore {
  if (config.kind !== 's3') return new LocalContentStore(config.dir);
  // The AWS SDK is large; a node on the local store never loads it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { S3ContentStore } = require('./s3-content-store') as typeof import('./s3-content-store');
  return new S3ContentStore(config);
}

/** Provides ContentStore everywhere: `constructor(private readonly store: ContentStore) {}`. */
@Global()
@Module({
  providers: [{ provide: ContentStore, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createContentStore(config.storage) }],
  exports: [ContentStore],
})
export class StorageModule {}
