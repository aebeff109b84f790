import { Inject, Injectable } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join, posix } from 'node:path';
import type { Readable } from 'node:stream';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { InvalidInputError, NotFoundError } from '../../platform/http/domain-errors';
import { OutboundError, OutboundHttp } from '../../platform/outbound/outbound-http';
import { ContentStore } from '../../platform/storage/content-store';
import { zipPrefix } from '../../platform/storage/zip-create';
import { CoursesService } from './courses.service';

export type UpdateAssetPolicy = 'reject' | 'strict' | 'lax';

/**
 * Files of a course version, changed in place: the player reads from the same prefix, so a changed file is
 * served at once. A course-level call acts on the latest version.
 */
@Injectable()
export class CourseAssetsService {
  constructor(
    private readonly courses: CoursesService,
    private readonly store: ContentStore,
    private readonly outbound: OutboundHttp,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async importFromUrl(appId: string, courseId: string, version: number | undefined, fetchUrl: string, destination: string, policy: UpdateAssetPolicy) {
    const { key, path } = await this.target(appId, courseId, version, destination, policy);
    const dir = join(this.config.dataDir, 'tmp', `asset-${randomUUID()}`);
    await mkdir(dir, { recursive: true });
    try {
      const file = join(dir, 'asset');
      try {
        this.outbound.checkUrl(fetchUrl);
        await this.outbound.download(fetchUrl, file, { maxBytes: this.config.imports.maxPackageBytes });
      } catch (err) {
        if (err instanceof OutboundError) throw new InvalidInputError(`fetchUrl: ${err.message}`);
        throw err;
      }
      await this.store.put(key, createReadStream(file), {});
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return { filename: posix.basename(path), destination: path };
  }

  async upload(appId: string, courseId: string, version: number | undefined, filePath: string | undefined, destination: string, policy: UpdateAssetPolicy) {
    try {
      if (!filePath) throw new InvalidInputError('file: the asset file is required (multipart form field "file")');
      const { key, path } = await this.target(appId, courseId, version, destination, policy);
      await this.store.put(key, createReadStream(filePath), {});
      return { filename: posix.basename(path), destination: path };
    } finally {
      if (filePath) await rm(filePath, { force: true });
    }
  }

  async get(appId: string, courseId: string, version: number | undefined, relativePath: string) {
    const prefix = await this.prefixOf(appId, courseId, version);
    const object = await this.store.get(prefix + normalise(relativePath));
    if (!object) throw new NotFoundError('Asset', relativePath);
    return object;
  }

  async delete(appId: string, courseId: string, version: number | undefined, relativePath: string): Promise<void> {
    const prefix = await this.prefixOf(appId, courseId, version);
    const key = prefix + normalise(relativePath);
    if (!(await this.store.exists(key))) throw new NotFoundError('Asset', relativePath);
    await this.store.delete(key);
  }

  async list(appId: string, courseId: string, version: number | undefined) {
    const prefix = await this.prefixOf(appId, courseId, version);
    const files: Array<{ path: string; size: number; modified: string }> = [];
    for await (const item of this.store.list(prefix)) {
      files.push({ path: item.key.slice(prefix.length), size: item.size, modified: item.modified.toISOString() });
    }
    return { files };
  }

  async zip(appId: string, courseId: string, version: number | undefined): Promise<{ stream: Readable; fileName: string }> {
    const { version: v } = await this.courses.resolveVersion(appId, courseId, version);
    return { stream: zipPrefix(this.store, v.contentPrefix), fileName: `${courseId.replace(/[^\w.-]+/g, '_')}-v${v.version}.zip` };
  }

  private async prefixOf(appId: string, courseId: string, version: number | undefined): Promise<string> {
    return (await this.courses.resolveVersion(appId, courseId, version)).version.contentPrefix;
  }

  private async target(appId: string, courseId: string, version: number | undefined, destination: string, policy: UpdateAssetPolicy) {
    const path = normalise(destination, 'destination');
    const key = (await this.prefixOf(appId, courseId, version)) + path;
    const exists = await this.store.exists(key);
    if (policy === 'reject' && exists) throw new InvalidInputError(`destination '${path}' exists and updateAssetPolicy is reject`);
    if (policy === 'strict' && !exists) throw new InvalidInputError(`destination '${path}' does not exist and updateAssetPolicy is strict`);
    return { key, path };
  }
}

/** A path inside the package: relative, forward slashes, no `..`. */
function normalise(raw: string, field = 'relativePath'): string {
  const path = posix.normalize(raw.replace(/\\/g, '/')).replace(/^\/+/, '');
  if (!path || path === '.' || path.startsWith('../') || path === '..' || hasControlCharacters(path) || path.endsWith('/')) {
    throw new InvalidInputError(`${field} must be a file path inside the course, such as images/logo.png`);
  }
  return path;
}

function hasControlCharacters(text: string): boolean {
  return [...text].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
}
