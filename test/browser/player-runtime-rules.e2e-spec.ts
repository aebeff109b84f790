import { BrowserContext, Page } from 'playwright-core';
import { fixture, importCourse } from '../support/courses';
import { openPage, playerTestBed, scoPackage, waitFor, zipOf } from '../support/player';
import { call, TestServer } from '../support/test-server';

interface Sco {
  id: string;
  title: string;
  /** Runs once the page found the API (`API`), on load. */
  onload: string;
  /** Runs when the page unloads. */
  onunload?: string;
  /** adlcp:masteryscore of the item. */
  mastery?: number;
}

/** A SCORM 1.2 package with these SCOs under one organization; each page finds the API in its parents or its opener's. */
async function scorm12Package(scos: Sco[]): Promise<Buffer> {
  const manifest = `<?xml version="1.0"?><manifest identifier="gen-rules" version="1" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
<metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
<organizations default="org"><organization identifier="org"><title>Generated</title>
${scos.map((s) => `<item identifier="${s.id}" identifierref="res-${s.id}"><title>${s.title}</title>${s.mastery !== undefined ? `<adlcp:masteryscore>${s.mastery}</adlcp:masteryscore>` : ''}</item>`).join('\n')}
</organization></organizations>
<resources>${scos.map((s) => `<resource identifier="res-${s.id}" type="webcontent" adlcp:scormtype="sco" href="${s.id}/index.html"><file href="${s.id}/index.html"/></resource>`).join('')}</resources></manifest>`;
  const files: Record<string, string> = { 'imsmanifest.xml': manifest };
  for (const s of scos) {
    files[`${s.id}/index.html`] = `<!doctype html><html><head><meta charset="utf-8"><title>${s.id}</title><script>
function findAPI(w) { for (var i = 0; w && i < 10; i++) { if (w.API) return w.API; if (w.parent === w) break; w = w.parent; } return null; }
var API = findAPI(window) || (window.opener ? findAPI(window.opener) : null);
window.onload = function () { ${s.onload} document.getElementById('state').textContent = 'ready'; };
window.onunload = function () { ${s.onunload ?? ''} };
</script></head><body><h1>${s.title}</h1><p id="state">loading</p></body></html>`;
  }
  return zipOf(files);
}

interface Node {
  id: string;
  attempts: number;
  activityCompletion: string;
  activitySuccess: string;
  score?: { scaled?: number };
  runtime?: { completionStatus?: string; scoreRaw?: string; learnerPreference?: Record<string, unknown> };
  children?: Node[];
}
const leaves = (n: Node): Node[] => (n.children?.length ? n.children.flatMap(leaves) : [n]);

describe('player: SCORM runtime rules in a real browser (SCOs without a status, learner preferences, multi-SCO in a new window)', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const learner = { id: 'learner-rules', firstName: 'Ada', lastName: 'Lovelace' };
  const { createReg, link, progress } = playerTestBed(learner, (bed) => ({ s, app, context } = bed), async () => {
    await importCourse(s.api, app, 'golfmin', fixture('scorm12-golf-runtime-minimum.zip'));
    // A SCO that reports a raw score but no status, under a mastery score of 80.
    await importCourse(s.api, app, 'mastery12', {
      name: 'mastery12.zip',
      data: await scorm12Package([{ id: 'quiz', title: 'Quiz', mastery: 80, onload: `API.LMSInitialize(''); API.LMSSetValue('cmi.core.score.raw', '90'); API.LMSFinish('');` }]),
      type: 'application/zip',
    });
    // The same that never calls LMSFinish: the learner closes the tab.
    await importCourse(s.api, app, 'mastery12away', {
      name: 'mastery12away.zip',
      data: await scorm12Package([{ id: 'quiz', title: 'Quiz', mastery: 80, onload: `API.LMSInitialize(''); API.LMSSetValue('cmi.core.score.raw', '60'); API.LMSCommit('');` }]),
      type: 'application/zip',
    });
    // SCOs that report what they find of the learner preferences, then set their own (unless some are set) and finish.
    await importCourse(s.api, app, 'prefs12', {
      name: 'prefs12.zip',
      data: await scoPackage(
        '1.2',
        `API.LMSInitialize('');
         var found = {}; ['audio', 'language', 'speed', 'text'].forEach(function (k) { found[k] = API.LMSGetValue('cmi.student_preference.' + k); });
         document.getElementById('state').setAttribute('data-info', JSON.stringify(found));
         if (!found.language) { API.LMSSetValue('cmi.student_preference.language', 'de-DE'); API.LMSSetValue('cmi.student_preference.audio', '50'); API.LMSSetValue('cmi.student_preference.speed', '-20'); API.LMSSetValue('cmi.student_preference.text', '1'); }
         API.LMSSetValue('cmi.core.lesson_status', 'incomplete'); API.LMSCommit(''); API.LMSFinish('');`,
      ),
      type: 'application/zip',
    });
    await importCourse(s.api, app, 'prefs2004', {
      name: 'prefs2004.zip',
      data: await scoPackage(
        '2004',
        `API.Initialize('');
         var found = {}; ['audio_level', 'language', 'delivery_speed', 'audio_captioning'].forEach(function (k) { found[k] = API.GetValue('cmi.learner_preference.' + k); });
         document.getElementById('state').setAttribute('data-info', JSON.stringify(found));
         if (!found.language) { API.SetValue('cmi.learner_preference.language', 'es'); API.SetValue('cmi.learner_preference.audio_level', '0.5'); API.SetValue('cmi.learner_preference.delivery_speed', '1.5'); API.SetValue('cmi.learner_preference.audio_captioning', '-1'); }
         API.SetValue('cmi.completion_status', 'incomplete'); API.Commit(''); API.Terminate('');`,
      ),
      type: 'application/zip',
    });
    // Three SCOs that report completed and a score on load, commit, and finish only when they are unloaded.
    await importCourse(s.api, app, 'window12', {
      name: 'window12.zip',
      data: await scorm12Package(
        [70, 80, 90].map((raw, i) => ({
          id: `sco-${i + 1}`,
          title: `Lesson ${i + 1}`,
          onload: `API.LMSInitialize(''); API.LMSSetValue('cmi.core.score.raw', '${raw}'); API.LMSSetValue('cmi.core.score.max', '100'); API.LMSSetValue('cmi.core.lesson_status', 'completed'); API.LMSSetValue('cmi.core.session_time', '00:00:1${i}'); API.LMSCommit('');`,
          onunload: `API.LMSFinish('');`,
        })),
      ),
      type: 'application/zip',
    });
  });
  const open = (url: string) => openPage(context, url);
  const contentUrl = async (page: Page) => (await (await page.$('#lcds-sco'))?.contentFrame())?.url() ?? '';
  const history = async (id: string) => (await call(`${s.api}/registrations/${id}/launchHistory`, { auth: app })).body.launchHistory as Array<{ exitTime?: string }>;

  it('SCORM 1.2 "minimum" SCOs (LMSInitialize and LMSFinish only) are completed when they finish: all 18 golf SCOs walked complete the course', async () => {
    await createReg('golfmin', 'golfmin');
    const page = await open(await link('golfmin'));
    const next = page.getByRole('button', { name: 'Continue', exact: true });
    let url = await waitFor(() => contentUrl(page), (u) => u.includes('/content/'));
    // The SCO has called LMSInitialize (a SCO left before it ran stays as it was).
    const running = () => waitFor(() => page.evaluate('window.lcdsPlayer.api.currentState'), (v) => v === 1, 30_000);
    for (let i = 0; i < 17; i++) {
      expect(await running()).toBe(1);
      await page.locator('#lcds-next:not([disabled])').waitFor();
      await next.click();
      url = await waitFor(() => contentUrl(page), (u) => u.includes('/content/') && u !== url, 30_000);
      // The SCO left behind is marked completed in the table of contents as soon as its final commit is applied.
      await page.locator('#lcds-toc .lcds-item[data-completion="COMPLETED"]').nth(i).waitFor();
    }
    expect(await running()).toBe(1);
    await page.locator('#lcds-exit:not([disabled])').waitFor();
    await page.getByRole('button', { name: 'Exit', exact: true }).click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    const p = await waitFor(() => progress('golfmin'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p.registrationCompletion).toBe('COMPLETED');
    const acts = leaves(p.activityDetails);
    expect(acts).toHaveLength(18);
    for (const a of acts) {
      expect(a).toMatchObject({ attempts: 1, activityCompletion: 'COMPLETED', activitySuccess: 'UNKNOWN' });
      expect(a.runtime?.completionStatus).toBe('completed');
    }
    await page.close();
  }, 120_000);

  it('a SCORM 1.2 SCO that finishes with a raw score and no status is completed, then passed or failed by its mastery score', async () => {
    await createReg('mastery', 'mastery12');
    const page = await open(await link('mastery'));
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    const p = await waitFor(() => progress('mastery'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', score: { scaled: 0.9 } });
    expect(leaves(p.activityDetails)[0].runtime?.completionStatus).toBe('completed');
    await page.close();

    // Navigating away counts as finishing: completed, and failed under the mastery score.
    await createReg('mastery-away', 'mastery12away');
    const away = await open(await link('mastery-away'));
    await away.frameLocator('#lcds-sco').locator('#state').filter({ hasText: 'ready' }).waitFor();
    await waitFor(() => progress('mastery-away'), (v) => leaves(v.activityDetails)[0].runtime?.scoreRaw === '60');
    expect((await progress('mastery-away')).registrationCompletion).toBe('UNKNOWN');
    await away.close({ runBeforeUnload: true });
    const q = await waitFor(() => progress('mastery-away'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(q).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'FAILED', score: { scaled: 0.6 } });
  });

  it.each([
    { course: 'prefs12', stored: { language: 'de-DE', audioLevel: 50, deliverySpeed: -20, audioCaptioning: 1 }, found: { audio: '50', language: 'de-DE', speed: '-20', text: '1' } },
    { course: 'prefs2004', stored: { language: 'es', audioLevel: 0.5, deliverySpeed: 1.5, audioCaptioning: -1 }, found: { audio_level: '0.5', language: 'es', delivery_speed: '1.5', audio_captioning: '-1' } },
  ])('$course: the learner preferences a SCO sets are stored, shown in the runtime data and given back on the next launch', async ({ course, stored, found }) => {
    const reg = `r-${course}`;
    await createReg(reg, course);
    const launch = async (extra: Record<string, unknown> = {}) => {
      const page = await open(await link(reg, extra));
      const frame = page.frameLocator('#lcds-sco');
      // The SCO finishes at once: the player hides it, so wait for its report in the page, not on screen.
      const state = frame.locator('#state').filter({ hasText: 'ready' });
      await state.waitFor({ state: 'attached' });
      const info = JSON.parse((await state.getAttribute('data-info'))!) as Record<string, string>;
      await page.locator('#lcds-done').waitFor({ state: 'visible' });
      await page.close();
      await waitFor(() => history(reg), (h) => h.every((x) => x.exitTime !== undefined));
      return info;
    };
    const first = await launch();
    expect(first.language).toBe('');
    const p = await waitFor(() => progress(reg), (v) => leaves(v.activityDetails)[0].runtime?.learnerPreference?.language !== undefined);
    expect(leaves(p.activityDetails)[0].runtime?.learnerPreference).toEqual(stored);
    // The next launch starts from them, and a link's culture does not replace the language the SCO chose.
    expect(await launch({ culture: 'fr-FR' })).toEqual(found);
    expect(leaves((await progress(reg)).activityDetails)[0].runtime?.learnerPreference).toEqual(stored);
  });

  it('PlayerLaunchType NEW_WINDOW runs a multi-SCO SCORM 1.2 course in one window of its own: Continue across SCOs, Exit, progress rolled up', async () => {
    await createReg('r-window12', 'window12');
    expect(
      (await call(`${s.api}/registrations/r-window12/configuration`, { method: 'POST', auth: app, json: { settings: [{ settingId: 'PlayerLaunchType', value: 'NEW_WINDOW' }] } })).status,
    ).toBe(204);
    const page = await open(await link('r-window12'));
    const popup = (await waitFor(() => Promise.resolve(context.pages().find((p) => p.url().includes('/content/'))), (p) => p !== undefined))!;
    expect(popup).toBeDefined();
    await page.locator('#lcds-elsewhere').waitFor({ state: 'visible' });
    expect(await page.locator('#lcds-sco').isVisible()).toBe(false);
    const next = page.getByRole('button', { name: 'Continue', exact: true });
    for (let i = 1; i <= 3; i++) {
      await waitFor(() => Promise.resolve(popup.url()), (u) => u.includes(`/sco-${i}/`));
      expect(popup.url()).toContain(`/sco-${i}/`);
      await popup.locator('#state').filter({ hasText: 'ready' }).waitFor();
      await page.locator(`#lcds-toc .lcds-item[data-id="sco-${i}"][aria-current="step"][data-completion="COMPLETED"]`).waitFor();
      if (i < 3) {
        await page.locator('#lcds-next:not([disabled])').waitFor();
        await next.click();
      }
    }
    // Still one course window: the SCOs replaced each other in it.
    expect(context.pages().filter((p) => p.url().includes('/content/'))).toHaveLength(1);
    await page.locator('#lcds-exit:not([disabled])').waitFor();
    await page.getByRole('button', { name: 'Exit', exact: true }).click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    await waitFor(() => Promise.resolve(popup.isClosed()), (closed) => closed);
    expect(popup.isClosed()).toBe(true);

    const p = await waitFor(() => progress('r-window12'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', totalSecondsTracked: 33 });
    expect(p.score.scaled).toBeCloseTo(0.8, 5);
    const acts = leaves(p.activityDetails);
    expect(acts.map((a) => [a.id, a.attempts, a.activityCompletion])).toEqual([
      ['sco-1', 1, 'COMPLETED'],
      ['sco-2', 1, 'COMPLETED'],
      ['sco-3', 1, 'COMPLETED'],
    ]);
    const h = await waitFor(() => history('r-window12'), (x) => x.length === 1 && x[0].exitTime !== undefined);
    expect(h).toHaveLength(1);
    expect(h[0]).toMatchObject({ completionStatus: 'COMPLETED', totalSecondsTracked: 33 });
    await page.close();
  });
});
