import { BrowserContext, Frame, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { importCourse } from '../support/courses';
import { openPage, playerTestBed, waitFor, zipOf } from '../support/player';
import { call, TestServer } from '../support/test-server';
import { HISTORY_LOG_CAP, HISTORY_LOG_RESERVE } from '../../src/modules/registrations/launch-history-log';

/**
 * The launch's history log (GetRegistrationLaunchHistory?includeHistoryLog=true): the SCO's API calls recorded by the
 * player page (call, arguments, result, error code), the commits the server applied, the sequencer's decisions and
 * refusals, launch and exit; governed by PlayerCaptureHistory / PlayerCaptureHistoryDetailed; bounded; deleted with
 * the registration.
 */
const NS = `xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3" xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss"`;

/** A SCO that initialises, reads an element that does not exist, reports, commits; ?flood=n: then sets suspend_data n times. */
const SCO = `<!doctype html><html><head><meta charset="utf-8"><title>SCO</title><script>
function findAPI(w) { for (var i = 0; w && i < 10; i++) { if (w.API_1484_11) return w.API_1484_11; if (w.parent === w) break; w = w.parent; } return null; }
var API = findAPI(window);
window.onload = function () {
  API.Initialize('');
  API.GetValue('cmi.bogus');
  API.SetValue('cmi.location', 'page-3');
  API.SetValue('cmi.completion_status', 'completed');
  API.Commit('');
  var flood = Number((/[?&]flood=(\\d+)/.exec(location.search) || [])[1] || 0);
  for (var i = 0; i < flood; i++) API.SetValue('cmi.suspend_data', new Array(3901).join('x') + i);
  window.ready = true;
};
</script></head><body><p>SCO</p></body></html>`;

async function coursePackage(flood = 0): Promise<Buffer> {
  const leaf = (id: string) => `<item identifier="${id}" identifierref="R"${flood ? ` parameters="?flood=${flood}"` : ''}><title>${id}</title></item>`;
  const manifest = `<?xml version="1.0"?>
<manifest identifier="M" ${NS}>
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG"><organization identifier="ORG"><title>Course</title>${leaf('item1')}${leaf('item2')}
    <imsss:sequencing><imsss:controlMode choice="true" flow="true"/></imsss:sequencing></organization></organizations>
  <resources><resource identifier="R" type="webcontent" adlcp:scormType="sco" href="sco.html"><file href="sco.html"/></resource></resources>
</manifest>`;
  return zipOf({ 'imsmanifest.xml': manifest, 'sco.html': SCO });
}

describe('player: the launch history log', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const { createReg, link, progress } = playerTestBed({ id: 'history-learner', firstName: 'Ada', lastName: 'Lovelace' }, (bed) => ({ s, app, context } = bed), async () => {
    await importCourse(s.api, app, 'hl-course', { name: 'hl.zip', data: await coursePackage(), type: 'application/zip' });
    await importCourse(s.api, app, 'hl-flood', { name: 'hl-flood.zip', data: await coursePackage(350), type: 'application/zip' });
  });

  const configure = async (reg: string, settings: Record<string, string>) =>
    expect((await call(`${s.api}/registrations/${reg}/configuration`, { method: 'POST', auth: app, json: { settings: Object.entries(settings).map(([settingId, value]) => ({ settingId, value })) } })).status).toBe(204);
  const historyLogs = async (reg: string): Promise<string[]> => {
    const r = await call<{ launchHistory: Array<{ historyLog?: string }> }>(`${s.api}/registrations/${reg}/launchHistory?includeHistoryLog=true`, { auth: app });
    expect(r.status).toBe(200);
    return r.body.launchHistory.map((h) => h.historyLog ?? '');
  };
  const historyLog = async (reg: string) => (await historyLogs(reg)).join('');
  /** The SCO frame once the SCO ran its script. */
  const sco = async (page: Page): Promise<Frame> =>
    waitFor(
      async () => {
        const f = (await (await page.$('#lcds-sco'))?.contentFrame()) ?? null;
        return f && (await f.evaluate('window.ready === true').catch(() => false)) ? f : null;
      },
      (f) => f !== null,
      20_000,
    ) as Promise<Frame>;
  /** The SCO asks for `request` and terminates (the player runs the request on the server). */
  const leave = (frame: Frame, request: string) =>
    frame.evaluate((r) => {
      const api = (window as unknown as { API: { SetValue(k: string, x: string): string; Terminate(x: string): string } }).API;
      api.SetValue('adl.nav.request', r);
      api.Terminate('');
    }, request);

  it('records the SCO calls with arguments, results and error codes, the commit, the refused navigation request, launch and exit, in time order', async () => {
    await createReg('hl-on', 'hl-course');
    const page = await openPage(context, await link('hl-on'));
    const frame = await sco(page);
    // previous from the first activity: the sequencer refuses it (the SCO's attempt has ended; nothing runs).
    await leave(frame, 'previous');
    await page.locator('#lcds-message').filter({ hasText: /./ }).waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Exit', exact: true }).click();
    await page.locator('#lcds-done').waitFor({ state: 'visible', timeout: 10_000 });

    const log = await waitFor(() => historyLog('hl-on'), (l) => /rte Terminate\(""\)/.test(l) && /\bexit activity "item1"/.test(l) && /nav exitAll/.test(l), 15_000);
    expect(log).toMatch(/^\S+Z launch activity "item1", SCORM20044THEDITION, new attempt, delivered by the sequencer\n/);
    expect(log).toMatch(/ rte Initialize\(""\) = "true" error 0\b/);
    expect(log).toMatch(/ rte GetValue\("cmi\.bogus"\) = "" error 401 "[^"]+"/);
    expect(log).toMatch(/ rte SetValue\("cmi\.location", "page-3"\) = "true" error 0\b/);
    expect(log).toMatch(/ rte Commit\(""\) = "true" error 0\b/);
    expect(log).toMatch(/ commit \d+ applied: activity "item1" COMPLETED\/UNKNOWN/);
    expect(log).toMatch(/ nav previous \(current "item1"\): refused \(SB\.2\.1-3\): There is no previous activity to deliver; activity "item1" runs again\n/);
    expect(log).toMatch(/ rte SetValue\("adl\.nav\.request", "previous"\) = "true" error 0\b/);
    expect(log).toMatch(/ rte Terminate\(""\) = "true" error 0\b/);
    expect(log).toMatch(/ exit activity "item1": COMPLETED\/UNKNOWN/);
    expect(log).toMatch(/ nav exitAll \(current none\): the session ended\n/);
    // The error-query calls are left out at the audit level (each line carries its error code).
    expect(log).not.toMatch(/GetLastError/);
    const lines = log.trimEnd().split('\n');
    const times = lines.map((l) => l.slice(0, 24));
    expect(times.every((t) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(t))).toBe(true);
    expect([...times].sort()).toEqual(times);
    // Without includeHistoryLog the launches come without their logs.
    const plain = await call<{ launchHistory: Array<Record<string, unknown>> }>(`${s.api}/registrations/hl-on/launchHistory`, { auth: app });
    expect(plain.body.launchHistory[0].historyLog).toBeUndefined();
    await page.close();
  });

  it('with PlayerCaptureHistory off nothing is recorded: the page sends nothing and the log stays empty', async () => {
    await createReg('hl-off', 'hl-course');
    await configure('hl-off', { PlayerCaptureHistory: 'NO' });
    const sent: string[] = [];
    const page = await context.newPage();
    page.on('request', (r) => {
      if (/\/log$/.test(new URL(r.url()).pathname)) sent.push(r.url());
    });
    await page.goto(await link('hl-off'));
    const frame = await sco(page);
    await leave(frame, 'previous');
    await page.locator('#lcds-message').filter({ hasText: /./ }).waitFor({ timeout: 10_000 });
    await waitFor(() => progress('hl-off'), (p: { activityDetails?: { children?: Array<{ runtime?: { location?: string } }> } }) => p.activityDetails?.children?.[0]?.runtime?.location === 'page-3');
    await page.waitForTimeout(2500); // past the page's batching delay
    // The refusal stays said after the re-delivered SCO's own commit succeeds (a save only takes back a save failure).
    expect(await sco(page)).toBeTruthy();
    expect(await page.locator('#lcds-message').isVisible()).toBe(true);
    expect(sent).toEqual([]);
    expect(await page.evaluate('JSON.parse(document.getElementById("lcds-config").textContent).history')).toBeNull();
    expect(await historyLogs('hl-off')).toEqual(['']);
    await page.close();
  });

  it('is bounded: a SCO flooding calls fills the log to its cap, which keeps the first entries, says where it dropped, and still ends with the exit', async () => {
    await createReg('hl-flood', 'hl-flood');
    await configure('hl-flood', { PlayerCaptureHistoryDetailed: 'YES' });
    const page = await openPage(context, await link('hl-flood'));
    await sco(page);
    await page.getByRole('button', { name: 'Exit', exact: true }).click();
    await page.locator('#lcds-done').waitFor({ state: 'visible', timeout: 20_000 });
    const log = await waitFor(() => historyLog('hl-flood'), (l) => /\bexit activity "item1"/.test(l) && / log full: /.test(l), 30_000);
    // Full to within one of the page's batches (48 KB) of the cap.
    expect(log.length).toBeGreaterThan(HISTORY_LOG_CAP - 64 * 1024);
    expect(log.length).toBeLessThanOrEqual(HISTORY_LOG_CAP + HISTORY_LOG_RESERVE + 1000);
    expect(log).toMatch(/ rte Initialize\(""\) = "true" error 0/);
    // Detailed: the values in full (up to 4,000 characters) and the error-query calls.
    expect(log).toMatch(/ rte SetValue\("cmi\.suspend_data", "x{3900}0"\) = "true" error 0/);
    expect(log).not.toMatch(/ rte SetValue\("cmi\.suspend_data", "x{3900}349"\)/);
    await page.close();
  });

  it('goes with its registration', async () => {
    await createReg('hl-delete', 'hl-course');
    const page = await openPage(context, await link('hl-delete'));
    await sco(page);
    await waitFor(() => historyLog('hl-delete'), (l) => / rte Commit\(""\)/.test(l));
    await page.close();
    const ds = s.app.get(DataSource);
    const count = async (table: string) => Number((await ds.query<Array<{ n: number | string }>>(`SELECT COUNT(*) AS n FROM ${table} WHERE registration_id = ?`, ['hl-delete']))[0].n);
    expect(await count('launch_history_log')).toBeGreaterThan(0);
    expect((await call(`${s.api}/registrations/hl-delete`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect(await count('launch_history')).toBe(0);
    expect(await count('launch_history_log')).toBe(0);
    expect((await call(`${s.api}/registrations/hl-delete/launchHistory?includeHistoryLog=true`, { auth: app })).status).toBe(404);
  });
});
