import { DataSource } from 'typeorm';
import { TAG_JOIN_MAX_ROWS } from '../../src/modules/tags/tags.service';
import { dbDate } from '../support/db';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * GetCourses paged with `more` through tag filters (both plans: a common tag read along the list's index, a rare one
 * from its tag rows), title filters (long titles whose match lies past the indexed 380-character key) and title
 * order: every matching course comes exactly once, in the list's order.
 */
describe('courses list: paging through filtered and title-ordered lists', () => {
  let s: TestServer;
  let app: string;
  const N = TAG_JOIN_MAX_ROWS + 600;
  const LONG = 'x'.repeat(390);
  interface Seeded {
    id: string;
    title: string;
    created: number;
    tags: string[];
  }
  const courses: Seeded[] = [];

  /** Titles: lower-case ASCII and zero-padded numbers, so that SQLite's and MySQL's collations order them alike. */
  function titleOf(i: number): string {
    const n = String(i).padStart(5, '0');
    if (i % 97 === 5) return `${LONG} tail ${n} needle`; // the match only past the title key
    if (i % 97 === 6) return `${LONG} tail ${n}`; // long, no match: the coarse step takes it, the exact one drops it
    if (i % 20 === 0) return `needle course ${n}`;
    return `course ${n} topic ${String(i % 7)}`;
  }

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    const appId = s.firstStart.application.appId;
    const ds = s.app.get(DataSource);
    const base = Date.UTC(2024, 0, 1);
    for (let i = 0; i < N; i++) {
      const tags = [...(i % 10 !== 0 ? ['common'] : []), ...(i % 100 === 1 ? ['rare'] : [])];
      courses.push({ id: `c-${String((i * 7919) % N).padStart(5, '0')}`, title: titleOf(i), created: base + i * 1000, tags });
    }
    // More than TAG_JOIN_MAX_ROWS courses carry `common` (the probe plan), a few `rare` (the join plan).
    expect(courses.filter((c) => c.tags.includes('common')).length).toBeGreaterThan(TAG_JOIN_MAX_ROWS);
    const insert = async (table: string, columns: string[], rows: unknown[][]) => {
      for (let i = 0; i < rows.length; i += 200) {
        const chunk = rows.slice(i, i + 200);
        await ds.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${chunk.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ')}`, chunk.flat());
      }
    };
    const at = (c: Seeded) => dbDate(ds, new Date(c.created));
    await insert(
      'course',
      ['app_id', 'id', 'title', 'title_key', 'latest_version', 'created_at', 'updated_at'],
      courses.map((c) => [appId, c.id, c.title, c.title.slice(0, 380), 1, at(c), at(c)]),
    );
    await insert(
      'course_version',
      ['app_id', 'course_id', 'version', 'title', 'learning_standard', 'metadata', 'root_activity', 'package', 'content_prefix', 'size_bytes', 'created_at', 'updated_at'],
      courses.map((c) => [appId, c.id, 1, c.title, 'SCORM12', '{}', '{"externalIdentifier":"x","itemIdentifier":"x","activityType":"SCO","title":"x","children":[]}', '{"launchables":[]}', `apps/x/${c.id}/`, 0, at(c), at(c)]),
    );
    await insert(
      'tag',
      ['app_id', 'resource_type', 'resource_id', 'tag'],
      courses.flatMap((c) => c.tags.map((t) => [appId, 'course', c.id, t])),
    );
  });
  afterAll(async () => s?.close());

  /** Follows `more` from the first page to the last; every page but the last is full. */
  async function walk(query: string): Promise<string[]> {
    const ids: string[] = [];
    let url = `${s.api}/courses?${query}`;
    for (let page = 0; page < 100; page++) {
      const r = await call(url, { auth: app });
      expect(r.status).toBe(200);
      ids.push(...r.body.courses.map((c: { id: string }) => c.id));
      if (!r.body.more) return ids;
      expect(r.body.courses).toHaveLength(100);
      url = `${s.api}/courses?more=${encodeURIComponent(r.body.more)}`;
    }
    throw new Error('more than 100 pages');
  }

  const byCreated = (dir: 1 | -1) => (a: Seeded, b: Seeded) => dir * (a.created - b.created);
  const byTitle = (dir: 1 | -1) => (a: Seeded, b: Seeded) => {
    const ka = a.title.slice(0, 380);
    const kb = b.title.slice(0, 380);
    return dir * (ka < kb ? -1 : ka > kb ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  };
  const expected = (keep: (c: Seeded) => boolean, order: (a: Seeded, b: Seeded) => number) => courses.filter(keep).sort(order).map((c) => c.id);

  it('pages a common tag (read along the index) and a rare one (read from its tags), each course once, in order', async () => {
    const common = await walk('tags=common');
    expect(common).toEqual(expected((c) => c.tags.includes('common'), byCreated(-1)));
    expect(new Set(common).size).toBe(common.length);
    expect(await walk('tags=rare&orderBy=created_asc')).toEqual(expected((c) => c.tags.includes('rare'), byCreated(1)));
    expect(await walk('tags=rare,common&orderBy=created_asc')).toEqual(expected((c) => c.tags.length > 0, byCreated(1)));
    expect(await walk('tags=none-such')).toEqual([]);
  });

  it('pages a title filter, also matching past the indexed title key, each course once', async () => {
    const needle = await walk('filter=NEEDLE&filterBy=course_title');
    expect(needle).toEqual(expected((c) => c.title.includes('needle'), byCreated(-1)));
    expect(needle.length).toBeGreaterThan(100);
    expect(await walk('filter=tail%2000005&filterBy=course_title')).toEqual(['c-' + String((5 * 7919) % N).padStart(5, '0')]);
    expect(await walk('filter=topic%203&filterBy=course_title&tags=common&orderBy=created_asc')).toEqual(
      expected((c) => c.title.includes('topic 3') && c.tags.includes('common'), byCreated(1)),
    );
  });

  it('pages title order both ways, with and without filters', async () => {
    const asc = await walk('orderBy=title_asc');
    expect(asc).toHaveLength(N);
    expect(asc).toEqual(expected(() => true, byTitle(1)));
    expect(await walk('orderBy=title_desc')).toEqual(expected(() => true, byTitle(-1)));
    expect(await walk('orderBy=title_asc&filter=needle&filterBy=course_title')).toEqual(expected((c) => c.title.includes('needle'), byTitle(1)));
    expect(await walk('orderBy=title_desc&tags=rare')).toEqual(expected((c) => c.tags.includes('rare'), byTitle(-1)));
  });

  it('keeps title_key with the title when it changes', async () => {
    const id = courses[3].id;
    expect((await call(`${s.api}/courses/${id}/title`, { method: 'PUT', auth: app, json: { title: 'aaaa first of all' } })).status).toBe(204);
    const first = await call(`${s.api}/courses?orderBy=title_asc`, { auth: app });
    expect(first.body.courses[0]).toMatchObject({ id, title: 'aaaa first of all' });
    const found = await call(`${s.api}/courses?filter=first%20of&filterBy=course_title`, { auth: app });
    expect(found.body.courses.map((c: { id: string }) => c.id)).toEqual([id]);
  });
});
