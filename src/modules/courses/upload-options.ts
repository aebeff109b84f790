import type { MulterModuleOptions } from '@nestjs/platform-express';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { diskStorage } from 'multer';
import type { AppConfig } from '../../config/app-config';

/**
 * Uploads stream to a temporary file under DATA_DIR/tmp/uploads (never into memory), capped in size;
 * past the cap multer's error becomes a 413.
 */
export function multerOptions(config: AppConfig): MulterModuleOptions {
  const dir = join(config.dataDir, 'tmp', 'uploads');
  return {
    storage: diskStorage({
      destination: (_req, _file, cb) => {
        mkdirSync(dir, { recursive: true });
        cb(null, dir);
      },
    }),
    limits: { fileSize: config.imports.maxPackageBytes, files: 1, fields: 20, fieldSize: 1024 * 1024 },
  };
}
