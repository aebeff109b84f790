import { CallHandler, ExecutionContext, Inject, Injectable, mixin, NestInterceptor, Type } from '@nestjs/common';
import busboy from 'busboy';
import type { Request } from 'express';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { finalize, Observable } from 'rxjs';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { InvalidInputError, PayloadTooLargeError } from './domain-errors';

/** A file part of a multipart request, streamed to a temporary file. */
export interface UploadedFileInfo {
  path: string;
  /** The part's filename; empty when the client sent none (the official client's Buffer uploads). */
  originalname: string;
  mimetype: string;
  size: number;
}

export type RequestWithUpload = Request & { uploadedFile?: UploadedFileInfo };

/**
 * Multipart uploads, streamed to DATA_DIR/tmp/uploads and capped at LCDS_MAX_PACKAGE_BYTES. Unlike multer it
 * keeps a file part that has no filename: the official JavaScript client sends a Buffer that way. Text fields
 * land in the body for the DTO to validate. The temporary file is the handler's to move or remove; whatever is left
 * of it when the request is answered is removed.
 */
export function MultipartFile(field: string): Type<NestInterceptor> {
  @Injectable()
  class MultipartFileInterceptor implements NestInterceptor {
    constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

    async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
      const req = context.switchToHttp().getRequest<RequestWithUpload>();
      // Not multipart (a client with nothing to send): no file; the handler names what is missing.
      if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) return next.handle();
      const { fields, file } = await this.parse(req, field);
      req.body = fields;
      req.uploadedFile = file;
      // The handler takes the file over (moves or removes it); when it never runs, because a pipe refused the query
      // or the fields, the file would stay behind: removed once the request is answered, whatever happened.
      const path = file?.path;
      return path ? next.handle().pipe(finalize(() => void unlink(path).catch(() => undefined))) : next.handle();
    }

    private parse(req: Request, fileField: string): Promise<{ fields: Record<string, string>; file?: UploadedFileInfo }> {
      const limit = this.config.imports.maxPackageBytes;
      const dir = join(this.config.dataDir, 'tmp', 'uploads');
      mkdirSync(dir, { recursive: true });
      return new Promise((resolve, reject) => {
        const fields: Record<string, string> = {};
        let file: UploadedFileInfo | undefined;
        let writing: Promise<void> | undefined;
        let failed: Error | undefined;
        let out: WriteStream | undefined;
        const fail = (err: Error) => {
          if (failed) return;
          failed = err;
          req.unpipe(parser);
          req.resume();
          const written = file?.path;
          if (out && written) {
            const remove = () => void unlink(written).catch(() => undefined);
            if (out.closed) remove();
            else {
              out.once('close', remove);
              out.destroy();
            }
          }
          reject(err);
        };
        let parser: busboy.Busboy;
        try {
          parser = busboy({ headers: req.headers, limits: { fileSize: limit, files: 1, fields: 20, fieldSize: 1024 * 1024, parts: 40 } });
        } catch (err) {
          reject(new InvalidInputError(`Malformed multipart request: ${(err as Error).message}`));
          return;
        }
        parser.on('field', (name, value, info) => {
          if (info.valueTruncated) return fail(new PayloadTooLargeError(`form field ${name} is too long`));
          fields[name] = value;
        });
        parser.on('file', (name, stream, info) => {
          if (name !== fileField || file) {
            stream.resume();
            return fail(new InvalidInputError(`unexpected file part '${name}'; send one file in the field '${fileField}'`));
          }
          file = { path: join(dir, randomUUID()), originalname: info.filename ?? '', mimetype: info.mimeType, size: 0 };
          out = createWriteStream(file.path);
          const sink = out;
          stream.on('data', (chunk: Buffer) => (file!.size += chunk.length));
          stream.on('limit', () => fail(new PayloadTooLargeError(`The file is larger than the limit of ${limit} bytes`)));
          writing = new Promise<void>((done, error) => {
            sink.on('finish', () => done());
            sink.on('error', error);
            stream.on('error', error);
          });
          // Failures are handled by fail() and the close handler; never leave this promise unobserved.
          writing.catch(() => undefined);
          stream.pipe(sink);
        });
        parser.on('partsLimit', () => fail(new InvalidInputError('Too many parts in the multipart request')));
        parser.on('filesLimit', () => fail(new InvalidInputError(`Send one file in the field '${fileField}'`)));
        parser.on('fieldsLimit', () => fail(new InvalidInputError('Too many form fields')));
        parser.on('error', (err: Error) => fail(new InvalidInputError(`Malformed multipart request: ${err.message}`)));
        parser.on('close', () => {
          if (failed) return;
          (writing ?? Promise.resolve()).then(
            () => (failed ? undefined : resolve({ fields, file })),
            (err: Error) => fail(err),
          );
        });
        req.on('aborted', () => fail(new InvalidInputError('The upload was aborted by the client')));
        req.pipe(parser);
      });
    }
  }
  return mixin(MultipartFileInterceptor);
}
