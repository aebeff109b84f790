import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFoundError } from '../../platform/http/domain-errors';
import { JobContext, JobQueue, UnrecoverableJobError } from '../../platform/queue/job-queue';
import { CoursesService } from '../courses/courses.service';
import { AI_PLUGIN_IMPORT_QUEUE, AiPluginImportPayload } from './ai-plugin-import';
import { AiPluginKeys } from './ai-plugin-keys';
import { AiPluginLaunchConfig, AiPluginProvider, NOT_CONFIGURED } from './ai-plugin-provider';
import { AiPluginCourseEntity } from './entities/ai-plugin-course.entity';

/** GetAiPluginCourseStatus while the import job has not finished. */
export const IMPORT_QUEUED = 'IMPORT_QUEUED';
/** GetAiPluginCourseStatus when the partner could not be asked. */
export const PARTNER_UNAVAILABLE = 'PARTNER_UNAVAILABLE';

export interface CourseOptions {
  enabled?: boolean;
  nti?: string;
  cta?: string;
}

/**
 * The AI plugin service (contract `/aiplugin`, real API `/zoomi`): an application's company id and key pair, each course
 * version's enabled flag and options, its import to the partner (a job), its status there, its removal, and what a
 * launch of an enabled version carries (docs/aiplugin.md).
 */
@Injectable()
export class AiPluginService implements OnModuleInit {
  private readonly log = new Logger(AiPluginService.name);

  constructor(
    @InjectRepository(AiPluginCourseEntity) private readonly courseRows: Repository<AiPluginCourseEntity>,
    private readonly keys: AiPluginKeys,
    private readonly provider: AiPluginProvider,
    private readonly courses: CoursesService,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.register(AI_PLUGIN_IMPORT_QUEUE, (payload, ctx) => this.runImport(payload, ctx));
  }

  async companyId(appId: string): Promise<{ result: string }> {
    const companyId = await this.keys.companyId(appId);
    if (companyId === null) throw new NotFoundError('AI plugin company id of application', appId);
    return { result: companyId };
  }

  setCompanyId(appId: string, companyId: string): Promise<void> {
    return this.keys.setCompanyId(appId, companyId);
  }

  async publicKey(appId: string): Promise<{ result: string }> {
    return { result: await this.keys.publicKey(appId) };
  }

  deleteKeys(appId: string): Promise<void> {
    return this.keys.discard(appId);
  }

  async enabled(appId: string, courseId: string, version: number): Promise<{ enabled: boolean }> {
    await this.courses.requireVersion(appId, courseId, version);
    return { enabled: (await this.courseRows.findOneBy({ appId, courseId, version }))?.enabled === true };
  }

  /** Enables (unless `enabled` is false) and stores the options given; options not given stay as they were. */
  async setEnabled(appId: string, courseId: string, version: number, options: CourseOptions): Promise<void> {
    await this.courses.requireVersion(appId, courseId, version);
    const row = await this.rowOf(appId, courseId, version);
    row.enabled = options.enabled !== false;
    if (options.nti !== undefined) row.nti = options.nti;
    if (options.cta !== undefined) row.cta = options.cta;
    row.updatedAt = new Date();
    await this.courseRows.save(row);
  }

  /** ImportCourseVersionToZoomi: stores the options and (re)imports the version to the partner. */
  async importVersion(appId: string, courseId: string, version: number, options: { nti: string; cta: string }): Promise<void> {
    await this.courses.requireVersion(appId, courseId, version);
    const row = await this.rowOf(appId, courseId, version);
    Object.assign(row, { nti: options.nti, cta: options.cta, updatedAt: new Date() });
    await this.courseRows.save(row);
    if (this.provider.configured) await this.queueImport(row);
  }

  /**
   * The version's status at the partner; a version never imported (or whose import failed) is imported first (a job)
   * and answers IMPORT_QUEUED. Without a partner: NOT_CONFIGURED.
   */
  async status(appId: string, courseId: string, version: number): Promise<{ result: string }> {
    await this.courses.requireVersion(appId, courseId, version);
    if (!this.provider.configured) return { result: NOT_CONFIGURED };
    const row = await this.rowOf(appId, courseId, version);
    if (row.importState === null || row.importState === 'FAILED') {
      await this.queueImport(row);
      return { result: IMPORT_QUEUED };
    }
    if (row.importState === 'QUEUED') return { result: IMPORT_QUEUED };
    try {
      return { result: await this.provider.status(await this.keys.caller(appId), courseId, version) };
    } catch (err) {
      this.log.warn(`AI plugin status of ${courseId} v${version} (application ${appId}): ${(err as Error).message}`);
      return { result: PARTNER_UNAVAILABLE };
    }
  }

  /** Removes the version from the partner; its enabled flag and options stay. */
  async deleteCourse(appId: string, courseId: string, version: number): Promise<void> {
    await this.courses.requireVersion(appId, courseId, version);
    const row = await this.courseRows.findOneBy({ appId, courseId, version });
    if (this.provider.configured && row?.importState) await this.provider.deleteCourse(await this.keys.caller(appId), courseId, version);
    if (row) await this.courseRows.update({ appId, courseId, version }, { importState: null, error: null, updatedAt: new Date() });
  }

  /** What the player page of a launch carries: null when the plugin is not enabled for the version (or there is no partner). */
  async launchConfig(appId: string, launch: { courseId: string; version: number; registrationId: string; learnerId: string }): Promise<AiPluginLaunchConfig | null> {
    if (!this.provider.configured) return null;
    const row = await this.courseRows.findOneBy({ appId, courseId: launch.courseId, version: launch.version });
    if (!row?.enabled) return null;
    return this.provider.launch(await this.keys.caller(appId), { ...launch, nti: row.nti, cta: row.cta });
  }

  /**
   * A course (or one version) is being deleted: its rows go, and the versions imported to the partner are removed
   * there, best effort (a partner that fails does not hold up the deletion; it is logged).
   */
  async forgetCourse(appId: string, courseId: string, version?: number): Promise<void> {
    const rows = await this.courseRows.findBy({ appId, courseId, ...(version !== undefined ? { version } : {}) });
    for (const row of rows.filter((r) => r.importState !== null && this.provider.configured)) {
      await this.provider.deleteCourse(await this.keys.caller(appId), courseId, row.version).catch((err: Error) => this.log.warn(`AI plugin: removing ${courseId} v${row.version} (application ${appId}) from the partner failed: ${err.message}`));
    }
    await this.courseRows.delete({ appId, courseId, ...(version !== undefined ? { version } : {}) });
  }

  async purgeApplication(appId: string): Promise<void> {
    await this.courseRows.delete({ appId });
    await this.keys.purge(appId);
  }

  private async runImport({ appId, courseId, version }: AiPluginImportPayload, ctx: JobContext): Promise<void> {
    const row = await this.courseRows.findOneBy({ appId, courseId, version });
    const course = await this.courses.findVersion(appId, courseId, version);
    if (!row || !course) throw new UnrecoverableJobError('the course version no longer exists');
    try {
      await this.provider.importCourse(await this.keys.caller(appId), { courseId, version, title: course.title, nti: row.nti, cta: row.cta }, ctx.signal);
    } catch (err) {
      const last = ctx.attempt >= (AI_PLUGIN_IMPORT_QUEUE.maxAttempts ?? 1);
      await this.courseRows.update({ appId, courseId, version }, { error: (err as Error).message, ...(last ? { importState: 'FAILED' as const } : {}), updatedAt: new Date() });
      throw err;
    }
    await this.courseRows.update({ appId, courseId, version }, { importState: 'IMPORTED', error: null, updatedAt: new Date() });
  }

  private async queueImport(row: AiPluginCourseEntity): Promise<void> {
    await this.courseRows.update({ appId: row.appId, courseId: row.courseId, version: row.version }, { importState: 'QUEUED', error: null, updatedAt: new Date() });
    await this.jobs.enqueue(AI_PLUGIN_IMPORT_QUEUE, { appId: row.appId, courseId: row.courseId, version: row.version }, { appId: row.appId });
  }

  private async rowOf(appId: string, courseId: string, version: number): Promise<AiPluginCourseEntity> {
    const row = await this.courseRows.findOneBy({ appId, courseId, version });
    if (row) return row;
    await this.courseRows
      .createQueryBuilder()
      .insert()
      .values({ appId, courseId, version, enabled: false, nti: null, cta: null, importState: null, error: null, updatedAt: new Date() })
      .orIgnore()
      .execute();
    return this.courseRows.findOneByOrFail({ appId, courseId, version });
  }
}
