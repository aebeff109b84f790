import { IsInt, IsNotEmpty, IsString } from 'class-validator';
import { defineQueue } from '../../platform/queue/job-queue';

export class AiPluginImportPayload {
  @IsString() @IsNotEmpty() appId!: string;
  @IsString() @IsNotEmpty() courseId!: string;
  @IsInt() version!: number;
}

/** Imports of course versions to the AI plugin's partner: retried with backoff, then FAILED (the next status asks again). */
export const AI_PLUGIN_IMPORT_QUEUE = defineQueue<AiPluginImportPayload>({ name: 'ai-plugin-import', payloadClass: AiPluginImportPayload, maxAttempts: 3, backoffMs: 500, timeoutMs: 120_000 });
