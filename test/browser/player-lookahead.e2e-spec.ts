import { BrowserContext, Page } from 'playwright-core';
import { importCourse } from '../support/courses';
import { activityLines, ActivityNode, deliveredFrame, expectNavUi, navUi, openPage, playerTestBed, reportData, waitFor, zipOf } from '../support/player';
import { call, TestServer } from '../support/test-server';

/**
 * PlayerLookaheadSequencerMode and PlayerInvalidMenuItemAction on generated SCORM 2004 packages: the buttons and table
 * of contents offer only what leads somewhere (ENABLED, REALTIME: re-evaluated with each commit), or what the control
 * modes allow (DISABLED: a refused request gets a message); a refused request never unloads the running SCO.
 */
const NS = `xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3" xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss"`;
const SCO = `<!doctype html><html><head><meta charset="utf-8"><title>SCO</title><script>
function findAPI(w) { for (var i = 0; w && i < 10; i++) { if (w.API_1484_11) return w.API_1484_11; if (w.parent === w) break; w = w.parent; } return null; }
var API = findAPI(window);
window.onload = function () { API.Initialize(''); window.ready = true; document.getElementById('state').textContent = 'Lesson ' + location.search.slice(4); };
</script></head><body><h1 id="state">loading</h1></body></html>`;

const leaf = (id: string, seq = ''): string => `<item identifier="${id}" identifierref="R" parameters="?id=${id}"><title>Lesson ${id}</title>${seq ? `<imsss:sequencing>${seq}</imsss:sequencing>` : ''}</item>`;
const DISABLED_ALWAYS = '<imsss:sequencingRules><imsss:preConditionRule><imsss:ruleConditions><imsss:ruleCondition condition="always"/></imsss:ruleConditions><imsss:ruleAction action="disabled"/></imsss:preConditionRule></imsss:sequencingRules>';
/** a's SCO alone decides its success (objectiveSetByContent), written to the global objective g-a. */
const FIRST = `<imsss:objectives><imsss:primaryObjective objectiveID="a-obj"><imsss:mapInfo targetObjectiveID="g-a" readSatisfiedStatus="false" writeSatisfiedStatus="true"/></imsss:primaryObjective></imsss:objectives>
<imsss:deliveryControls objectiveSetByContent="true" completionSetByContent="true"/>`;
/** b is disabled until a is satisfied (it reads g-a): the forced sequence of ADL's examples. */
const SECOND = `<imsss:sequencingRules><imsss:preConditionRule><imsss:ruleConditions conditionCombination="any">
<imsss:ruleCondition referencedObjective="prev" operator="not" condition="satisfied"/><imsss:ruleCondition referencedObjective="prev" operator="not" condition="objectiveStatusKnown"/>
</imsss:ruleConditions><imsss:ruleAction action="disabled"/></imsss:preConditionRule></imsss:sequencingRules>
<imsss:objectives><imsss:primaryObjective objectiveID="b-obj"/><imsss:objective objectiveID="prev"><imsss:mapInfo targetObjectiveID="g-a" readSatisfiedStatus="true"/></imsss:objective></imsss:objectives>`;
const FORCED = '<imsss:controlMode choice="false" flow="true" forwardOnly="true"/>';

async function coursePackage(orgBody: string, orgSeq: string): Promise<Buffer> {
  const manifest = `<?xml version="1.0"?>
<manifest identifier="M" ${NS}>
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG"><organization identifier="ORG"><title>Lookahead course</title>${orgBody}<imsss:sequencing>${orgSeq}</imsss:sequencing></organization></organizations>
  <resources><resource identifier="R" type="webcontent" adlcp:scormType="sco" href="sco.html"><file href="sco.html"/></resource></resources>
</manifest>`;
  return zipOf({ 'imsmanifest.xml': manifest, 'sco.html': SCO });
}

describe('player: lookahead (PlayerLookaheadSequencerMode) and invalid table-of-contents items (PlayerInvalidMenuItemAction)', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  let n = 0;
  const { createReg, link, progress } = playerTestBed({ id: 'lookahead', firstName: 'Grace', lastName: 'Hopper' }, (bed) => ({ s, app, context } = bed));

  /** Imports a package, registers the learner with `settings` on the registration and opens the player. */
  const start = async (orgBody: string, orgSeq: string, settings: Record<string, string>): Promise<{ page: Page; reg: string }> => {
    const id = `look-${++n}`;
    await importCourse(s.api, app, id, { name: `${id}.zip`, data: await coursePackage(orgBody, orgSeq), type: 'application/zip' });
    await createReg(id, id);
    const set = await call(`${s.api}/registrations/${id}/configuration`, { method: 'POST', auth: app, json: { settings: Object.entries(settings).map(([settingId, value]) => ({ settingId, value })) } });
    expect(set.status).toBe(204);
    return { page: await openPage(context, await link(id)), reg: id };
  };
  const at = deliveredFrame;
  const report = reportData;
  const click = (page: Page, name: string) => page.getByRole('button', { name, exact: true }).click();
  const message = (page: Page) => page.locator('#lcds-message').filter({ hasText: 'not available' }).waitFor();
  /** What the learner reads in the content frame. */
  const lesson = async (page: Page) => (await (await page.$('#lcds-sco'))!.contentFrame())!.locator('#state').textContent();
  const details = (p: { activityDetails: ActivityNode }) => activityLines(p, true);

  for (const mode of ['ENABLED', 'REALTIME'] as const) {
    it(`${mode}: Continue is not offered while the next activity is disabled`, async () => {
      const { page } = await start(leaf('a', FIRST) + leaf('b', SECOND) + leaf('c'), FORCED, { PlayerLookaheadSequencerMode: mode });
      await at(page, 'a');
      await expectNavUi(page, { choice: [], buttons: ['Exit', 'Suspend'] });
      expect(await page.getByRole('button', { name: 'Continue' }).isVisible()).toBe(false);
      await page.close();
    });
  }

  it('REALTIME: Continue appears once the running SCO is satisfied (no reload), and leads to the next lesson', async () => {
    const { page, reg } = await start(leaf('a', FIRST) + leaf('b', SECOND) + leaf('c'), FORCED, { PlayerLookaheadSequencerMode: 'REALTIME' });
    const a = await at(page, 'a');
    await expectNavUi(page, { choice: [], buttons: ['Exit', 'Suspend'] });
    await a.evaluate('window.marker = "still here"');
    await report(page, a, { 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed' });
    await expectNavUi(page, { choice: [], buttons: ['Continue', 'Exit', 'Suspend'] });
    // The same document: the page was not reloaded, the SCO was not restarted.
    expect(await a.evaluate('window.marker')).toBe('still here');
    await click(page, 'Continue');
    await at(page, 'b');
    expect(await lesson(page)).toBe('Lesson b');
    expect(details(await progress(reg))).toMatchObject({ a: '1 COMPLETED PASSED', b: '1 UNKNOWN UNKNOWN' });
    await page.close();
  });

  it('ENABLED: the buttons follow deliveries, not commits', async () => {
    const { page } = await start(leaf('a', FIRST) + leaf('b', SECOND) + leaf('c'), FORCED, { PlayerLookaheadSequencerMode: 'ENABLED' });
    const a = await at(page, 'a');
    await report(page, a, { 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed' });
    // The SCO's own adl.nav.request_valid follows the commit; the buttons stay as delivered.
    expect(await page.evaluate(() => (window as unknown as { API_1484_11: { GetValue(k: string): string } }).API_1484_11.GetValue('adl.nav.request_valid.continue'))).toBe('true');
    expect((await navUi(page)).buttons).toEqual(['Exit', 'Suspend']);
    await page.close();
  });

  it('DISABLED: Continue is offered; pressed, it is refused with a message and the SCO keeps running (content and Suspend stay)', async () => {
    const { page, reg } = await start(leaf('a', FIRST) + leaf('b', SECOND) + leaf('c'), FORCED, { PlayerLookaheadSequencerMode: 'DISABLED' });
    const a = await at(page, 'a');
    await expectNavUi(page, { choice: [], buttons: ['Continue', 'Exit', 'Suspend'] });
    await a.evaluate('window.marker = "still here"');
    await report(page, a, { 'cmi.location': 'page-7' });
    await click(page, 'Continue');
    await message(page);
    // The learner still has the lesson: the same SCO document, its API still initialised, and every button.
    expect(await a.evaluate('window.marker')).toBe('still here');
    expect(await lesson(page)).toBe('Lesson a');
    expect(await a.evaluate('API.GetValue("cmi.location")')).toBe('page-7');
    await expectNavUi(page, { choice: [], buttons: ['Continue', 'Exit', 'Suspend'] });
    expect(await page.getByRole('button', { name: 'Suspend' }).isVisible()).toBe(true);
    expect(details(await progress(reg))).toMatchObject({ a: '1 UNKNOWN UNKNOWN' });

    // The SCO itself asks for continue as it terminates: refused, it is started again where it was (resume, same attempt).
    await a.evaluate('API.SetValue("adl.nav.request", "continue"); API.Terminate("")');
    await waitFor(() => page.evaluate(() => (window as unknown as { lcdsPlayer: { api: { GetValue(k: string): string } } }).lcdsPlayer.api.GetValue('cmi.entry')).catch(() => ''), (v) => v === 'resume');
    const again = await at(page, 'a');
    expect(await again.evaluate('API.GetValue("cmi.entry") + " " + API.GetValue("cmi.location")')).toBe('resume page-7');
    await expectNavUi(page, { choice: [], buttons: ['Continue', 'Exit', 'Suspend'] });

    // Once a is satisfied, Continue goes on; Suspend leaves the course.
    await report(page, again, { 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed' });
    await click(page, 'Continue');
    await at(page, 'b');
    await click(page, 'Suspend');
    await page.locator('#lcds-done').waitFor({ state: 'visible' });
    expect(details(await progress(reg))).toMatchObject({ a: '1 COMPLETED PASSED', b: '1 UNKNOWN UNKNOWN' });
    await page.close();
  });

  describe('PlayerInvalidMenuItemAction on a table of contents with a disabled lesson', () => {
    const COURSE = leaf('a') + leaf('b', DISABLED_ALWAYS) + leaf('c');
    const FREE = '<imsss:controlMode choice="true" flow="true"/>';
    /** The table of contents as the learner sees it: each item's title and whether it can be pressed. */
    const toc = (page: Page) =>
      page.evaluate(() => Array.from(document.querySelectorAll<HTMLButtonElement>('#lcds-toc .lcds-item')).map((b) => `${b.querySelector('.lcds-title')!.textContent}${b.disabled ? ' (disabled)' : ''}`));

    it('HIDE leaves the disabled lesson out', async () => {
      const { page } = await start(COURSE, FREE, { PlayerInvalidMenuItemAction: 'HIDE' });
      await at(page, 'a');
      expect(await waitFor(() => toc(page), (t) => t.length === 2)).toEqual(['Lesson a', 'Lesson c']);
      await page.close();
    });

    it('DISABLE greys it out', async () => {
      const { page } = await start(COURSE, FREE, { PlayerInvalidMenuItemAction: 'DISABLE' });
      await at(page, 'a');
      expect(await waitFor(() => toc(page), (t) => t.length === 3)).toEqual(['Lesson a', 'Lesson b (disabled)', 'Lesson c']);
      await page.close();
    });

    it('SHOW offers it; choosing it is refused with a message and the current lesson keeps running', async () => {
      const { page } = await start(COURSE, FREE, { PlayerInvalidMenuItemAction: 'SHOW' });
      const a = await at(page, 'a');
      expect(await waitFor(() => toc(page), (t) => t.length === 3)).toEqual(['Lesson a', 'Lesson b', 'Lesson c']);
      await a.evaluate('window.marker = "still here"');
      await page.locator('#lcds-toc .lcds-item[data-id="b"]').click();
      await message(page);
      expect(await a.evaluate('window.marker')).toBe('still here');
      expect(await lesson(page)).toBe('Lesson a');
      // Another lesson may still be chosen.
      await page.locator('#lcds-toc .lcds-item[data-id="c"]').click();
      await at(page, 'c');
      await page.close();
    });
  });
});
