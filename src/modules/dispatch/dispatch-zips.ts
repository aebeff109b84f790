import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { InvalidInputError } from '../../platform/http/domain-errors';
import { httpUrlProblem } from '../../platform/http/http-url';
import { CoursesService } from '../courses/courses.service';
import { DispatchesService } from './dispatches.service';
import { DispatchZipQueryDto } from './dto/dispatch-query.dto';
import { packageFiles, PackageType, zipBuffer } from './dispatch-package';
import type { DispatchEntity } from './entities/dispatch.entity';

export interface ZipAnswer {
  fileName: string;
  data: Buffer;
}

/** GetDispatchZip and GetDestinationDispatchZip: packages built on request (they hold no course asset, only access). */
@Injectable()
export class DispatchZips {
  constructor(
    private readonly dispatches: DispatchesService,
    private readonly courses: CoursesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async forDispatch(appId: string, id: string, query: DispatchZipQueryDto): Promise<ZipAnswer> {
    const d = await this.dispatches.require(appId, id);
    const { type, cssUrl } = this.options(query);
    const titles = await this.courses.titles(appId, [d.courseId]);
    return { fileName: `${fileNameOf(d.id)}.zip`, data: await this.build(d, type, titles.get(d.courseId) ?? d.courseId, cssUrl) };
  }

  /** A zip of one package per dispatch of the destination (those carrying any of `tags`, when given). */
  async forDestination(appId: string, destinationId: string, query: DispatchZipQueryDto): Promise<ZipAnswer> {
    const { type, cssUrl } = this.options(query);
    const rows = await this.dispatches.ofDestination(appId, destinationId, query.tags ?? []);
    const titles = await this.courses.titles(appId, [...new Set(rows.map((d) => d.courseId))]);
    const files: Record<string, Buffer> = {};
    for (const d of rows) files[`${fileNameOf(d.id)}.zip`] = await this.build(d, type, titles.get(d.courseId) ?? d.courseId, cssUrl);
    return { fileName: `${fileNameOf(destinationId)}-dispatches.zip`, data: await zipBuffer(files) };
  }

  private options(query: DispatchZipQueryDto): { type: PackageType; cssUrl?: string } {
    const type = query.type ?? 'SCORM_12';
    if (query.cssUrl) {
      const problem = httpUrlProblem(query.cssUrl, 'cssUrl');
      if (problem) throw new InvalidInputError(problem);
    }
    return { type, ...(query.cssUrl ? { cssUrl: query.cssUrl } : {}) };
  }

  private build(d: DispatchEntity, type: PackageType, title: string, cssUrl?: string): Promise<Buffer> {
    return zipBuffer(packageFiles({ id: d.id, packageKey: d.packageKey, secret: this.dispatches.secretOf(d) }, type, title, this.config.publicUrl, cssUrl));
  }
}

function fileNameOf(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100) || 'dispatch';
}

export function sendZip(res: import('express').Response, zip: ZipAnswer): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Disposition', `attachment; filename="${zip.fileName}"`);
  res.type('application/zip').send(zip.data);
}
