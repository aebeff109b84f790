import { BrowserContext } from 'playwright-core';
import { fixture, importCourse } from '../support/courses';
import { openPage, playerTestBed, waitFor } from '../support/player';
import { call, TestServer } from '../support/test-server';

/**
 * Every SCORM package of ../shared/fixtures/packages that should import (the README's table). The two content
 * packaging examples (`cp`) are pages without script: they load, but never call the API. The "minimum runtime"
 * SCOs call LMSInitialize and LMSFinish and report no status (the LMS completes them).
 */
const PACKAGES: Array<{ file: string; standard: string; scos: number; initializes?: false; reportsStatus?: false }> = [
  { file: 'scorm12-golf-runtime-basic.zip', standard: 'SCORM12', scos: 1 },
  { file: 'scorm12-golf-runtime-minimum.zip', standard: 'SCORM12', scos: 18, reportsStatus: false },
  { file: 'scorm12-golf-cp-metadata.zip', standard: 'SCORM12', scos: 1, initializes: false },
  { file: 'scorm2004-2nd-golf-cp-single-sco.zip', standard: 'SCORM20042NDEDITION', scos: 1, initializes: false },
  { file: 'scorm2004-3rd-golf-runtime-basic.zip', standard: 'SCORM20043RDEDITION', scos: 1 },
  { file: 'scorm2004-3rd-golf-runtime-advanced.zip', standard: 'SCORM20043RDEDITION', scos: 1 },
  { file: 'scorm2004-3rd-golf-seq-forced-sequential.zip', standard: 'SCORM20043RDEDITION', scos: 5 },
  { file: 'scorm2004-3rd-golf-seq-posttest-rollup.zip', standard: 'SCORM20043RDEDITION', scos: 5 },
  { file: 'scorm2004-4th-golf-seq-posttest-rollup.zip', standard: 'SCORM20044THEDITION', scos: 5 },
];

interface Node {
  id: string;
  attempts: number;
  activityCompletion: string;
  runtime?: { completionStatus?: string };
  children?: Node[];
}
const leaves = (n: Node): Node[] => (n.children?.length ? n.children.flatMap(leaves) : [n]);

describe('player: every SCORM fixture package imports, launches in chromium, initializes, commits and exits', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const { createReg, link, progress } = playerTestBed({ id: 'sweep', firstName: 'Ann', lastName: 'Sweep' }, (bed) => ({ s, app, context } = bed), async () => {
    // The 4th edition example loads jQuery and jQuery UI from Google's CDN, out of reach here: a stub with the one
    // call its start-up makes ($(…).dialog) lets it run.
    await context.route('https://ajax.googleapis.com/**', (route) =>
      route.fulfill({ contentType: 'text/javascript', body: route.request().url().includes('jqueryui') ? '' : 'window.jQuery = window.$ = function () { var o = { dialog: function () { return o; } }; return o; };' }),
    );
  });

  it.each(PACKAGES)('$file', async ({ file, standard, scos, initializes, reportsStatus }) => {
    const courseId = file.replace(/\.zip$/, '');
    const imported = await importCourse(s.api, app, courseId, fixture(file));
    expect(imported.importResult.course).toMatchObject({ courseLearningStandard: standard });
    await createReg(courseId, courseId);

    const page = await openPage(context, await link(courseId));
    const apiName = standard === 'SCORM12' ? 'API' : 'API_1484_11';
    expect(await page.locator('#lcds-toc .lcds-item').count()).toBe(scos > 1 ? scos : 0);
    const content = await waitFor(() => Promise.resolve(page.frames().find((f) => f.url().includes('/content/'))), (f) => f !== undefined);
    await content!.waitForLoadState('load');
    if (initializes === false) {
      // The page loaded beside the API and left it alone.
      expect(await page.evaluate(`window.${apiName}.currentState`)).toBe(0);
    } else {
      // The SCO found the API and called Initialize/LMSInitialize; commit what it has.
      expect(await waitFor(() => page.evaluate(`window.${apiName}.currentState`), (v) => v === 1, 15_000)).toBe(1);
      expect(await page.evaluate(`String(window.${apiName}.${standard === 'SCORM12' ? 'LMSCommit' : 'Commit'}(''))`)).toBe('true');
    }
    // Leave: closing the tab sends the final commit, which ends the launch.
    await page.close({ runBeforeUnload: true });
    const history = await waitFor(
      async () => (await call(`${s.api}/registrations/${courseId}/launchHistory`, { auth: app })).body.launchHistory as Array<{ exitTime?: string; launchTime: string }>,
      (h) => h.length === 1 && h[0].exitTime !== undefined,
    );
    expect(history).toHaveLength(1);
    expect(history[0].exitTime).toBeDefined();

    const p = await progress(courseId);
    expect(p.firstAccessDate).toBeDefined();
    const launched = leaves(p.activityDetails).filter((l) => l.attempts > 0);
    expect(launched).toHaveLength(1);
    if (initializes === false) {
      expect(p.registrationCompletion).toBe('UNKNOWN');
      expect(launched[0].runtime?.completionStatus ?? 'unknown').toMatch(/^(unknown|not attempted)$/);
    } else if (reportsStatus === false) {
      // SCORM 1.2 RTE 3.4.4: a SCO that leaves without setting lesson_status is completed by the LMS (1 SCO of 18 here).
      expect(launched[0]).toMatchObject({ activityCompletion: 'COMPLETED', runtime: { completionStatus: 'completed' } });
      expect(p.registrationCompletion).toBe('INCOMPLETE');
    } else {
      // The golf SCOs set incomplete on start (a SCORM 1.2 one may report completed at once: a one-page SCO).
      expect(['INCOMPLETE', 'COMPLETED']).toContain(p.registrationCompletion);
      expect(launched[0].runtime?.completionStatus).toMatch(/^(incomplete|completed)$/);
    }
  });
});
