import type { BrowserContext, Frame, Page } from 'playwright-core';
import { fixture, importCourse } from '../support/courses';
import { openPage, playerTestBed, waitFor } from '../support/player';
import { call, TestServer } from '../support/test-server';

const X = { 'x-experience-api-version': '1.0.3' };
const SINGLE_AU = 'https://w3id.org/xapi/cmi5/catapult/lts/course/geology-intro-single-au-basic/1';
const multiAu = (n: number) => `https://w3id.org/xapi/cmi5/catapult/lts/course/geology-intro-multi-au-framed/${n}`;

/** CATAPULT's example courses (cmi5.js content) in the player: framed AUs, the table of contents, progress through the API. */
describe('player: cmi5 courses in a real browser', () => {
  let s: TestServer;
  let app: string;
  let context: BrowserContext;
  const learner = { id: 'learner-cmi5', firstName: 'Marie', lastName: 'Curie' };
  const { createReg, link, progress } = playerTestBed(learner, (bed) => ({ s, app, context } = bed), async () => {
    await importCourse(s.api, app, 'catapult-single', fixture('cmi5-catapult-single-au-basic-framed.zip'));
    await importCourse(s.api, app, 'catapult-multi', fixture('cmi5-catapult-multi-au-framed.zip'));
  });
  const contentFrame = (page: Page): Frame | undefined => page.frames().find((f) => f.url().includes('/content/'));
  const verbs = async (registrationId: string) => {
    const registration = (await call(`${s.api}/registrations/${registrationId}`, { auth: app })).body.xapiRegistrationId as string;
    const res = await fetch(`${s.config.publicUrl}/lrs/${s.firstStart.application.appId}/statements?registration=${registration}&ascending=true&limit=500`, { headers: { authorization: app, ...X } });
    return ((await res.json()) as { statements: Array<{ verb: { id: string } }> }).statements.map((st) => st.verb.id.split('/').pop());
  };

  it('single AU: framed in the player with the cmi5 launch parameters; its passed statement satisfies the AU and the course', async () => {
    await createReg('rc-single', 'catapult-single');
    const page = await openPage(context, await link('rc-single'));
    const frame = await waitFor(() => Promise.resolve(contentFrame(page) ?? null), (f) => f !== null);
    const q = new URL(frame!.url()).searchParams;
    expect([q.has('endpoint'), q.has('fetch'), q.has('actor'), q.has('registration'), q.has('activityId')]).toEqual([true, true, true, true, true]);
    // The course passes its AU with its quiz (completionBehavior "quiz"): answer every question right, submit.
    await waitFor(async () => (await verbs('rc-single')).includes('initialized'), (v) => v, 15_000);
    // `course` is a global lexical binding of the page's script, reachable from evaluated script text.
    await frame!.evaluate(`(() => {
      course.gotoPage(course.pageList.indexOf('quiz'));
      document.getElementById('q0').value = '3';
      document.getElementById('q1').value = 'crust';
      document.getElementById('q2').value = '3';
      document.getElementById('q3_2').checked = true;
      for (const o of document.getElementById('q4').options) o.selected = o.value === 'luster' || o.value === 'hardness';
      course.submitAnswers();
    })()`);
    const p = await waitFor(() => progress('rc-single'), (v) => v.registrationCompletion === 'COMPLETED', 20_000);
    expect(p).toMatchObject({ registrationCompletion: 'COMPLETED', registrationSuccess: 'PASSED', activityDetails: { activityCompletion: 'COMPLETED', activitySuccess: 'PASSED' } });
    expect(p.activityDetails.children[0]).toMatchObject({ id: SINGLE_AU, activitySuccess: 'PASSED', attempts: 1, score: { scaled: 1 } });
    expect(p.completedDate).toEqual(expect.any(String));
    const list = await verbs('rc-single');
    expect(list.slice(0, 2)).toEqual(['launched', 'initialized']);
    expect(list).toContain('passed');
    expect(list).toContain('satisfied');
    await page.close();
  });

  it('multi AU: a table of contents of the 8 AUs; each AU launched from it is a cmi5 session of its own; progress per AU, the course satisfied only with all', async () => {
    await createReg('rc-multi', 'catapult-multi');
    const page = await openPage(context, await link('rc-multi'));
    const items = page.locator('#lcds-toc .lcds-item');
    await items.first().waitFor();
    expect(await items.count()).toBe(8);
    const satisfiedAus = async () => {
      const p = await progress('rc-multi');
      return (p.activityDetails.children as Array<{ id: string; activitySuccess: string }>).filter((c) => c.activitySuccess === 'PASSED').map((c) => c.id);
    };
    await waitFor(satisfiedAus, (v) => v.length === 1, 20_000);
    await page.locator('#lcds-next').click();
    await waitFor(satisfiedAus, (v) => v.length === 2, 20_000);
    await page.locator(`#lcds-toc .lcds-item[data-id="${multiAu(4)}"]`).click();
    expect(await waitFor(satisfiedAus, (v) => v.length === 3, 20_000)).toEqual([multiAu(1), multiAu(2), multiAu(4)]);
    const p = await progress('rc-multi');
    expect(p).toMatchObject({ registrationCompletion: 'INCOMPLETE', registrationSuccess: 'UNKNOWN' });
    const list = await verbs('rc-multi');
    expect(list.filter((v) => v === 'launched')).toHaveLength(3);
    // The sessions left for the next AU ended with terminated (the AU's unload) or abandoned (the LMS, at the next launch).
    expect(list.filter((v) => v === 'terminated' || v === 'abandoned').length).toBeGreaterThanOrEqual(2);
    expect(list).not.toContain('satisfied');
    await page.close();
  });
});
