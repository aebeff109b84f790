/**
 * Generated SCORM 2004 4th edition packages for the sequencing browser tests, and how the tests drive them: every item
 * launches one stand-in SCO (sco.html?id=<item>) that initialises and waits; the test sets its data model, its
 * adl.nav.request and terminates it through the page's API, or presses the player's buttons.
 */
import { BrowserContext, Frame, Page } from 'playwright-core';
import { importCourse } from './courses';
import { openPage, zipOf } from './player';
import type { TestServer } from './test-server';

const NS = `xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3" xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss"`;
const SCO = `<!doctype html><html><head><meta charset="utf-8"><title>SCO</title><script>
function findAPI(w) { for (var i = 0; w && i < 10; i++) { if (w.API_1484_11) return w.API_1484_11; if (w.parent === w) break; w = w.parent; } return null; }
var API = findAPI(window);
window.onload = function () { API.Initialize(''); window.ready = true; document.getElementById('state').textContent = location.search; };
</script></head><body><p id="state">loading</p></body></html>`;

export const leaf = (id: string, seq = ''): string => `<item identifier="${id}" identifierref="R" parameters="?id=${id}"><title>${id}</title>${seq ? `<imsss:sequencing>${seq}</imsss:sequencing>` : ''}</item>`;
export const cluster = (id: string, body: string, seq = ''): string => `<item identifier="${id}"><title>${id}</title>${body}${seq ? `<imsss:sequencing>${seq}</imsss:sequencing>` : ''}</item>`;
export const rule = (kind: 'pre' | 'exit' | 'post', condition: string, action: string, extra = '') =>
  `<imsss:${kind}ConditionRule><imsss:ruleConditions><imsss:ruleCondition condition="${condition}"${extra}/></imsss:ruleConditions><imsss:ruleAction action="${action}"/></imsss:${kind}ConditionRule>`;
export const rules = (...r: string[]) => `<imsss:sequencingRules>${r.join('')}</imsss:sequencingRules>`;
export const FLOW = '<imsss:controlMode choice="true" flow="true"/>';
export const PASSED = { 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed' };

export async function coursePackage(orgBody: string, orgSeq = FLOW): Promise<Buffer> {
  const manifest = `<?xml version="1.0"?>
<manifest identifier="M" ${NS}>
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG"><organization identifier="ORG"><title>Course</title>${orgBody}<imsss:sequencing>${orgSeq}</imsss:sequencing></organization></organizations>
  <resources><resource identifier="R" type="webcontent" adlcp:scormType="sco" href="sco.html"><file href="sco.html"/></resource></resources>
</manifest>`;
  return zipOf({ 'imsmanifest.xml': manifest, 'sco.html': SCO });
}

/** The item the player's SCO frame runs once the SCO initialised (undefined while none does). */
export async function runningItem(page: Page): Promise<{ id: string; frame: Frame } | undefined> {
  const f = (await (await page.$('#lcds-sco'))?.contentFrame()) ?? null;
  const id = f ? /[?&]id=([^&]+)$/.exec(f.url())?.[1] : undefined;
  if (!f || id === undefined || !(await f.evaluate('window.ready === true').catch(() => false))) return undefined;
  return { id, frame: f };
}

/** The SCO frame once it runs item `id` and the SCO initialised; sets data model elements of the running SCO and commits. */
export { deliveredFrame as at, reportData as report } from './player';

/** The SCO asks for a navigation request and terminates. */
export const leave = async (frame: Frame, request: string): Promise<void> =>
  frame.evaluate((r) => {
    const api = (window as unknown as { API: { SetValue(k: string, x: string): string; Terminate(x: string): string } }).API;
    api.SetValue('adl.nav.request', r);
    api.Terminate('');
  }, request);
export const click = (page: Page, name: string) => page.getByRole('button', { name, exact: true }).click();
export const done = (page: Page) => page.locator('#lcds-done').waitFor({ state: 'visible' });
export const valid = (page: Page, element: string) =>
  page.evaluate((e) => (window as unknown as { API_1484_11: { GetValue(k: string): string } }).API_1484_11.GetValue(e), `adl.nav.request_valid.${element}`);

/**
 * Imports a generated package as course `id`, registers the learner of `regs` on it (registration `id`) and opens
 * the player; returns the page.
 */
export async function openCourse(
  bed: { s: TestServer; app: string; context: BrowserContext },
  regs: { createReg(registrationId: string, courseId: string): Promise<void>; link(registrationId: string): Promise<string> },
  id: string,
  orgBody: string,
  orgSeq?: string,
): Promise<Page> {
  await importCourse(bed.s.api, bed.app, id, { name: `${id}.zip`, data: await coursePackage(orgBody, orgSeq), type: 'application/zip' });
  await regs.createReg(id, id);
  return openPage(bed.context, await regs.link(id));
}
