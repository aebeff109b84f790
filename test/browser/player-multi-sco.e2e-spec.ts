import { BrowserContext, Frame, Page } from 'playwright-core';
import { fixture, importCourse } from '../support/courses';
import { openPage, playerTestBed, waitFor, zipOf } from '../support/player';
import { call, TestServer } from '../support/test-server';

const SCOS = [
  { id: 'sco-1', title: 'First lesson', raw: 70, time: '00:00:10' },
  { id: 'sco-2', title: 'Second lesson', raw: 80, time: '00:00:20' },
  { id: 'sco-3', title: 'Third lesson', raw: 90, time: '00:00:30' },
];

/**
 * A SCORM 1.2 package with three SCOs under one aggregation. Each SCO page finds the API, initialises, and on its
 * first visit reports completed, a score and a session time; every visit commits and finishes. The page title
 * records what the SCO found (its own stored status), so a revisit shows that each activity resumes its own data.
 */
async function threeScoPackage(): Promise<Buffer> {
  const manifest = `<?xml version="1.0"?><manifest identifier="gen-multi" version="1" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
<metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
<organizations default="org"><organization identifier="org"><title>Three lessons</title>
<item identifier="module-1"><title>Module One</title>
${SCOS.map((s) => `<item identifier="${s.id}" identifierref="res-${s.id}"><title>${s.title}</title></item>`).join('\n')}
</item></organization></organizations>
<resources>${SCOS.map((s) => `<resource identifier="res-${s.id}" type="webcontent" adlcp:scormtype="sco" href="${s.id}/index.html"><file href="${s.id}/index.html"/></resource>`).join('')}</resources></manifest>`;
  const files: Record<string, string> = {};
  files['imsmanifest.xml'] = manifest;
  for (const s of SCOS) {
    const page = `<!doctype html><html><head><meta charset="utf-8"><title>SCO</title><script>
function findAPI(w) { for (var i = 0; w && i < 10; i++) { if (w.API) return w.API; if (w.parent === w) break; w = w.parent; } return null; }
window.onload = function () {
  var API = findAPI(window);
  API.LMSInitialize('');
  var before = API.LMSGetValue('cmi.core.lesson_status');
  if (before !== 'completed') {
    API.LMSSetValue('cmi.core.score.raw', '${s.raw}'); API.LMSSetValue('cmi.core.score.min', '0'); API.LMSSetValue('cmi.core.score.max', '100');
    API.LMSSetValue('cmi.core.lesson_status', 'completed'); API.LMSSetValue('cmi.core.session_time', '${s.time}');
  }
  API.LMSCommit(''); API.LMSFinish('');
  document.title = '${s.id}:status=' + before;
  document.getElementById('state').textContent = 'done';
};
</script></head><body><h1>${s.title}</h1><p id="state">loading</p></body></html>`;
    files[`${s.id}/index.html`] = page;
  }
  return zipOf(files);
}

/**
 * A SCORM 2004 package with three SCOs whose organization has `controlMode` `modes`. SCO n runs `scripts[n]` after
 * Initialize (it may set adl.nav.request and Terminate).
 */
async function scorm2004Package(modes: string, scripts: string[]): Promise<Buffer> {
  const manifest = `<?xml version="1.0"?><manifest identifier="gen-multi04" version="1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
<metadata><schema>ADL SCORM</schema><schemaversion>2004 3rd Edition</schemaversion></metadata>
<organizations default="org"><organization identifier="org"><title>Three 2004 lessons</title>
${SCOS.map((s) => `<item identifier="${s.id}" identifierref="res-${s.id}"><title>${s.title}</title></item>`).join('\n')}
<imsss:sequencing><imsss:controlMode ${modes}/></imsss:sequencing>
</organization></organizations>
<resources>${SCOS.map((s) => `<resource identifier="res-${s.id}" type="webcontent" adlcp:scormType="sco" href="${s.id}/index.html"><file href="${s.id}/index.html"/></resource>`).join('')}</resources></manifest>`;
  const files: Record<string, string> = {};
  files['imsmanifest.xml'] = manifest;
  SCOS.forEach((s, i) => {
    const page = `<!doctype html><html><head><meta charset="utf-8"><title>SCO</title><script>
function findAPI(w) { for (var i = 0; w && i < 10; i++) { if (w.API_1484_11) return w.API_1484_11; if (w.parent === w) break; w = w.parent; } return null; }
window.onload = function () { var API = findAPI(window); API.Initialize(''); document.getElementById('state').textContent = 'ready'; ${scripts[i] ?? ''} };
</script></head><body><h1>${s.title}</h1><p id="state">loading</p></body></html>`;
    files[`${s.id}/index.html`] = page;
  });
  return zipOf(files);
}

/** Every leaf of an activity tree, in tree order. */
const leaves = (node: any): any[] => (node.children?.length ? node.children.flatMap(leaves) : [node]);

describe('player: multi-SCO courses (table of contents, Previous / Continue / Exit, per-activity runtime)', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const learner = { id: 'learner-m', firstName: 'Grace', lastName: 'Hopper' };

  const { createReg, link, progress } = playerTestBed(learner, (bed) => ({ s, app, context } = bed), async () => {
    await importCourse(s.api, app, 'multi12', { name: 'multi12.zip', data: await threeScoPackage(), type: 'application/zip' });
    // Its SCOs finish as they load: the course keeps each on screen after LMSFinish (the learner moves on).
    const stay = ['PlayerIntermediateScoSatisfiedNormalExitAction', 'PlayerIntermediateScoNotSatisfiedNormalExitAction', 'PlayerFinalScoCourseSatisfiedNormalExitAction', 'PlayerFinalScoCourseNotSatisfiedNormalExitAction'].map((settingId) => ({ settingId, value: 'DO_NOTHING' }));
    expect((await call(`${s.api}/courses/multi12/configuration`, { method: 'POST', auth: app, json: { settings: stay } })).status).toBe(204);
    await importCourse(s.api, app, 'golfmin12', fixture('scorm12-golf-runtime-minimum.zip'));
    const done = (request: string) => `API.SetValue('cmi.completion_status', 'completed'); API.SetValue('cmi.session_time', 'PT5S'); API.SetValue('adl.nav.request', '${request}'); API.Terminate('');`;
    await importCourse(s.api, app, 'nochoice04', { name: 'nochoice04.zip', data: await scorm2004Package('choice="false" flow="true"', [done('continue'), `window.finish = function () { ${done('exitAll')} };`]), type: 'application/zip' });
    await importCourse(s.api, app, 'noflow04', { name: 'noflow04.zip', data: await scorm2004Package('choice="true" flow="false"', []), type: 'application/zip' });
  });
  const open = (url: string) => openPage(context, url);
  /** The SCO frame once it shows content whose URL contains `part`. */
  const scoFrame = async (page: Page, part: string): Promise<Frame> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const f = (await (await page.$('#lcds-sco'))?.contentFrame()) ?? null;
      if (f && f.url().includes(part)) return f;
      if (Date.now() > deadline) throw new Error(`the SCO frame never showed ${part} (it shows ${f?.url()})`);
      await page.waitForTimeout(50);
    }
  };
  const contentUrl = async (page: Page) => ((await (await page.$('#lcds-sco'))?.contentFrame())?.url() ?? '');
  const tocItems = (page: Page) => page.locator('#lcds-toc .lcds-item');
  const item = (page: Page, id: string) => page.locator(`#lcds-toc .lcds-item[data-id="${id}"]`);

  it('runs a generated three-SCO SCORM 1.2 course with Continue, Previous and Exit, and rolls progress up', async () => {
    await createReg('m12', 'multi12');
    const page = await open(await link('m12'));
    const prev = page.getByRole('button', { name: 'Previous', exact: true });
    const next = page.getByRole('button', { name: 'Continue', exact: true });
    const exit = page.getByRole('button', { name: 'Exit', exact: true });

    // The table of contents: the aggregation as a heading, the three SCOs by title, the first one current.
    await expectCount(tocItems(page), 3);
    expect(await page.locator('#lcds-toc .lcds-title').allTextContents()).toEqual(SCOS.map((x) => x.title));
    expect(await page.locator('#lcds-toc .lcds-heading').allTextContents()).toEqual(['Module One']);
    expect(await item(page, 'sco-1').getAttribute('aria-current')).toBe('step');
    expect(await prev.isDisabled()).toBe(true);

    let frame = await scoFrame(page, 'sco-1/');
    await frame.locator('#state').filter({ hasText: 'done' }).waitFor();
    // After LMSFinish a SCORM 1.2 SCO stays on screen; the learner moves on.
    await page.locator('#lcds-toc .lcds-item[data-id="sco-1"][data-completion="COMPLETED"]').waitFor();
    expect(await contentUrl(page)).toContain('sco-1/');

    await next.click();
    frame = await scoFrame(page, 'sco-2/');
    await frame.locator('#state').filter({ hasText: 'done' }).waitFor();
    expect(await frame.title()).toBe('sco-2:status=not attempted');
    await page.locator('#lcds-toc .lcds-item[data-id="sco-2"][aria-current="step"][data-completion="COMPLETED"]').waitFor();

    await next.click();
    frame = await scoFrame(page, 'sco-3/');
    await frame.locator('#state').filter({ hasText: 'done' }).waitFor();
    await page.locator('#lcds-toc .lcds-item[data-id="sco-3"][data-completion="COMPLETED"]').waitFor();
    expect(await next.isDisabled()).toBe(true);
    expect(await page.locator('#lcds-toc .lcds-item[data-completion="COMPLETED"]').count()).toBe(3);

    // Previous goes back: sco-2 exited normally, so this is a new attempt on a fresh data model (it reports again).
    await prev.click();
    frame = await scoFrame(page, 'sco-2/');
    await frame.locator('#state').filter({ hasText: 'done' }).waitFor();
    expect(await frame.title()).toBe('sco-2:status=not attempted');
    expect(await item(page, 'sco-2').getAttribute('aria-current')).toBe('step');

    // Choosing an item in the table of contents launches it.
    await item(page, 'sco-1').click();
    frame = await scoFrame(page, 'sco-1/');
    await frame.locator('#state').filter({ hasText: 'done' }).waitFor();
    expect(await frame.title()).toBe('sco-1:status=not attempted');

    await page.locator('#lcds-next:not([disabled])').waitFor();
    await exit.click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });

    const p = await waitFor(() => progress('m12'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', totalSecondsTracked: 90 });
    expect(p.score.scaled).toBeCloseTo(0.8, 5);
    const acts = leaves(p.activityDetails);
    expect(acts.map((a) => a.id)).toEqual(SCOS.map((x) => x.id));
    SCOS.forEach((sco, i) => {
      expect(acts[i]).toMatchObject({ id: sco.id, title: sco.title, activityCompletion: 'COMPLETED', score: { scaled: sco.raw / 100 } });
      expect(acts[i].runtime).toMatchObject({ completionStatus: 'completed', scoreRaw: String(sco.raw) });
    });
    expect(acts.map((a) => a.timeTracked)).toEqual(['0000:00:20', '0000:00:40', '0000:00:30']);
    // sco-1 and sco-2 were launched twice, sco-3 once.
    expect(acts.map((a) => a.attempts)).toEqual([2, 2, 1]);
    const history = (await call(`${s.api}/registrations/m12/launchHistory`, { auth: app })).body.launchHistory;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ completionStatus: 'COMPLETED', totalSecondsTracked: 90 });
    await page.close();
  });

  it('SCORM 2004: honours controlMode choice="false" and the SCO\'s adl.nav.request (continue, then exitAll)', async () => {
    await createReg('nc04', 'nochoice04');
    const page = await open(await link('nc04'));
    await expectCount(tocItems(page), 3);
    // No choice: the table of contents only shows where the learner is.
    for (const sco of SCOS) expect(await item(page, sco.id).isDisabled()).toBe(true);
    // SCO 1 asks for continue before Terminate: the player moves to SCO 2 by itself.
    const second = await scoFrame(page, 'sco-2/');
    await second.locator('#state').filter({ hasText: 'ready' }).waitFor();
    await page.locator('#lcds-toc .lcds-item[data-id="sco-1"][data-completion="COMPLETED"]').waitFor();
    expect(await item(page, 'sco-2').getAttribute('aria-current')).toBe('step');
    // SCO 2 asks for exitAll: the player leaves the course.
    await second.evaluate('window.finish()');
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    const p = await waitFor(() => progress('nc04'), (v) => leaves(v.activityDetails).filter((a) => a.activityCompletion === 'COMPLETED').length === 2);
    expect(leaves(p.activityDetails).map((a) => a.activityCompletion)).toEqual(['COMPLETED', 'COMPLETED', 'UNKNOWN']);
    expect(p.totalSecondsTracked).toBe(10);
    await page.close();
  });

  it('SCORM 2004: controlMode flow="false" disables Continue and Previous; the table of contents still launches items', async () => {
    await createReg('nf04', 'noflow04');
    const page = await open(await link('nf04'));
    await expectCount(tocItems(page), 3);
    await (await scoFrame(page, 'sco-1/')).locator('#state').filter({ hasText: 'ready' }).waitFor();
    expect(await page.locator('#lcds-next').isDisabled()).toBe(true);
    expect(await page.locator('#lcds-prev').isDisabled()).toBe(true);
    await item(page, 'sco-3').click();
    await (await scoFrame(page, 'sco-3/')).locator('#state').filter({ hasText: 'ready' }).waitFor();
    expect(await item(page, 'sco-3').getAttribute('aria-current')).toBe('step');
    expect(await page.locator('#lcds-prev').isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Exit', exact: true }).click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    const p = await waitFor(() => progress('nf04'), (v) => leaves(v.activityDetails)[2].attempts === 1);
    expect(leaves(p.activityDetails).map((a) => a.attempts)).toEqual([1, 0, 1]);
    await page.close();
  });

  it('runs the 18-SCO golf course: table of contents, Continue twice, Exit; three activities attempted', async () => {
    await createReg('golfmin', 'golfmin12');
    const page = await open(await link('golfmin'));
    await expectCount(tocItems(page), 18);
    const next = page.getByRole('button', { name: 'Continue', exact: true });
    await waitFor(() => contentUrl(page), (u) => u.includes('/content/'));
    let url = await contentUrl(page);
    for (let i = 0; i < 2; i++) {
      await page.locator('#lcds-next:not([disabled])').waitFor();
      await next.click();
      const changed = await waitFor(() => contentUrl(page), (u) => u.includes('/content/') && u !== url);
      expect(changed).not.toBe(url);
      url = changed;
      await page.locator('#lcds-next:not([disabled])').waitFor();
    }
    await page.getByRole('button', { name: 'Exit', exact: true }).click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    const p = await waitFor(() => progress('golfmin'), (v) => leaves(v.activityDetails).filter((a) => a.attempts > 0).length === 3);
    const attempted = leaves(p.activityDetails).filter((a) => a.attempts > 0);
    expect(attempted.map((a) => a.id)).toEqual(['playing_playing_item', 'playing_par_item', 'playing_scoring_item']);
    expect(p.registrationCompletion).not.toBe('COMPLETED');
    await page.close();
  });
});

/** Minimal `expect(locator).toHaveCount(n)` with polling (jest has no playwright matchers). */
async function expectCount(locator: ReturnType<Page['locator']>, n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await locator.count()) !== n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(await locator.count()).toBe(n);
}
