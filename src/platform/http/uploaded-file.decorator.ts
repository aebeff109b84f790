import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { RequestWithUpload, UploadedFileInfo } from './multipart.interceptor';

/** The file part MultipartFile(...) received, if any. */
export const UploadedFilePart = createParamDecorator((_: unknown, ctx: ExecutionContext): UploadedFileInfo | undefined => {
  return ctx.switchToHttp().getRequest<RequestWithUpload>().uploadedFile;
});
