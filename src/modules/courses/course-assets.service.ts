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
import { assertValidKey, ContentKeyConflictError, ContentStore, InvalidContentKeyError } from '../../platform/storage/content-store';
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
      await this.putAsset(key, path, file);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return { filename: posix.basename(path), destination: path };
  }

  async upload(appId: string, courseId: string, version: number | undefined, filePath: string | undefined, destination: string, policy: UpdateAssetPolicy) {
    try {
      if (!filePath) throw new InvalidInputError('file: the asset file is required (multipart form field "file")');
      const { key, path } = await this.target(appId, courseId, version, destination, policy);
      await this.putAsset(key, path, filePath);
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
    const prefix = await this.prefixOf(appId, courseId, version);
    const key = prefix + path;
    try {
      assertValidKey(key);
    } catch (err) {
      // A segment longer than a file name may be, a path longer than a key: the client's to change, not a 500.
      if (err instanceof InvalidContentKeyError) throw new InvalidInputError(`destination '${path}' cannot be stored: ${err.reason}`);
      throw err;
    }
    await this.assertNotFolderOrBeneathFile(prefix, path);
    const exists = await this.store.exists(key);
    if (policy === 'reject' && exists) throw new InvalidInputError(`destination '${path}' exists and updateAssetPolicy is reject`);
    if (policy === 'strict' && !exists) throw new InvalidInputError(`destination '${path}' does not exist and updateAssetPolicy is strict`);
    return { key, path };
  }

  /**
   * A course path is a file or a folder, never both, whatever the store: the local store cannot hold both, and on S3
   * the file list, the zip and the player would meet a file and a folder of one name.
   */
  private async assertNotFolderOrBeneathFile(prefix: string, path: string): Promise<void> {
    for await (const _file of this.store.list(`${prefix}${path}/`)) throw new InvalidInputError(folderMessage(path));
    const segments = path.split('/');
    for (let i = 1; i < segments.length; i++) {
      const parent = segments.slice(0, i).join('/');
      if (await this.store.exists(prefix + parent)) throw new InvalidInputError(`destination '${path}' is beneath the file '${parent}'`);
    }
  }

  /** The local store's own refusal (an empty folder, which lists as nothing, or a concurrent write) answers as target()'s check does. */
  private async putAsset(key: string, path: string, file: string): Promise<void> {
    try {
      await this.store.put(key, createReadStream(file), {});
    } catch (error) {
      if (!(error instanceof ContentKeyConflictError)) throw error;
      throw new InvalidInputError(error.clash === 'folder' ? folderMessage(path) : `destination '${path}' is beneath a file of the course`);
    }
  }
}

function folderMessage(path: string): string {
  return `destination '${path}' is a folder of the course`;
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
