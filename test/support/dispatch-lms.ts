import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import type { Frame, Page } from 'playwright-core';
import * as yauzl from 'yauzl';
import { waitFor } from './player';

/** Every file of a zip, by name. */
export async function unzip(data: Buffer): Promise<Map<string, Buffer>> {
  const zip = await yauzl.fromBufferPromise(data, { lazyEntries: true });
  const files = new Map<string, Buffer>();
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.endsWith('/')) continue;
    const chunks: Buffer[] = [];
    for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
    files.set(entry.fileName, Buffer.concat(chunks));
  }
  zip.close();
  return files;
}

/**
 * A stand-in third-party LMS on its own origin (`http://localhost:<port>`, where LCDS is on 127.0.0.1): it "imports" a
 * package by serving its files under /courses/<name>/, and its player page `/play/<name>?learner=&name=&version=`
 * provides a SCORM 1.2 `API` (or 2004 `API_1484_11`) object that records every call (window.lmsCalls) and keeps the
 * values set, around a frame of the package's launch page.
 */
export interface StandInLms {
  origin: string;
  install(name: string, files: Map<string, Buffer>): void;
  playUrl(name: string, learner: { id: string; name: string }, version?: '1.2' | '2004'): string;
  close(): Promise<void>;
}

const PLAY_PAGE = (course: string, version: string, id: string, name: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Stand-in LMS</title>
<script>
window.lmsCalls = [];
window.lmsValues = { 'cmi.core.student_id': ${JSON.stringify(id)}, 'cmi.core.student_name': ${JSON.stringify(name)}, 'cmi.learner_id': ${JSON.stringify(id)}, 'cmi.learner_name': ${JSON.stringify(name)} };
function named(name, fn) { var f = function (a, b) { var r = fn(a, b); window.lmsCalls.push([name].concat(Array.prototype.slice.call(arguments).map(String)).concat([r])); return r; }; return f; }
var api = {};
var names = ${JSON.stringify(version)} === '1.2'
  ? { init: 'LMSInitialize', get: 'LMSGetValue', set: 'LMSSetValue', commit: 'LMSCommit', finish: 'LMSFinish', err: 'LMSGetLastError' }
  : { init: 'Initialize', get: 'GetValue', set: 'SetValue', commit: 'Commit', finish: 'Terminate', err: 'GetLastError' };
api[names.init] = named(names.init, function () { return 'true'; });
api[names.get] = named(names.get, function (k) { return window.lmsValues[k] === undefined ? '' : window.lmsValues[k]; });
api[names.set] = named(names.set, function (k, v) { window.lmsValues[k] = String(v); return 'true'; });
api[names.commit] = named(names.commit, function () { return 'true'; });
api[names.finish] = named(names.finish, function () { window.lmsFinished = true; return 'true'; });
api[names.err] = function () { return '0'; };
window[${JSON.stringify(version)} === '1.2' ? 'API' : 'API_1484_11'] = api;
</script></head><body style="margin:0"><iframe id="course" src="/courses/${encodeURIComponent(course)}/index.html" style="border:0;width:100%;height:600px"></iframe></body></html>`;

export async function startStandInLms(): Promise<StandInLms> {
  const courses = new Map<string, Map<string, Buffer>>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const play = /^\/play\/([^/]+)$/.exec(url.pathname);
    if (play) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PLAY_PAGE(decodeURIComponent(play[1]), url.searchParams.get('version') ?? '1.2', url.searchParams.get('learner') ?? '', url.searchParams.get('name') ?? ''));
      return;
    }
    const file = /^\/courses\/([^/]+)\/(.+)$/.exec(url.pathname);
    const data = file ? courses.get(decodeURIComponent(file[1]))?.get(file[2]) : undefined;
    if (!data) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file![2].endsWith('.html') ? 'text/html; charset=utf-8' : 'application/octet-stream' });
    res.end(data);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    install: (name, files) => void courses.set(name, files),
    playUrl: (name, learner, version = '1.2') => `${origin}/play/${encodeURIComponent(name)}?${new URLSearchParams({ learner: learner.id, name: learner.name, version })}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A SCORM 1.2 SCO script (for scoPackage) whose Finish passes the course with a score of 85. */
export const PASSING_SCO_12 = `API.LMSInitialize(''); window.finish = function () { API.LMSSetValue('cmi.core.score.raw', '85'); API.LMSSetValue('cmi.core.lesson_status', 'passed'); API.LMSCommit(''); API.LMSFinish(''); };`;

/** The frame of the generated SCO (scoPackage), however deep the LMS, package page, relay and player nest it. */
export function scoFrame(page: Page): Promise<Frame | undefined> {
  return waitFor<Frame | undefined>(() => Promise.resolve(page.frames().find((f) => f.url().includes('/sco/index.html'))), (f) => f !== undefined, 20_000);
}

/** Presses the SCO's Finish once it is ready (by script: the frame may sit several frames deep). */
export async function finishSco(page: Page): Promise<void> {
  // Each look is short and finds the frame again: a frame that was replaced meanwhile must not hold the wait for
  // Playwright's default 30 s (as a detached frame's locator would).
  const ready = await waitFor(
    async () => {
      const frame = page.frames().find((f) => f.url().includes('/sco/index.html'));
      const state = frame ? await frame.locator('#state').textContent({ timeout: 1000 }).catch(() => null) : null;
      return state === 'ready' ? frame : undefined;
    },
    (f) => f !== undefined,
    30_000,
  );
  if (!ready) throw new Error(`the course never became ready: ${page.frames().map((f) => f.url()).join(', ')}`);
  await ready.evaluate(() => (window as unknown as { finish(): void }).finish());
}
