import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { FIXTURES } from './fixtures';
import { call, CallResult } from './test-server';

export { FIXTURES };
export const fixture = (name: string) => join(FIXTURES, 'packages', name);

/** Starts an upload import (multipart, as the official client sends it) and returns the job id answer. */
export async function startUpload(
  api: string,
  auth: string,
  courseId: string,
  file: string | { name: string; data: Buffer; type?: string },
  query: Record<string, string> = {},
): Promise<CallResult<{ result: string; message?: string }>> {
  const form = new FormData();
  const data = typeof file === 'string' ? readFileSync(file) : file.data;
  const name = typeof file === 'string' ? basename(file) : file.name;
  form.append('file', new Blob([new Uint8Array(data)], { type: typeof file === 'string' ? 'application/zip' : (file.type ?? 'application/octet-stream') }), name);
  const qs = new URLSearchParams({ courseId, ...query });
  const res = await fetch(`${api}/courses/importJobs/upload?${qs.toString()}`, { method: 'POST', headers: { authorization: auth }, body: form });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** Polls GetImportJobStatus until the job leaves RUNNING. */
export async function waitForImport(api: string, auth: string, jobId: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call(`${api}/courses/importJobs/${jobId}`, { auth });
    if (r.status !== 200) throw new Error(`import status ${r.status}: ${JSON.stringify(r.body)}`);
    if (r.body.status !== 'RUNNING') return r.body;
    if (Date.now() > deadline) throw new Error(`import ${jobId} still running after ${timeoutMs} ms: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

export async function importCourse(api: string, auth: string, courseId: string, file: Parameters<typeof startUpload>[3], query: Record<string, string> = {}) {
  const started = await startUpload(api, auth, courseId, file, query);
  if (started.status !== 200) throw new Error(`import start ${started.status}: ${JSON.stringify(started.body)}`);
  return waitForImport(api, auth, started.body.result);
}

/** Counts activities of a CourseActivitySchema tree by type. */
export function countActivities(root: any, type: string): number {
  return (root.activityType === type ? 1 : 0) + (root.children ?? []).reduce((n: number, c: any) => n + countActivities(c, type), 0);
}
