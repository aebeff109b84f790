import { Frame, Page, BrowserContext } from 'playwright-core';
import { importCourse } from '../support/courses';
import { openPage, playerTestBed, scoPackage, waitFor } from '../support/player';
import { call, TestServer } from '../support/test-server';

/**
 * PlayerTimeLimit: the minutes a registration may spend in a SCORM course in all. A launch counts down what is left
 * of it; when it runs out the session ends as the Exit button ends it (the SCO unloaded, its data saved) and the page
 * says why; once spent, the launch link opens a page that says so instead of the course.
 */
const SCRIPTS = {
  '1.2': `API.LMSInitialize('');
window.spend = function (t) { API.LMSSetValue('cmi.core.session_time', t); API.LMSSetValue('cmi.core.lesson_status', 'incomplete'); API.LMSSetValue('cmi.core.exit', 'suspend'); API.LMSCommit(''); };
window.save = function (l) { API.LMSSetValue('cmi.core.lesson_location', l); API.LMSCommit(''); };`,
  '2004': `API.Initialize('');
window.spend = function (t) { API.SetValue('cmi.session_time', t); API.SetValue('cmi.completion_status', 'incomplete'); API.SetValue('cmi.exit', 'suspend'); API.Commit(''); };
window.save = function (l) { API.SetValue('cmi.location', l); API.Commit(''); };`,
};

describe('player: PlayerTimeLimit', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const { createReg, link, progress } = playerTestBed({ id: 'learner-time' }, (bed) => ({ s, app, context } = bed), async () => {
    for (const v of ['1.2', '2004'] as const) await importCourse(s.api, app, `tl-${v}`, { name: `tl-${v}.zip`, data: await scoPackage(v, SCRIPTS[v]), type: 'application/zip' });
  });
  const configure = async (path: string, settings: Record<string, string>) =>
    expect((await call(`${s.api}/${path}/configuration`, { method: 'POST', auth: app, json: { settings: Object.entries(settings).map(([settingId, value]) => ({ settingId, value })) } })).status).toBe(204);
  const sco = async (page: Page): Promise<Frame> => {
    const frame = await waitFor(async () => (await (await page.$('#lcds-sco'))?.contentFrame()) ?? null, (f) => !!f && f.url().includes('/sco/'));
    await frame!.locator('#state').filter({ hasText: 'ready' }).waitFor();
    return frame!;
  };
  type Progress = { totalSecondsTracked?: number; activityDetails?: { children?: Array<{ runtime?: { location?: string } }>; runtime?: { location?: string } } };
  const location = (p: Progress) => p.activityDetails?.children?.[0]?.runtime?.location ?? p.activityDetails?.runtime?.location;

  it.each([
    ['1.2', '00:00:56'],
    ['2004', 'PT56S'],
  ] as const)('SCORM %s: the launch ends when the course time runs out, keeps what the SCO saved, and the next launch says the time is spent', async (version, spent) => {
    const reg = `tl-reg-${version}`;
    await createReg(reg, `tl-${version}`);
    await configure(`registrations/${reg}`, { PlayerTimeLimit: '1' });

    // First launch: 56 seconds of the minute go by (as the SCO reports them).
    const first = await openPage(context, await link(reg));
    await (await sco(first)).evaluate((t) => (window as unknown as { spend(t: string): void }).spend(t), spent);
    await waitFor(() => progress(reg), (p: Progress) => p.totalSecondsTracked === 56);
    await first.close();

    // Second launch: about four seconds are left; the SCO saves a location, then the time runs out.
    const second = await openPage(context, await link(reg));
    const started = Date.now();
    await (await sco(second)).evaluate(() => (window as unknown as { save(l: string): void }).save('page-7'));
    await second.locator('#lcds-done').waitFor({ state: 'visible', timeout: 15_000 });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThan(2_500);
    expect(elapsed).toBeLessThan(12_000);
    await expect(second.locator('#lcds-done').textContent()).resolves.toMatch(/You have left the course.*The time allowed for this course has run out/);
    expect(await second.locator('#lcds-sco').isVisible()).toBe(false);
    const after = await waitFor(() => progress(reg), (p: Progress) => location(p) === 'page-7');
    expect(location(after)).toBe('page-7');
    await second.close();

    // Third launch: the time is spent, the course does not open.
    const third = await openPage(context, await link(reg));
    await expect(third.locator('body').textContent()).resolves.toMatch(/The time for this course has run out/);
    expect(await third.$('#lcds-sco')).toBeNull();
    await third.close();

    // Without the setting, the same registration's course launches (the limit is a setting, not a state).
    await configure(`registrations/${reg}`, { PlayerTimeLimit: '0' });
    const fourth = await openPage(context, await link(reg));
    await sco(fourth);
    await fourth.close();
  }, 60_000);
});
