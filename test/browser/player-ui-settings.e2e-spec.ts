import { BrowserContext, Frame, Page } from 'playwright-core';
import { importCourse } from '../support/courses';
import { navUi, playerTestBed, scoPackage, waitFor, zipOf } from '../support/player';
import { call, TestServer } from '../support/test-server';

/**
 * The player UI settings (PlayerShow*, PlayerCourseStructure*, PlayerEnable*Nav, PlayerStatusDisplayPreference,
 * PlayerPreventRightClick, PlayerRequired*, PlayerDesired*, PlayerScoLaunchType), each set on a registration and read
 * at launch: the test asserts what the learner sees. LCDS_TEST_SCREENSHOTS=1 saves screenshots to /tmp.
 */
const SCO12 = (id: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${id}</title><script>
function findAPI(w) { for (var i = 0; w && i < 10; i++) { if (w.API) return w.API; if (w.parent === w) break; w = w.parent; } return null; }
var API = findAPI(window) || (window.opener ? findAPI(window.opener) : null);
window.onload = function () { API.LMSInitialize(''); window.ready = true; };
</script></head><body><h1 id="state">Lesson ${id}</h1></body></html>`;

/** A SCORM 1.2 course of three SCOs (one, two, three). */
async function threeLessons(): Promise<Buffer> {
  const ids = ['one', 'two', 'three'];
  const manifest = `<?xml version="1.0"?><manifest identifier="ui3" version="1" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
<metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
<organizations default="org"><organization identifier="org"><title>Three lessons</title>
${ids.map((id) => `<item identifier="${id}" identifierref="res-${id}"><title>Lesson ${id}</title></item>`).join('\n')}
</organization></organizations>
<resources>${ids.map((id) => `<resource identifier="res-${id}" type="webcontent" adlcp:scormtype="sco" href="${id}/index.html"><file href="${id}/index.html"/></resource>`).join('')}</resources></manifest>`;
  return zipOf({ 'imsmanifest.xml': manifest, ...Object.fromEntries(ids.map((id) => [`${id}/index.html`, SCO12(id)])) });
}

describe('player: UI settings in a real browser', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  let n = 0;
  const { createReg, link } = playerTestBed(
    { id: 'ui-settings', firstName: 'Alan', lastName: 'Turing' },
    (bed) => ({ s, app, context } = bed),
    async () => {
      await importCourse(s.api, app, 'three', { name: 'three.zip', data: await threeLessons(), type: 'application/zip' });
      await importCourse(s.api, app, 'single2004', { name: 'single.zip', data: await scoPackage('2004', `API.Initialize('');`), type: 'application/zip' });
    },
  );

  /** Registers the learner on `course` with `settings` on the registration and opens the player. */
  const open = async (course: string, settings: Record<string, string>, viewport?: { width: number; height: number }): Promise<Page> => {
    const id = `ui-${++n}`;
    await createReg(id, course);
    if (Object.keys(settings).length) {
      const set = await call(`${s.api}/registrations/${id}/configuration`, { method: 'POST', auth: app, json: { settings: Object.entries(settings).map(([settingId, value]) => ({ settingId, value })) } });
      expect(set.status).toBe(204);
    }
    const page = await context.newPage();
    if (viewport) await page.setViewportSize(viewport);
    page.on('dialog', (d) => void d.accept());
    await page.goto(await link(id));
    return page;
  };
  const frame = async (page: Page): Promise<Frame> => {
    const f = await waitFor(async () => (await page.$('#lcds-sco'))?.contentFrame() ?? null, (x) => x !== null && x.url().includes('/content/'));
    // The lessons set window.ready; scoPackage's SCO says "ready" on the page.
    await waitFor(() => f!.evaluate('window.ready === true || document.getElementById("state").textContent === "ready"').catch(() => false), (r) => r === true);
    return f!;
  };
  const shot = async (page: Page, name: string) => {
    if (process.env.LCDS_TEST_SCREENSHOTS) await page.screenshot({ path: `/tmp/lcds-ui-${name}.png` });
  };
  const visible = (page: Page, selector: string) => page.locator(selector).isVisible();
  /** The table of contents as the learner sees it: title, mark, and whether it can be pressed. */
  const toc = (page: Page) =>
    page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLButtonElement>('#lcds-toc .lcds-item')).map((b) => `${b.querySelector('.lcds-title')!.textContent}|${b.querySelector('.lcds-status')!.textContent}${b.disabled ? '|disabled' : ''}`),
    );

  it('without settings: the nav bar with the course title, Previous/Continue/Exit and an open table of contents; no help, progress or toggle', async () => {
    const page = await open('three', {});
    await frame(page);
    expect(await page.locator('#lcds-course').textContent()).toBe('Three lessons');
    expect((await navUi(page)).buttons).toEqual(['Continue', 'Exit']);
    expect(await visible(page, '#lcds-toc')).toBe(true);
    for (const id of ['#lcds-help-button', '#lcds-progress', '#lcds-toc-toggle', '#lcds-close']) expect(await page.locator(id).count()).toBe(0);
    await shot(page, 'default');
    await page.close();
  });

  it('PlayerShowNavBar, PlayerShowTitleBar, PlayerShowFinishButton NO: no bar at all; PlayerShowCourseStructure NO: no table of contents', async () => {
    let page = await open('three', { PlayerShowNavBar: 'NO', PlayerShowTitleBar: 'NO', PlayerShowFinishButton: 'NO' });
    await frame(page);
    expect(await page.locator('#lcds-bar').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Continue' }).count()).toBe(0);
    expect(await visible(page, '#lcds-toc')).toBe(true);
    await page.close();

    page = await open('three', { PlayerShowCourseStructure: 'NO', PlayerShowFinishButton: 'YES', PlayerShowTitleBar: 'NO' });
    await frame(page);
    expect(await visible(page, '#lcds-toc')).toBe(false);
    expect(await page.locator('#lcds-course').count()).toBe(0);
    expect((await navUi(page)).buttons).toEqual(['Continue', 'Exit']);
    // The content takes the whole width.
    const width = await page.evaluate(() => document.getElementById('lcds-sco')!.getBoundingClientRect().width);
    expect(width).toBe(await page.evaluate(() => window.innerWidth));
    await shot(page, 'no-toc');
    await page.close();
  });

  it('PlayerCourseStructureStartsOpen NO: the table of contents opens behind a toggle button (keyboard too); PlayerCourseStructureWidth sets its width', async () => {
    const page = await open('three', { PlayerCourseStructureStartsOpen: 'NO', PlayerCourseStructureWidth: '300' });
    await frame(page);
    const toggle = page.getByRole('button', { name: 'Table of contents' });
    expect(await visible(page, '#lcds-toc')).toBe(false);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await shot(page, 'toc-closed');
    await toggle.focus();
    await page.keyboard.press('Enter');
    expect(await visible(page, '#lcds-toc')).toBe(true);
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await page.evaluate(() => document.getElementById('lcds-toc')!.getBoundingClientRect().width)).toBe(300);
    await shot(page, 'toc-open-300');
    await page.keyboard.press('Space');
    expect(await visible(page, '#lcds-toc')).toBe(false);
    await page.close();
  });

  it('PlayerShowProgressBar: completed lessons of all; PlayerUseMeasureProgressBar: the progress measure', async () => {
    let page = await open('three', { PlayerShowProgressBar: 'YES' });
    let f = await frame(page);
    const bar = page.getByRole('progressbar', { name: 'Course progress' });
    expect(await bar.getAttribute('value')).toBe('0');
    expect(await page.locator('#lcds-progress-text').textContent()).toBe('0%');
    await f.evaluate(`API.LMSSetValue('cmi.core.lesson_status', 'completed'); API.LMSCommit('')`);
    await page.locator('#lcds-progress-text').filter({ hasText: '33%' }).waitFor();
    expect(await page.evaluate(() => (document.getElementById('lcds-progress') as HTMLProgressElement).value)).toBe(33);
    await shot(page, 'progress');
    await page.close();

    page = await open('single2004', { PlayerShowProgressBar: 'YES', PlayerUseMeasureProgressBar: 'YES' });
    f = await frame(page);
    // A one-SCO course with a progress bar: the bar exists without navigation buttons.
    expect((await navUi(page)).buttons).toEqual([]);
    await f.evaluate(`API.SetValue('cmi.progress_measure', '0.5'); API.Commit('')`);
    await page.locator('#lcds-progress-text').filter({ hasText: '50%' }).waitFor();
    await page.close();
  });

  it('PlayerShowHelp: a Help button shows and hides a short help text; PlayerShowTitleBar on a one-SCO course shows its title', async () => {
    const page = await open('single2004', { PlayerShowHelp: 'YES', PlayerShowTitleBar: 'YES' });
    await frame(page);
    expect(await page.locator('#lcds-course').textContent()).toBe('Generated 2004');
    const help = page.getByRole('button', { name: 'Help' });
    expect(await visible(page, '#lcds-help')).toBe(false);
    await help.click();
    expect(await page.getByRole('region', { name: 'Help' }).textContent()).toMatch(/Continue and Previous move through the course/);
    expect(await help.getAttribute('aria-expanded')).toBe('true');
    await shot(page, 'help');
    await help.click();
    expect(await visible(page, '#lcds-help')).toBe(false);
    await page.close();
  });

  it('PlayerEnableFlowNav NO hides Previous/Continue; PlayerEnableChoiceNav NO disables the table of contents', async () => {
    const page = await open('three', { PlayerEnableFlowNav: 'NO', PlayerEnableChoiceNav: 'NO' });
    await frame(page);
    expect((await navUi(page)).buttons).toEqual(['Exit']);
    expect(await page.getByRole('button', { name: 'Continue' }).count()).toBe(0);
    expect(await toc(page)).toEqual(['Lesson one||disabled', 'Lesson two||disabled', 'Lesson three||disabled']);
    await page.close();

    // With PlayerInvalidMenuItemAction SHOW the items can be pressed, and say they are not available; the lesson stays.
    const shown = await open('three', { PlayerEnableChoiceNav: 'NO', PlayerInvalidMenuItemAction: 'SHOW' });
    const f = await frame(shown);
    expect(await toc(shown)).toEqual(['Lesson one|', 'Lesson two|', 'Lesson three|']);
    await shown.locator('#lcds-toc .lcds-item[data-id="two"]').click();
    await shown.locator('#lcds-message').filter({ hasText: 'not available now: Lesson two' }).waitFor();
    expect(await f.locator('#state').textContent()).toBe('Lesson one');
    await shown.close();
  });

  it('PlayerStatusDisplayPreference: the marks of the table of contents (success only, separate, none)', async () => {
    const expected = { SUCCESS_ONLY: 'Lesson one|\u2717', SEPARATE: 'Lesson one|\u2713 \u2717', COMBINED: 'Lesson one|\u2717', COMPLETION_ONLY: 'Lesson one|\u2713', NONE: 'Lesson one|' } as const;
    for (const [pref, mark] of Object.entries(expected)) {
      const page = await open('three', { PlayerStatusDisplayPreference: pref });
      const f = await frame(page);
      // SCORM 1.2 "failed": completed, not passed.
      await f.evaluate(`API.LMSSetValue('cmi.core.lesson_status', 'failed'); API.LMSCommit('')`);
      const got = await waitFor(() => toc(page), (t) => t[0] === mark);
      expect(got[0]).toBe(mark);
      if (pref === 'SEPARATE') {
        expect(await page.locator('#lcds-toc .lcds-item[data-id="one"] .lcds-status').getAttribute('aria-label')).toBe('completed, failed');
        await shot(page, 'status-separate');
      }
      await page.close();
    }
  });

  it('PlayerShowCloseItem: Close lesson unloads the SCO, says so, and the course goes on', async () => {
    const page = await open('three', { PlayerShowCloseItem: 'YES' });
    await frame(page);
    await page.getByRole('button', { name: 'Close lesson' }).click();
    await page.locator('#lcds-closed').filter({ hasText: 'This lesson is closed' }).waitFor();
    await shot(page, 'closed');
    await page.getByRole('button', { name: 'Continue' }).click();
    const f = await frame(page);
    expect(await f.locator('#state').textContent()).toBe('Lesson two');
    expect(await visible(page, '#lcds-closed')).toBe(false);
    await page.close();
  });

  it('PlayerPreventRightClick: no context menu on the player page nor in the content', async () => {
    const prevented = (target: Page | Frame) => target.evaluate(() => !document.body.dispatchEvent(new MouseEvent('contextmenu', { bubbles: true, cancelable: true })));
    let page = await open('three', { PlayerPreventRightClick: 'YES' });
    let f = await frame(page);
    expect(await prevented(page)).toBe(true);
    expect(await prevented(f)).toBe(true);
    await page.close();
    page = await open('three', {});
    f = await frame(page);
    expect(await prevented(page)).toBe(false);
    await page.close();
  });

  it('PlayerRequiredWidth/Height/FullScreen: the page tells the learner the window is too small', async () => {
    const page = await open('three', { PlayerRequiredWidth: '1400', PlayerRequiredHeight: '600', PlayerRequiredFullScreen: 'YES' }, { width: 1000, height: 700 });
    await frame(page);
    const note = page.locator('#lcds-size');
    await note.waitFor({ state: 'visible' });
    expect(await note.textContent()).toMatch(/at least 1400 × 600 pixels \(yours is 1000 × 700\).*must run full screen/);
    expect(await page.getByRole('button', { name: 'Full screen' }).isVisible()).toBe(true);
    await shot(page, 'too-small');
    await page.setViewportSize({ width: 1500, height: 700 });
    await waitFor(() => note.textContent(), (t) => !/at least/.test(t ?? ''));
    expect(await note.textContent()).toBe('This course must run full screen. Full screen');
    await page.close();
  });

  it('PlayerScoLaunchType NEW_WINDOW with PlayerDesiredWidth/Height: the SCO opens in a window of that size', async () => {
    const page = await open('three', { PlayerScoLaunchType: 'NEW_WINDOW', PlayerDesiredWidth: '700', PlayerDesiredHeight: '500' });
    const popup = (await waitFor(() => Promise.resolve(context.pages().find((p) => p.url().includes('/content/one/'))), (p) => p !== undefined))!;
    await popup.locator('#state').filter({ hasText: 'Lesson one' }).waitFor();
    await page.locator('#lcds-elsewhere').waitFor({ state: 'visible' });
    const size = await popup.evaluate(() => [window.outerWidth, window.outerHeight, window.innerWidth, window.innerHeight]);
    expect(size[2]).toBeLessThanOrEqual(700);
    expect(size[2]).toBeGreaterThan(600);
    expect(size[3]).toBeLessThanOrEqual(500);
    expect(size[3]).toBeGreaterThan(400);
    await popup.close();
    await page.close();
  });
});
