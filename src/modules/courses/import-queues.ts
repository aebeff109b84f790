import { defineQueue } from '../../platform/queue/job-queue';
import { ImportJobPayload, ImportPostbackPayload } from './dto/import-requests.dto';

/** Imports of course packages; a failed fetch is retried, a broken package is not. */
export const COURSE_IMPORT_QUEUE = defineQueue<ImportJobPayload>({
  name: 'course-import',
  payloadClass: ImportJobPayload,
  maxAttempts: 3,
  backoffMs: 10_000,
  timeoutMs: 60 * 60_000,
});

/** The import result, posted to the job's postbackUrl; retried for about a day while the receiver is down. */
export const COURSE_IMPORT_POSTBACK_QUEUE = defineQueue<ImportPostbackPayload>({
  name: 'course-import-postback',
  payloadClass: ImportPostbackPayload,
  maxAttempts: 16,
  backoffMs: 15_000,
  timeoutMs: 60_000,
});
