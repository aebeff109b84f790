import { CoursesService } from '../../src/modules/courses/courses.service';
import { importCourse } from '../support/courses';
import { scoPackage } from '../support/player';
import { countQueries } from '../support/query-counter';
import { basic, call, startExtraNode, startTestServer, TestServer } from '../support/test-server';
import { isProductionStack } from '../support/test-stack';

/**
 * Course version rows are kept in memory (every launch reads one): a deleted version is gone at once on every node,
 * and the number it had, taken again by the next import, reads as the new version. Its own file: a second node's
 * close must not end the first node's other tests' database connections.
 */
describe('CoursesService: course version rows from memory', () => {
  let s: TestServer;
  let app: string;
  let appId: string;
  let courses: CoursesService;
  /** An import of the course; `mark` is in its SCO's page, which the player serves from the version's content. */
  const upload = async (mark: string, query: Record<string, string> = {}) =>
    importCourse(s.api, app, 'cached', { name: `${mark}.zip`, data: await scoPackage('1.2', `/* ${mark} */`), type: 'application/zip' }, query);

  beforeAll(async () => {
    s = await startTestServer();
    appId = s.firstStart.application.appId;
    app = basic(appId, s.firstStart.application.secretKey);
    courses = s.app.get(CoursesService);
  });
  afterAll(async () => s?.close());

  it('a second read costs no query, and a caller changing its copy changes nobody else’s', async () => {
    await upload('First');
    const { latestVersion } = await courses.requireCourse(appId, 'cached');
    const first = await courses.requireVersion(appId, 'cached', latestVersion);
    const counter = countQueries(s.app);
    const again = await courses.requireVersion(appId, 'cached', latestVersion);
    counter.stop();
    expect(counter.count).toBe(0);
    expect(again).toEqual(first);
    again.title = 'changed by a caller';
    (again.metadata as Record<string, unknown> | null) ??= {};
    expect((await courses.requireVersion(appId, 'cached', latestVersion)).title).toBe(first.title);
    await expect(courses.requireVersion(appId, 'cached', latestVersion + 7)).rejects.toThrow(/Version of course 'cached'/);
  });

  it('a deleted version is gone at once, and its number taken again by an import reads as the new version, on every node', async () => {
    const other = isProductionStack() ? await startExtraNode(s.stack) : null;
    try {
      const nodes = [courses, ...(other ? [other.app.get(CoursesService)] : [])];
      await upload('Second', { mayCreateNewVersion: 'true' });
      const { latestVersion } = await courses.requireCourse(appId, 'cached');
      const before = await courses.requireVersion(appId, 'cached', latestVersion);
      for (const node of nodes) expect((await node.requireVersion(appId, 'cached', latestVersion)).contentPrefix).toBe(before.contentPrefix);

      expect((await call(`${s.api}/courses/cached/versions/${latestVersion}`, { method: 'DELETE', auth: app })).status).toBe(204);
      for (const node of nodes) {
        // On another node the message crosses Redis: a moment, far below the cache's lifetime (60 s).
        let found = await node.findVersion(appId, 'cached', latestVersion);
        for (let i = 0; i < 40 && found; i++) {
          await new Promise((r) => setTimeout(r, 25));
          found = await node.findVersion(appId, 'cached', latestVersion);
        }
        expect(found).toBeNull();
      }

      await upload('Third', { mayCreateNewVersion: 'true' });
      expect((await courses.requireCourse(appId, 'cached')).latestVersion).toBe(latestVersion);
      for (const node of nodes) {
        const now = await node.requireVersion(appId, 'cached', latestVersion);
        expect(now.contentPrefix).not.toBe(before.contentPrefix);
        expect(now.createdAt.getTime()).toBeGreaterThan(before.createdAt.getTime());
      }
    } finally {
      await other?.close();
    }
  });
});
