import { BrowserContext, Page } from 'playwright-core';
import { importCourse } from '../support/courses';
import { openPage, playerTestBed, scoPackage, waitFor } from '../support/player';
import { call, TestServer } from '../support/test-server';

/** A PDF of `pages` pages, each with its number written on it (offsets computed, so pdf.js reads it without repair). */
function pdfOf(pages: number): Buffer {
  const objects: string[] = [];
  const kids = Array.from({ length: pages }, (_, i) => `${4 + i * 2} 0 R`).join(' ');
  objects.push('<< /Type /Catalog /Pages 2 0 R >>');
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`);
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  for (let i = 0; i < pages; i++) {
    const stream = `BT /F1 48 Tf 100 600 Td (Page ${i + 1}) Tj ET`;
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`);
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  }
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** `seconds` of silence as 8 kHz mono 16-bit PCM WAV. */
function wavOf(seconds: number): Buffer {
  const rate = 8000;
  const data = Buffer.alloc(rate * seconds * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

describe('player: course previews, launch options, PlayerLaunchType and media courses in a real browser', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const learner = { id: 'learner-o', firstName: 'Grace', lastName: 'Hopper' };
  const { createReg, link, progress } = playerTestBed(learner, (bed) => ({ s, app, context } = bed), async () => {
    // The SCO reports what the launch gave it: its query string, the learner and the language preference.
    const opts = await scoPackage(
      '2004',
      `API.Initialize('');
       document.getElementById('state').setAttribute('data-info', JSON.stringify({ search: location.search, learner: API.GetValue('cmi.learner_id'), language: API.GetValue('cmi.learner_preference.language') }));
       window.finish = function () {
         API.SetValue('cmi.completion_status', 'completed'); API.SetValue('cmi.success_status', 'passed'); API.SetValue('cmi.score.scaled', '0.9');
         API.SetValue('cmi.session_time', 'PT30S'); window.lastCommit = API.Commit(''); API.Terminate('');
       };`,
    );
    await importCourse(s.api, app, 'opts', { name: 'opts.zip', data: opts, type: 'application/zip' });
    await importCourse(s.api, app, 'handout', { name: 'handout.pdf', data: pdfOf(3), type: 'application/pdf' });
    await importCourse(s.api, app, 'tone', { name: 'tone.wav', data: wavOf(1), type: 'audio/wav' });
    // Media thresholds: a PDF whose pages count after 3 seconds, a recording complete at a quarter played.
    await importCourse(s.api, app, 'slow-pdf', { name: 'slow.pdf', data: pdfOf(2), type: 'application/pdf' });
    await importCourse(s.api, app, 'long-tone', { name: 'long.wav', data: wavOf(8), type: 'audio/wav' });
    for (const [courseId, settingId, value] of [['slow-pdf', 'PDFContentPageDurationThreshold', '3'], ['long-tone', 'MediaContentCompletionThreshold', '25']]) {
      expect((await call(`${s.api}/courses/${courseId}/configuration`, { method: 'POST', auth: app, json: { settings: [{ settingId, value }] } })).status).toBe(204);
    }
  });
  const open = (url: string) => openPage(context, url);
  const sco = (page: Page) => page.frameLocator('#lcds-sco');
  const history = async (id: string) => (await call(`${s.api}/registrations/${id}/launchHistory`, { auth: app })).body.launchHistory as unknown[];

  /** Launches a media course, plays it (muted: no user gesture in a test) and waits for the completion it reports. */
  const playToEnd = async (registrationId: string, courseId: string, element: 'video' | 'audio') => {
    await createReg(registrationId, courseId);
    const page = await open(await link(registrationId));
    const frame = await waitFor(() => Promise.resolve(page.frames().find((f) => f.url().endsWith('/media'))), (f) => f !== undefined);
    await frame!.waitForSelector(element);
    await frame!.evaluate(`(() => { const m = document.querySelector('${element}'); m.muted = true; return m.play(); })()`);
    const p = await waitFor(() => progress(registrationId), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p.registrationCompletion).toBe('COMPLETED');
    expect(p.totalSecondsTracked).toBeGreaterThan(0);
    await page.close();
  };

  const info = async (page: Page) => {
    const state = sco(page).locator('#state').filter({ hasText: 'ready' });
    await state.waitFor();
    return JSON.parse((await state.getAttribute('data-info'))!) as { search: string; learner: string; language: string };
  };

  it('runs a course preview: the SCO initializes and its commits are accepted, and nothing is recorded', async () => {
    const r = await call(`${s.api}/courses/opts/preview`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message' } });
    expect(r.status).toBe(200);
    expect(r.body.launchLink).toMatch(new RegExp(`^${s.baseUrl}/player/launch/`));
    const page = await open(r.body.launchLink);
    expect((await info(page)).learner).toBe('preview');
    const commits: number[] = [];
    page.on('response', (res) => {
      if (res.url().endsWith('/commit')) commits.push(res.status());
    });
    await sco(page).locator('#finish').click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    expect(await page.frames().find((f) => f.url().includes('/content/'))?.evaluate('window.lastCommit')).toBe('true');
    expect((await call(`${s.api}/registrations?courseId=opts`, { auth: app })).body.registrations).toEqual([]);
    expect((await call(`${s.api}/courses/opts?includeRegistrationCount=true`, { auth: app })).body.registrationCount).toBe(0);
    expect(commits.every((c) => c === 200)).toBe(true);
    await page.close();

    // A version preview of the same course, and the link is single-use like any launch link.
    const v = await call(`${s.api}/courses/opts/versions/1/preview`, { method: 'POST', auth: app, json: {} });
    expect(v.status).toBe(200);
    const again = await open(v.body.launchLink);
    await info(again);
    const reused = await context.newPage();
    expect((await reused.goto(v.body.launchLink))!.status()).toBe(410);
    await reused.close();
    await again.close();
  });

  it('culture sets the page language and the learner language preference; additionalvalues reach the content URL; cssUrl is linked', async () => {
    await createReg('r-opts', 'opts');
    const css = 'https://cdn.example.com/theme.css';
    const url = await link('r-opts', { culture: 'fr-FR', cssUrl: css, additionalvalues: [{ item: 'cohort', value: 'a&b' }, { item: 'mode', value: 'x y' }] });
    const page = await open(url);
    const got = await info(page);
    expect(got.language).toBe('fr-FR');
    expect(new URLSearchParams(got.search).get('cohort')).toBe('a&b');
    expect(new URLSearchParams(got.search).get('mode')).toBe('x y');
    expect(await page.locator('html').getAttribute('lang')).toBe('fr-FR');
    expect(await page.locator(`link[rel=stylesheet][href="${css}"]`).count()).toBe(1);
    await sco(page).locator('#finish').click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    // The player's own words are French too.
    expect(await page.locator('#lcds-done h1').textContent()).toBe('Vous avez quitté le cours');
    expect((await waitFor(() => progress('r-opts'), (v) => v.registrationCompletion === 'COMPLETED')).registrationCompletion).toBe('COMPLETED');
    await page.close();

    // Bad options are refused with a message naming the field.
    for (const [body, field] of [[{ culture: 'not a culture!' }, 'culture'], [{ cssUrl: 'javascript:alert(1)' }, 'cssUrl'], [{ additionalvalues: [{ value: 'x' }] }, 'additionalvalues']] as const) {
      const bad = await call(`${s.api}/registrations/r-opts/launchLink`, { method: 'POST', auth: app, json: { redirectOnExitUrl: 'message', ...body } });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(field);
    }
  });

  it('PlayerLaunchType NEW_WINDOW runs the SCO in a window of its own; commits and exit still work', async () => {
    await createReg('r-window', 'opts');
    expect(
      (await call(`${s.api}/registrations/r-window/configuration`, { method: 'POST', auth: app, json: { settings: [{ settingId: 'PlayerLaunchType', value: 'NEW_WINDOW' }] } })).status,
    ).toBe(204);
    const page = await open(await link('r-window'));
    const popup = (await waitFor(() => Promise.resolve(context.pages().find((p) => p.url().includes('/content/'))), (p) => p !== undefined))!;
    await page.locator('#lcds-elsewhere').waitFor({ state: 'visible' });
    expect(await page.locator('#lcds-elsewhere h1').textContent()).toMatch(/open in another window/);
    expect(await page.locator('#lcds-sco').isVisible()).toBe(false);
    await popup.locator('#state').filter({ hasText: 'ready' }).waitFor();
    await popup.locator('#finish').click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    const p = await waitFor(() => progress('r-window'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: { scaled: 0.9 }, totalSecondsTracked: 30 });
    await waitFor(() => Promise.resolve(popup.isClosed()), (closed) => closed);
    expect(popup.isClosed()).toBe(true);
    await page.close();

    // AFTER_CLICK waits for the learner; closing the course window ends the lesson with what was committed.
    await createReg('r-click', 'opts');
    await call(`${s.api}/registrations/r-click/configuration`, { method: 'POST', auth: app, json: { settings: [{ settingId: 'PlayerLaunchType', value: 'NEW_WINDOW_AFTER_CLICK' }] } });
    const clickPage = await open(await link('r-click'));
    await clickPage.locator('#lcds-open').waitFor({ state: 'visible' });
    expect(context.pages().filter((p) => p.url().includes('/content/'))).toHaveLength(0);
    const [second] = await Promise.all([clickPage.waitForEvent('popup'), clickPage.locator('#lcds-open').click()]);
    await second.locator('#state').filter({ hasText: 'ready' }).waitFor();
    await second.close();
    await clickPage.locator('#lcds-done').waitFor({ state: 'visible' });
    await waitFor(() => history('r-click'), (h) => h.length === 1 && (h[0] as { exitTime?: string }).exitTime !== undefined);
    expect(((await history('r-click'))[0] as { exitTime?: string }).exitTime).toBeDefined();
    await clickPage.close();
  });

  it('a PDF course completes once its last page has been shown for PDFContentPageDurationThreshold (5 s by default), with the time spent', async () => {
    await createReg('r-pdf', 'handout');
    let page = await open(await link('r-pdf'));
    let viewer = sco(page);
    await viewer.locator('#pages').filter({ hasText: 'Page 1 of 3' }).waitFor();
    // The viewer's first automatic save (seconds after it opens; longer on a loaded machine).
    const mid = await waitFor(() => progress('r-pdf'), (v) => v.registrationCompletion === 'INCOMPLETE', 20_000);
    expect(mid.registrationCompletion).toBe('INCOMPLETE');
    await viewer.locator('#next').click();
    await viewer.locator('#pages').filter({ hasText: 'Page 2 of 3' }).waitFor();
    // Leaving half way suspends; the next launch opens where the learner was.
    await page.close({ runBeforeUnload: true });
    const suspended = await waitFor(() => progress('r-pdf'), (v) => v.activityDetails?.runtime?.exit === 'suspend' || v.activityDetails?.children?.[0]?.runtime?.exit === 'suspend', 20_000);
    expect(suspended.registrationCompletion).toBe('INCOMPLETE');
    page = await open(await link('r-pdf'));
    viewer = sco(page);
    await viewer.locator('#pages').filter({ hasText: 'Page 2 of 3' }).waitFor();
    await viewer.locator('#next').click();
    await viewer.locator('#pages').filter({ hasText: 'Page 3 of 3' }).waitFor();
    const p = await waitFor(() => progress('r-pdf'), (v) => v.registrationCompletion === 'COMPLETED', 20_000);
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationCompletionAmount: 1 });
    expect(p.activityDetails.children.length === 0 ? p.activityDetails.runtime : p.activityDetails.children[0].runtime).toMatchObject({ completionStatus: 'completed', location: '3' });
    await page.close();
    const after = await waitFor(() => progress('r-pdf'), (v) => (v.totalSecondsTracked ?? 0) > 0);
    expect(after.totalSecondsTracked).toBeGreaterThan(0);
  });

  it('PDFContentPageDurationThreshold: the last page completes the course once it has stayed shown that long', async () => {
    await createReg('r-slow-pdf', 'slow-pdf');
    const page = await open(await link('r-slow-pdf'));
    const viewer = sco(page);
    await viewer.locator('#pages').filter({ hasText: 'Page 1 of 2' }).waitFor();
    await viewer.locator('#next').click();
    await viewer.locator('#pages').filter({ hasText: 'Page 2 of 2' }).waitFor();
    const shown = Date.now();
    const p = await waitFor(() => progress('r-slow-pdf'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p.registrationCompletion).toBe('COMPLETED');
    // Seen here a moment after the page counted from (without the threshold: within a commit's round trip).
    expect(Date.now() - shown).toBeGreaterThanOrEqual(2_500);
    await page.close();
  });

  it('MediaContentCompletionThreshold: an 8-second recording is complete once a quarter of it has played', async () => {
    const started = Date.now();
    await playToEnd('r-long-tone', 'long-tone', 'audio');
    // Playing to the end would take 8 seconds; a quarter takes 2.
    expect(Date.now() - started).toBeLessThan(6_500);
  });

  it('a video course completes when it has played to the end', async () => {
    // A one-second clip recorded by chromium itself (MP4 where this build can record it, WebM otherwise).
    const recorder = await context.newPage();
    await recorder.goto(`${s.baseUrl}/player/assets/media.js`);
    const clip = await recorder.evaluate<{ type: string; data: string }>(`new Promise((resolve) => {
      const canvas = document.createElement('canvas'); canvas.width = 64; canvas.height = 48;
      const g = canvas.getContext('2d'); let n = 0;
      const timer = setInterval(() => { g.fillStyle = n++ % 2 ? '#c00' : '#00c'; g.fillRect(0, 0, 64, 48); }, 50);
      const type = MediaRecorder.isTypeSupported('video/mp4') ? 'video/mp4' : 'video/webm';
      const rec = new MediaRecorder(canvas.captureStream(20), { mimeType: type }); const parts = [];
      rec.ondataavailable = (e) => parts.push(e.data);
      rec.onstop = async () => { clearInterval(timer); const bytes = new Uint8Array(await new Blob(parts).arrayBuffer()); let bin = ''; for (const b of bytes) bin += String.fromCharCode(b); resolve({ type, data: btoa(bin) }); };
      rec.start(); setTimeout(() => rec.stop(), 1000);
    })`);
    await recorder.close();
    const ext = clip.type === 'video/mp4' ? 'mp4' : 'webm';
    await importCourse(s.api, app, 'clip', { name: `clip.${ext}`, data: Buffer.from(clip.data, 'base64'), type: clip.type });
    await playToEnd('r-video', 'clip', 'video');
  });

  it('an audio course completes when it has played to the end', async () => {
    await playToEnd('r-audio', 'tone', 'audio');
  });
});
