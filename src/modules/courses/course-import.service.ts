import { Injectable, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { ConflictError, InvalidInputError, NotFoundError } from '../../platform/http/domain-errors';
import type { UploadedFileInfo } from '../../platform/http/multipart.interceptor';
import { OutboundError, OutboundHttp } from '../../platform/outbound/outbound-http';
import { JobQueue, JobRecord, UnrecoverableJobError } from '../../platform/queue/job-queue';
import { ContentStore } from '../../platform/storage/content-store';
import { ContentConnectorsService } from '../connectors/content-connectors.service';
import { CoursePackageImporter, ImportOutcome } from './course-package-importer';
import { CoursesService } from './courses.service';
import { CourseView } from './course-view';
import { ImportFetchRequestDto, ImportJobPayload, ImportQueryDto, ImportRequestDto, ImportSource, MediaFileMetadataDto } from './dto/import-requests.dto';
import { COURSE_IMPORT_POSTBACK_QUEUE, COURSE_IMPORT_QUEUE } from './import-queues';

/** ImportJobResultSchema */
export interface ImportJobResultView {
  jobId: string;
  status: 'RUNNING' | 'COMPLETE' | 'ERROR';
  message: string;
  /** Percent done; an addition to the real schema that clients ignore. */
  progress: number;
  importResult?: { webPathToCourse: string; parserWarnings: string[]; courseLanguages: string[]; course?: CourseView };
}

/** Starts import jobs (answering with the job id at once) and reports their status. */
@Injectable()
export class CourseImportService implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    private readonly courses: CoursesService,
    private readonly importer: CoursePackageImporter,
    private readonly outbound: OutboundHttp,
    private readonly store: ContentStore,
    private readonly connectors: ContentConnectorsService,
  ) {}

  onModuleInit(): void {
    this.jobs.register(COURSE_IMPORT_QUEUE, async (payload, ctx) => {
      try {
        const outcome = await this.importer.run(ctx.jobId, payload, (p) => ctx.reportProgress(p));
        await this.postback(payload, ctx.jobId, { outcome });
        return outcome;
      } catch (err) {
        const final = err instanceof UnrecoverableJobError || ctx.attempt >= (COURSE_IMPORT_QUEUE.maxAttempts ?? 1);
        if (final) await this.postback(payload, ctx.jobId, { error: err instanceof Error ? err.message : String(err) });
        throw err;
      }
    });
    this.jobs.register(COURSE_IMPORT_POSTBACK_QUEUE, async (payload) => {
      const view: ImportJobResultView = payload.outcome
        ? await this.describe(payload.appId, { id: payload.importJobId, status: 'completed', result: payload.outcome, error: null, progress: 100 })
        : { jobId: payload.importJobId, status: 'ERROR', message: payload.error ?? 'Import failed', progress: 100 };
      const res = await this.outbound.post(payload.url, JSON.stringify(view), { 'content-type': 'application/json' });
      if (res.status < 200 || res.status >= 300) throw new OutboundError(`postback receiver answered HTTP ${res.status}`, res.status);
    });
  }

  async startUpload(appId: string, query: ImportQueryDto, file: UploadedFileInfo | undefined, uploadedContentType?: string, contentMetadata?: string) {
    if (!file) throw new InvalidInputError('file: a course package is required (multipart form field "file")');
    try {
      await this.precheck(appId, query);
      // Everything the request can get wrong is checked before the package is stored: a refused import stores nothing.
      const media = parseContentMetadata(contentMetadata);
      const jobId = randomUUID();
      const key = `uploads/${appId}/${jobId}`;
      // Taken over by the store: moved into place on the local store (no copy).
      await this.store.putFile(key, file.path, { contentType: uploadedContentType ?? file.mimetype });
      try {
        return await this.enqueue(appId, jobId, query, { kind: 'upload', key, fileName: file.originalname || undefined, contentType: uploadedContentType ?? file.mimetype }, media);
      } catch (err) {
        // No job will ever read it (its payload was refused, or the queue failed).
        await this.store.delete(key).catch(() => undefined);
        throw err;
      }
    } finally {
      await unlink(file.path).catch(() => undefined);
    }
  }

  async startFetch(appId: string, query: ImportQueryDto, body: ImportFetchRequestDto) {
    await this.precheck(appId, query);
    this.checkUrl('url', body.url);
    return this.enqueue(appId, randomUUID(), query, { kind: 'fetch', url: body.url, contentType: body.contentType }, body.mediaFileMetadata);
  }

  async startNoUpload(appId: string, query: ImportQueryDto, body: ImportRequestDto) {
    // An explicit null is not given (IsOptional lets it through): one of them must be an object.
    const given = [body.fetchRequest, body.mediaFileReferenceRequest, body.connectorReferenceRequest].filter((x) => x !== undefined && x !== null);
    if (given.length !== 1) throw new InvalidInputError('give exactly one of fetchRequest, mediaFileReferenceRequest, connectorReferenceRequest');
    if (body.connectorReferenceRequest) {
      await this.precheck(appId, query);
      const ref = await this.connectors.checkReference(appId, body.connectorReferenceRequest.connectorId, body.connectorReferenceRequest.connectorIdForContent);
      return this.enqueue(appId, randomUUID(), query, { kind: 'connector', ...ref });
    }
    if (body.fetchRequest) return this.startFetch(appId, query, body.fetchRequest);
    const ref = body.mediaFileReferenceRequest!;
    await this.precheck(appId, query);
    this.checkUrl('mediaFileReferenceRequest.url', ref.url);
    if (!/^(video|audio)\/|^application\/pdf$/i.test(ref.contentType)) {
      throw new InvalidInputError('mediaFileReferenceRequest.contentType must be a video/*, audio/* or application/pdf type');
    }
    return this.enqueue(appId, randomUUID(), query, { kind: 'reference', url: ref.url, contentType: ref.contentType }, ref.mediaFileMetadata);
  }

  async status(appId: string, jobId: string): Promise<ImportJobResultView> {
    const job = await this.jobs.get(jobId);
    if (!job || job.appId !== appId || job.queue !== COURSE_IMPORT_QUEUE.name) throw new NotFoundError('Import job', jobId);
    return this.describe(appId, job);
  }

  private async describe(appId: string, job: Pick<JobRecord, 'id' | 'status' | 'result' | 'error' | 'progress'>): Promise<ImportJobResultView> {
    if (job.status === 'completed') {
      const outcome = job.result as ImportOutcome;
      const course = await this.courses.getVersion(appId, outcome.courseId, outcome.version).catch(() => undefined);
      return {
        jobId: job.id,
        status: 'COMPLETE',
        message: course ? 'Import complete' : 'Import complete; the course has been deleted since',
        progress: 100,
        importResult: { webPathToCourse: outcome.webPathToCourse, parserWarnings: outcome.warnings, courseLanguages: outcome.courseLanguages, ...(course ? { course } : {}) },
      };
    }
    if (job.status === 'failed') return { jobId: job.id, status: 'ERROR', message: job.error ?? 'Import failed', progress: job.progress };
    return { jobId: job.id, status: 'RUNNING', message: job.status === 'queued' ? 'Import queued' : `Import in progress (${job.progress}%)`, progress: job.progress };
  }

  /** 409 before any work when the course exists and no new version may be made. */
  private async precheck(appId: string, query: ImportQueryDto): Promise<void> {
    if (query.postbackUrl !== undefined) this.checkUrl('postbackUrl', query.postbackUrl);
    if (query.mayCreateNewVersion === true) return;
    const exists = await this.courses.requireCourse(appId, query.courseId).then(
      () => true,
      () => false,
    );
    if (exists) throw new ConflictError(`Course '${query.courseId}' already exists; pass mayCreateNewVersion=true to import a new version of it`);
  }

  private checkUrl(field: string, url: string): void {
    try {
      this.outbound.checkUrl(url);
    } catch (err) {
      throw new InvalidInputError(`${field}: ${(err as Error).message}`);
    }
  }

  private async enqueue(appId: string, jobId: string, query: ImportQueryDto, source: ImportSource, media?: MediaFileMetadataDto): Promise<{ result: string }> {
    const payload: ImportJobPayload = {
      appId,
      courseId: query.courseId,
      mayCreateNewVersion: query.mayCreateNewVersion === true,
      ...(query.postbackUrl ? { postbackUrl: query.postbackUrl } : {}),
      source,
      ...(media ? { media: { ...media } } : {}),
    };
    await this.jobs.enqueue(COURSE_IMPORT_QUEUE, payload, { appId, jobId });
    return { result: jobId };
  }

  /** The job's end, as a snapshot: the postback job may run before the job row records it. */
  private async postback(payload: ImportJobPayload, jobId: string, end: { outcome?: ImportOutcome; error?: string }): Promise<void> {
    if (!payload.postbackUrl) return;
    await this.jobs.enqueue(COURSE_IMPORT_POSTBACK_QUEUE, { appId: payload.appId, importJobId: jobId, url: payload.postbackUrl, ...end }, { appId: payload.appId });
  }
}

/** contentMetadata is a JSON string of MediaFileMetadataSchema fields (title, description, …). */
function parseContentMetadata(raw?: string): MediaFileMetadataDto | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new InvalidInputError('contentMetadata must be a JSON object such as {"title": "…"}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidInputError('contentMetadata must be a JSON object');
  const m = parsed as Record<string, unknown>;
  return {
    ...(typeof m.title === 'string' ? { title: m.title.slice(0, 512) } : {}),
    ...(typeof m.description === 'string' ? { description: m.description.slice(0, 4000) } : {}),
    ...(typeof m.contentLanguage === 'string' ? { contentLanguage: m.contentLanguage.slice(0, 64) } : {}),
  };
}
