import { ContentConnectorsService } from '../connectors/content-connectors.service';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { CourseImported, EventBus } from '../../platform/events';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { OutboundError, OutboundHttp } from '../../platform/outbound/outbound-http';
import { UnrecoverableJobError } from '../../platform/queue/job-queue';
import { ContentStore } from '../../platform/storage/content-store';
import { extractZip, isZipFile, ZipRejectedError } from '../../platform/storage/zip-extract';
import { parsePackage } from './packages/detect-package';
import { PackageError, ParsedPackage } from './packages/package-types';
import { ImportJobPayload } from './dto/import-requests.dto';
import { CourseEntity, titleFields } from './entities/course.entity';
import { CourseVersionEntity } from './entities/course-version.entity';
import { StorePackageSource } from './store-package-source';
import { CoursesService } from './courses.service';

export interface ImportOutcome {
  courseId: string;
  version: number;
  webPathToCourse: string;
  warnings: string[];
  courseLanguages: string[];
}

const MEDIA_TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.webm': 'video/webm',
  '.mov': 'video/quicktime',
  '.mp3': 'audio/mpeg',
  '.m4a': 'audio/mp4',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
};

/**
 * One import, end to end: get the package (uploaded, fetched, or only referenced), extract it into the
 * version's own prefix of the content store (streaming, with the zip safety limits), parse it with the
 * parser of its standard, and record course and version in one transaction. On failure nothing is left:
 * no rows, no files. Safe to run again after a crash: each attempt starts from a clean prefix.
 */
@Injectable()
export class CoursePackageImporter {
  private readonly logger = new Logger(CoursePackageImporter.name);

  constructor(
    private readonly store: ContentStore,
    private readonly outbound: OutboundHttp,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: EventBus,
    private readonly connectors: ContentConnectorsService,
    private readonly courses: CoursesService,
  ) {}

  async run(jobId: string, job: ImportJobPayload, progress: (percent: number) => Promise<void>): Promise<ImportOutcome> {
    const prefix = `apps/${job.appId}/content/${jobId}/`;
    const workDir = join(this.config.dataDir, 'tmp', `import-${jobId}`);
    await rm(workDir, { recursive: true, force: true });
    await mkdir(workDir, { recursive: true });
    await this.store.deletePrefix(prefix);
    try {
      await progress(2);
      const parsed = await this.load(job, prefix, workDir, progress);
      await progress(92);
      const outcome = await this.save(job, jobId, prefix, parsed.package, parsed.sizeBytes);
      await progress(100);
      if (job.source.kind === 'upload') await this.store.delete(job.source.key).catch(() => undefined);
      this.logger.log({ msg: 'course imported', appId: job.appId, courseId: job.courseId, version: outcome.version, standard: parsed.package.standard, jobId });
      return outcome;
    } catch (err) {
      await this.store.deletePrefix(prefix).catch(() => undefined);
      const permanent = err instanceof PackageError || err instanceof ZipRejectedError || (err instanceof OutboundError && err.status !== undefined && err.status < 500);
      if (permanent && job.source.kind === 'upload') await this.store.delete(job.source.key).catch(() => undefined);
      throw permanent ? new UnrecoverableJobError((err).message) : err;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  private async load(job: ImportJobPayload, prefix: string, workDir: string, progress: (p: number) => Promise<void>) {
    const source = job.source;
    if (source.kind === 'reference') {
      return { package: mediaPackage(job, source.url, source.contentType, true), sizeBytes: 0 };
    }
    // The package as a local file: the uploaded object itself on the local store (no copy), else a download.
    let file = join(workDir, 'package');
    let fileName: string;
    let contentType: string | undefined;
    if (source.kind === 'upload') {
      const local = await this.store.localFile(source.key, file);
      if (!local) throw new PackageError('The uploaded file is no longer available; upload it again');
      file = local;
      fileName = source.fileName ?? 'package';
      contentType = source.contentType;
    } else if (source.kind === 'connector') {
      const got = await this.connectors.download(job.appId, source.connectorId, source.key, file, this.config.imports.maxPackageBytes);
      fileName = got.fileName;
      contentType = got.contentType;
    } else {
      const got = await this.outbound.download(source.url, file, { maxBytes: this.config.imports.maxPackageBytes });
      fileName = basename(new URL(source.url).pathname) || 'package';
      contentType = source.contentType && source.contentType !== 'application/zip' ? source.contentType : got.contentType;
    }
    await progress(10);
    const size = (await stat(file)).size;
    if (size === 0) throw new PackageError('The package file is empty');

    if (await isZipFile(file)) {
      const extracted = await extractZip(file, this.store, prefix, {
        maxTotalBytes: this.config.imports.maxExtractedBytes,
        onProgress: (done, total) => void progress(10 + Math.floor((75 * done) / Math.max(total, 1))),
      });
      const pkg = await parsePackage(new StorePackageSource(this.store, prefix, extracted.files.map((f) => f.path)), { fileName, contentType });
      return { package: pkg, sizeBytes: extracted.totalBytes };
    }

    // A single file: a cmi5 course structure, or a media file.
    if (await looksLikeCmi5Xml(file)) {
      await this.store.put(`${prefix}cmi5.xml`, await readFile(file), { contentType: 'application/xml' });
      const pkg = await parsePackage(new StorePackageSource(this.store, prefix, ['cmi5.xml']), { fileName, contentType });
      return { package: pkg, sizeBytes: size };
    }
    const type = mediaType(fileName, contentType);
    if (!type) {
      throw new PackageError(
        `'${fileName}' is neither a zip package nor a media file; import a .zip (SCORM, AICC, xAPI, cmi5), a cmi5.xml, or a PDF, MP4 or MP3 file`,
      );
    }
    const stored = safeMediaName(fileName, type);
    await this.store.put(`${prefix}${stored}`, createReadStream(file), { contentType: type });
    return { package: mediaPackage(job, stored, type, false), sizeBytes: size };
  }

  private async save(job: ImportJobPayload, jobId: string, prefix: string, pkg: ParsedPackage, sizeBytes: number): Promise<ImportOutcome> {
    const title = (job.media?.title ?? pkg.title).slice(0, 512) || job.courseId;
    const version = await this.dataSource.transaction(async (m) => {
      const now = new Date();
      const existing = await m.getRepository(CourseEntity).findOne({ where: { appId: job.appId, id: job.courseId }, lock: lockFor(this.dataSource) });
      if (existing && !job.mayCreateNewVersion) {
        throw new PackageError(`Course '${job.courseId}' was created while this import ran; import again with mayCreateNewVersion=true`);
      }
      const next = existing ? existing.latestVersion + 1 : 1;
      if (existing) await m.update(CourseEntity, { appId: job.appId, id: job.courseId }, { latestVersion: next, ...titleFields(title), updatedAt: now });
      else await m.insert(CourseEntity, { appId: job.appId, id: job.courseId, ...titleFields(title), latestVersion: next, createdAt: now, updatedAt: now });
      await m.insert(CourseVersionEntity, {
        appId: job.appId,
        courseId: job.courseId,
        version: next,
        title,
        learningStandard: pkg.standard,
        xapiActivityId: pkg.xapiActivityId ?? null,
        metadata: { ...pkg.metadata, ...(job.media?.description ? { description: job.media.description } : {}) },
        rootActivity: pkg.rootActivity,
        // JSON columns: TypeORM's deep-partial typing does not fit free-form records.
        package: { launchables: pkg.launchables, packageData: pkg.packageData, warnings: pkg.warnings, courseLanguages: pkg.courseLanguages } as never,
        contentPrefix: prefix,
        sizeBytes,
        createdAt: now,
        updatedAt: now,
      });
      await this.events.publishIn(m, new CourseImported({ appId: job.appId, courseId: job.courseId, version: next, learningStandard: pkg.standard, title }));
      return next;
    });
    // The next launch plays the new version on every node.
    await this.courses.courseChanged(job.appId, job.courseId);
    return { courseId: job.courseId, version, webPathToCourse: `content/${prefix}`, warnings: pkg.warnings, courseLanguages: pkg.courseLanguages };
  }
}

function lockFor(ds: DataSource) {
  // SQLite serialises writers already and has no row locks.
  return ds.options.type === 'mysql' ? ({ mode: 'pessimistic_write' } as const) : undefined;
}

async function looksLikeCmi5Xml(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
    const head = buffer.subarray(0, bytesRead).toString('utf8');
    return /^\uFEFF?\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<([\w-]+:)?courseStructure[\s>]/.test(head);
  } finally {
    await handle.close();
  }
}

function mediaType(fileName: string, contentType?: string): string | null {
  const byExt = MEDIA_TYPES[extname(fileName).toLowerCase()];
  if (byExt) return byExt;
  const ct = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return /^(video|audio)\/[\w.+-]+$/.test(ct) || ct === 'application/pdf' ? ct : null;
}

function safeMediaName(fileName: string, type: string): string {
  const clean = basename(fileName).replace(/[^\w.-]+/g, '_').replace(/^\.+/, '');
  if (clean && extname(clean)) return clean;
  const ext = Object.entries(MEDIA_TYPES).find(([, t]) => t === type)?.[0] ?? '.bin';
  return `media${ext}`;
}

/** A one-page course around a media file (stored, or referenced by URL). */
function mediaPackage(job: ImportJobPayload, href: string, contentType: string, referenced: boolean): ParsedPackage {
  const kind = contentType === 'application/pdf' ? 'pdf' : contentType.startsWith('audio/') ? 'audio' : 'video';
  const title = job.media?.title ?? (referenced ? basename(new URL(href).pathname) : href) ?? job.courseId;
  const id = `${job.courseId}_media`;
  return {
    standard: 'UNKNOWN',
    title,
    metadata: { title, ...(job.media?.description ? { description: job.media.description } : {}) },
    rootActivity: { externalIdentifier: id, itemIdentifier: id, activityType: 'SCO', href, title, children: [] },
    launchables: [{ id, title, href, data: { media: { kind, contentType, referenced } } }],
    packageData: { media: { kind, file: href, contentType, referenced, ...(job.media?.estimatedDuration ? { estimatedDuration: job.media.estimatedDuration } : {}) } },
    warnings: [],
    courseLanguages: job.media?.contentLanguage ? [job.media.contentLanguage] : [],
  };
}
