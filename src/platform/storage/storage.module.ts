import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ContentStore } from './content-store';
import { LocalContentStore } from './local-content-store';
import { S3ContentStore } from './s3-content-store';

/** The store chosen by LCDS_STORAGE (local directory or S3-compatible bucket). */
export function createContentStore(config: AppConfig['storage']): ContentStore {
  return config.kind === 's3' ? new S3ContentStore(config) : new LocalContentStore(config.dir);
}

/** Provides ContentStore everywhere: `constructor(private readonly store: ContentStore) {}`. */
@Global()
@Module({
  providers: [{ provide: ContentStore, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createContentStore(config.storage) }],
  exports: [ContentStore],
})
export class StorageModule {}
