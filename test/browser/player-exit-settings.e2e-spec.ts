import { BrowserContext, Frame, Page } from 'playwright-core';
import { importCourse } from '../support/courses';
import { openPage, playerTestBed, waitFor, zipOf } from '../support/player';
import { call, TestServer } from '../support/test-server';

/** The version-specific parts of a generated package: manifest namespaces and schema version, the API's name and its calls. */
const FLAVOURS = {
  '1.2': {
    ns: 'xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"',
    schema: '1.2',
    scormType: 'adlcp:scormtype',
    api: 'API',
    // window.finish(status, exit): lesson_status and cmi.core.exit, then LMSFinish, as a SCO's own "done" button would.
    script: `window.finish = function (status, exit) { API.LMSSetValue('cmi.core.lesson_status', status); API.LMSSetValue('cmi.core.exit', exit); API.LMSFinish(''); };
window.save = function (location) { API.LMSSetValue('cmi.core.lesson_location', location); API.LMSCommit(''); };
window.onload = function () { API.LMSInitialize(''); document.getElementById('state').textContent = 'ready'; };`,
  },
  '2004': {
    ns: 'xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"',
    schema: '2004 3rd Edition',
    scormType: 'adlcp:scormType',
    api: 'API_1484_11',
    // window.leave(exit): cmi.exit, then Terminate without a navigation request.
    script: `window.leave = function (exit) { API.SetValue('cmi.exit', exit); API.Terminate(''); };
window.onload = function () { API.Initialize(''); document.getElementById('state').textContent = 'ready'; };`,
  },
};

/** A course of SCOs `ids` (SCORM 2004: sequenced by the default rules); each SCO initialises and waits for the test. */
async function scoCourse(version: '1.2' | '2004', ids: string[]): Promise<Buffer> {
  const f = FLAVOURS[version];
  const manifest = `<?xml version="1.0"?><manifest identifier="exit-${version}" version="1" ${f.ns}>
<metadata><schema>ADL SCORM</schema><schemaversion>${f.schema}</schemaversion></metadata>
<organizations default="org"><organization identifier="org"><title>Exit settings</title>
${ids.map((id) => `<item identifier="${id}" identifierref="res-${id}"><title>Lesson ${id}</title></item>`).join('\n')}
</organization></organizations>
<resources>${ids.map((id) => `<resource identifier="res-${id}" type="webcontent" ${f.scormType}="sco" href="${id}/index.html"><file href="${id}/index.html"/></resource>`).join('')}</resources></manifest>`;
  const files: Record<string, string> = { 'imsmanifest.xml': manifest };
  for (const id of ids) {
    files[`${id}/index.html`] = `<!doctype html><html><head><meta charset="utf-8"><title>${id}</title><script>
function findAPI(w) { for (var i = 0; w && i < 10; i++) { if (w.${f.api}) return w.${f.api}; if (w.parent === w) break; w = w.parent; } return null; }
var API = findAPI(window);
${f.script}
</script></head><body><h1>${id}</h1><p id="state">loading</p></body></html>`;
  }
  return zipOf(files);
}

describe('player: exit settings (Player…ExitAction, PlayerLogoutCausesPlayerExit, PlayerReturnToLmsAction, RedirectOnExitUrl) and concurrent launches', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const { createReg, link, progress } = playerTestBed({ id: 'learner-exit' }, (bed) => ({ s, app, context } = bed), async () => {
    for (const id of ['exit-defaults', 'exit-course', 'exit-reg']) await importCourse(s.api, app, id, { name: `${id}.zip`, data: await scoCourse('1.2', ['sco-1', 'sco-2', 'sco-3']), type: 'application/zip' });
    await importCourse(s.api, app, 'logout04', { name: 'logout04.zip', data: await scoCourse('2004', ['sco-a', 'sco-b']), type: 'application/zip' });
  });
  const configure = async (path: string, settings: Record<string, string>) => {
    const r = await call(`${s.api}/${path}/configuration`, { method: 'POST', auth: app, json: { settings: Object.entries(settings).map(([settingId, value]) => ({ settingId, value })) } });
    expect(r.status).toBe(204);
  };
  /** The SCO frame once it runs SCO `id` and its page is ready. */
  const sco = async (page: Page, id: string): Promise<Frame> => {
    const frame = await waitFor(
      async () => (await (await page.$('#lcds-sco'))?.contentFrame()) ?? null,
      (f) => !!f && f.url().includes(`/${id}/`),
    );
    if (!frame?.url().includes(`/${id}/`)) throw new Error(`the player never ran ${id}`);
    await frame.locator('#state').filter({ hasText: 'ready' }).waitFor();
    return frame;
  };
  /** The message the player writes where the SCO was (DISPLAY_MESSAGE). */
  const exitedMessage = async (page: Page) => {
    const frame = await (await page.$('#lcds-sco'))!.contentFrame();
    await frame!.locator('#lcds-sco-exited').waitFor();
    return frame!.locator('#lcds-sco-exited').textContent();
  };
  const finish = (frame: Frame, status: string, exit: string) => frame.evaluate(([st, ex]) => (window as unknown as { finish(a: string, b: string): void }).finish(st, ex), [status, exit]);

  it('defaults: a middle SCO that exits shows a message in its place; the last one, the course satisfied, leaves the course', async () => {
    await createReg('ex-def', 'exit-defaults');
    const page = await openPage(context, await link('ex-def'));
    await finish(await sco(page, 'sco-1'), 'completed', '');
    // PlayerIntermediateScoNotSatisfiedNormalExitAction = DISPLAY_MESSAGE: the learner picks what follows.
    expect(await exitedMessage(page)).toBe('This part of the course has ended. Choose where to go next from the table of contents, or exit.');
    expect(await page.locator('#lcds-done').isVisible()).toBe(false);
    await page.locator('#lcds-next:not([disabled])').click();
    await finish(await sco(page, 'sco-2'), 'completed', '');
    await exitedMessage(page);
    await page.locator('#lcds-next:not([disabled])').click();
    // The last SCO completes the course: PlayerFinalScoCourseSatisfiedNormalExitAction = EXIT_COURSE.
    await finish(await sco(page, 'sco-3'), 'completed', '');
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    const p = await waitFor(() => progress('ex-def'), (v) => v.registrationCompletion === 'COMPLETED');
    expect(p.registrationCompletion).toBe('COMPLETED');
    await page.close();
  });

  it('course and registration settings: GO_TO_NEXT_SCO launches the next SCO, EXIT_COURSE_AFTER_CONFIRM asks, DO_NOTHING leaves the SCO on screen', async () => {
    await configure('courses/exit-course', { PlayerIntermediateScoNotSatisfiedNormalExitAction: 'GO_TO_NEXT_SCO', PlayerIntermediateScoNotSatisfiedSuspendExitAction: 'EXIT_COURSE_AFTER_CONFIRM' });
    await createReg('ex-next', 'exit-course');
    const page = await openPage(context, await link('ex-next'));
    // Incomplete, normal exit: the next SCO starts by itself.
    await finish(await sco(page, 'sco-1'), 'incomplete', '');
    await sco(page, 'sco-2');
    expect(await page.locator('#lcds-toc .lcds-item[data-id="sco-2"]').getAttribute('aria-current')).toBe('step');
    // Suspend: the learner is asked (openPage accepts dialogs) and leaves the course.
    const asked: string[] = [];
    page.on('dialog', (d) => asked.push(d.message()));
    await finish(await sco(page, 'sco-2'), 'incomplete', 'suspend');
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    expect(asked).toEqual(['You have finished this part of the course. Leave the course now?']);
    await page.close();

    // The registration's own value wins over the course's.
    await createReg('ex-still', 'exit-course');
    await configure('registrations/ex-still', { PlayerIntermediateScoNotSatisfiedNormalExitAction: 'DO_NOTHING' });
    const second = await openPage(context, await link('ex-still'));
    const frame = await sco(second, 'sco-1');
    await finish(frame, 'incomplete', '');
    await waitFor(() => progress('ex-still'), (v) => v.activityDetails.children[0].activityCompletion === 'INCOMPLETE');
    await second.locator('#lcds-next:not([disabled])').waitFor();
    expect(await frame.locator('h1').textContent()).toBe('sco-1');
    expect(await second.locator('#lcds-sco').evaluate((f: HTMLIFrameElement) => f.contentDocument?.getElementById('lcds-sco-exited'))).toBeNull();
    await second.close();
  });

  it('a course preview follows the course’s exit settings as a launch does: GO_TO_NEXT_SCO launches the next SCO, RedirectOnExitUrl is where it ends', async () => {
    await importCourse(s.api, app, 'exit-preview', { name: 'exit-preview.zip', data: await scoCourse('1.2', ['sco-1', 'sco-2']), type: 'application/zip' });
    const target = `${s.baseUrl}/api/v2/ping?after=preview`;
    await configure('courses/exit-preview', { PlayerIntermediateScoNotSatisfiedNormalExitAction: 'GO_TO_NEXT_SCO', RedirectOnExitUrl: target });
    const r = await call(`${s.api}/courses/exit-preview/preview`, { method: 'POST', auth: app, json: {} });
    expect(r.status).toBe(200);
    const page = await openPage(context, r.body.launchLink as string);
    await finish(await sco(page, 'sco-1'), 'incomplete', '');
    await sco(page, 'sco-2');
    // The last SCO, not satisfied, normal exit: EXIT_COURSE (the default), to the course's RedirectOnExitUrl.
    await finish(await sco(page, 'sco-2'), 'incomplete', '');
    await waitFor(() => Promise.resolve(page.url()), (u) => u === target);
    expect(page.url()).toBe(target);
    await page.close();
  });

  it('the final SCO exiting, course not satisfied: time-out leaves by default, the registration’s DISPLAY_MESSAGE shows a message, EXIT_COURSE goes to the RedirectOnExitUrl setting', async () => {
    await createReg('ex-final', 'exit-reg');
    let page = await openPage(context, await link('ex-final', { startSco: 'sco-3' }));
    await finish(await sco(page, 'sco-3'), 'incomplete', 'time-out');
    // PlayerFinalScoCourseNotSatisfiedTimeoutExitAction defaults to EXIT_COURSE: the player leaves.
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    await page.close();

    const target = `${s.baseUrl}/api/v2/ping?left=ex-final`;
    await configure('registrations/ex-final', { PlayerFinalScoCourseNotSatisfiedTimeoutExitAction: 'DISPLAY_MESSAGE', PlayerFinalScoCourseNotSatisfiedLogoutExitAction: 'EXIT_COURSE', RedirectOnExitUrl: target });
    page = await openPage(context, await link('ex-final', { startSco: 'sco-3', redirectOnExitUrl: '' }));
    await finish(await sco(page, 'sco-3'), 'incomplete', 'time-out');
    await exitedMessage(page);
    await page.locator('#lcds-toc .lcds-item[data-id="sco-3"]:not([disabled])').click();
    // Logout: EXIT_COURSE, and the link named no redirectOnExitUrl: the setting's URL.
    await finish(await sco(page, 'sco-3'), 'incomplete', 'logout');
    await waitFor(() => Promise.resolve(page.url()), (u) => u === target);
    expect(page.url()).toBe(target);
    await page.close();
  });

  it('concurrent launch detection: the older window says the course was launched again and stops saving; with ForceExitConcurrentLaunches it leaves', async () => {
    await createReg('ex-twice', 'exit-defaults');
    const older = await openPage(context, await link('ex-twice'));
    const frame = await sco(older, 'sco-1');
    const newer = await openPage(context, await link('ex-twice'));
    await sco(newer, 'sco-1');
    await frame.evaluate(() => (window as unknown as { save(l: string): void }).save('from the older window'));
    await older.locator('#lcds-message').filter({ hasText: 'The course was launched again in another window.' }).waitFor();
    const p = await progress('ex-twice');
    expect(p.activityDetails.children[0].runtime.location ?? '').not.toBe('from the older window');
    await older.close();
    await newer.close();

    await createReg('ex-force', 'exit-defaults');
    await configure('registrations/ex-force', { ForceExitConcurrentLaunches: 'true' });
    const first = await openPage(context, await link('ex-force'));
    const firstSco = await sco(first, 'sco-1');
    const second = await openPage(context, await link('ex-force'));
    await sco(second, 'sco-1');
    await firstSco.evaluate(() => (window as unknown as { save(l: string): void }).save('x'));
    await first.locator('#lcds-done').waitFor({ state: 'visible' });
    expect(await second.locator('#lcds-done').isVisible()).toBe(false);
    await first.close();
    await second.close();
  });

  it('SCORM 2004: cmi.exit "logout" without a navigation request leaves the course (PlayerLogoutCausesPlayerExit), unless set to NO', async () => {
    await createReg('lo-yes', 'logout04');
    const page = await openPage(context, await link('lo-yes'));
    await (await sco(page, 'sco-a')).evaluate(() => (window as unknown as { leave(e: string): void }).leave('logout'));
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    await page.close();

    await createReg('lo-no', 'logout04');
    await configure('registrations/lo-no', { PlayerLogoutCausesPlayerExit: 'NO' });
    const stays = await openPage(context, await link('lo-no'));
    await (await sco(stays, 'sco-a')).evaluate(() => (window as unknown as { leave(e: string): void }).leave('logout'));
    await waitFor(() => progress('lo-no'), (v) => v.activityDetails.children[0].runtime?.exit === 'logout');
    // The page ran its exit handling as the SCO terminated, before that commit landed: nothing ended.
    expect(await stays.evaluate(() => (window as unknown as { lcdsPlayer: { state(): unknown } }).lcdsPlayer.state())).toMatchObject({ finished: false, busy: false });
    expect(await stays.locator('#lcds-done').isVisible()).toBe(false);
    await stays.close();
  });

  it('PlayerReturnToLmsAction: SuspendAll makes the Exit button suspend the course (no Suspend button beside it); Legacy keeps both', async () => {
    await createReg('rt-legacy', 'logout04');
    const legacy = await openPage(context, await link('rt-legacy'));
    await sco(legacy, 'sco-a');
    await legacy.locator('#lcds-exit:not([disabled])').waitFor();
    expect(await legacy.locator('#lcds-suspend').isVisible()).toBe(true);
    await legacy.close();

    await createReg('rt-suspend', 'logout04');
    await configure('registrations/rt-suspend', { PlayerReturnToLmsAction: 'SuspendAll' });
    const page = await openPage(context, await link('rt-suspend'));
    await sco(page, 'sco-a');
    await page.locator('#lcds-exit:not([disabled])').click();
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    expect(await page.locator('#lcds-suspend').isVisible()).toBe(false);
    const p = await waitFor(() => progress('rt-suspend'), (v) => v.activityDetails.suspended === true);
    expect(p.activityDetails.suspended).toBe(true);
    await page.close();
  });
});
