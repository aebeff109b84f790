import type { LcdsService } from './lcds';

/** A JSON call of the service's API V2 with the application's Authorization (redirects not followed). */
export async function api(service: LcdsService, auth: string, method: string, path: string, json?: unknown): Promise<{ status: number; body: any; location: string | null }> {
  const res = await fetch(`${service.api}${path}`, {
    method,
    redirect: 'manual',
    headers: { authorization: auth, ...(json !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: json !== undefined ? JSON.stringify(json) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined, location: res.headers.get('location') };
}

/** Imports a course package through the API (upload, then the import job until it completes). */
export async function importCourse(service: LcdsService, auth: string, courseId: string, zip: Buffer): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), 'bench.zip');
  const res = await fetch(`${service.api}/courses/importJobs/upload?courseId=${courseId}`, { method: 'POST', headers: { authorization: auth }, body: form });
  const started = (await res.json()) as { result?: string };
  if (res.status !== 200 || !started.result) throw new Error(`import upload answered ${res.status}: ${JSON.stringify(started)}`);
  for (;;) {
    const job = await api(service, auth, 'GET', `/courses/importJobs/${started.result}`);
    if (job.body.status === 'COMPLETE') return;
    if (job.body.status !== 'RUNNING') throw new Error(`import failed: ${JSON.stringify(job.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
