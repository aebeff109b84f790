import { DataSource } from 'typeorm';
import { RegistrationEntity } from '../../src/modules/registrations/entities/registration.entity';
import { RegistrationInstanceEntity } from '../../src/modules/registrations/entities/registration-instance.entity';
import { TagEntity } from '../../src/modules/tags/entities/tag.entity';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

const N = 2500;
/** More tagged registrations than the list lets the tags lead with (2,000): the list's index leads, tags are probed. */
const MANY = (i: number) => i % 10 !== 0;
const FEW = (i: number) => i % 100 === 5;
const COURSE = (i: number) => `course-${i % 3}`;

/**
 * GetRegistrations paging over thousands of registrations with tags on many of them and on a few: both shapes of
 * the tags filter page through every match once, newest first, alone and with other filters.
 */
describe('registrations list: paging with tags on many and on few registrations', () => {
  let s: TestServer;
  let app: string;

  beforeAll(async () => {
    s = await startTestServer();
    const appId = s.firstStart.application.appId;
    app = basic(appId, s.firstStart.application.secretKey);
    // Straight into the database: creating 2,500 registrations through the API would take minutes.
    const ds = s.app.get(DataSource);
    const base = Date.UTC(2025, 0, 1);
    const regs: RegistrationEntity[] = [];
    const insts: RegistrationInstanceEntity[] = [];
    const tags: TagEntity[] = [];
    for (let i = 0; i < N; i++) {
      const id = `r-${String(i).padStart(5, '0')}`;
      // Pairs share a creation time: the id breaks the tie.
      const at = new Date(base + Math.floor(i / 2) * 1000);
      regs.push({ appId, id, courseId: COURSE(i), learnerId: `l-${i % 7}`, learnerEmail: null, learnerFirstName: 'A', learnerLastName: 'B', xapiRegistrationId: `x-${i}`, postBack: null, latestInstance: 0, createdAt: at, updatedAt: at });
      insts.push({ appId, registrationId: id, instance: 0, courseVersion: 1, completion: 'UNKNOWN', success: 'UNKNOWN', completionAmount: 0, scoreScaled: null, totalSeconds: 0, firstAccessAt: null, lastAccessAt: null, completedAt: null, activityDetails: null, globalObjectives: [], suspendedActivityId: null, commitSeq: 0, sequencingState: null, xapiReported: null, createdAt: at, updatedAt: at });
      if (MANY(i)) tags.push({ appId, resourceType: 'registration', resourceId: id, tag: 'many' });
      if (FEW(i)) tags.push({ appId, resourceType: 'registration', resourceId: id, tag: 'few' });
    }
    for (let i = 0; i < N; i += 250) {
      await ds.getRepository(RegistrationEntity).insert(regs.slice(i, i + 250));
      await ds.getRepository(RegistrationInstanceEntity).insert(insts.slice(i, i + 250));
    }
    for (let i = 0; i < tags.length; i += 250) await ds.getRepository(TagEntity).insert(tags.slice(i, i + 250));
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  /** Every page of a list: the ids in the order served; checks newest first (id descending on ties) and no repeats. */
  const walk = async (query: string): Promise<string[]> => {
    const ids: string[] = [];
    let prev: { created: string; id: string } | undefined;
    let url = `${s.api}/registrations?${query}`;
    for (let page = 0; page < 1000; page++) {
      const r = await call(url, { auth: app });
      expect(r.status).toBe(200);
      expect(r.body.registrations.length).toBeLessThanOrEqual(10);
      for (const reg of r.body.registrations as Array<{ id: string; createdDate: string }>) {
        if (prev) expect(reg.createdDate < prev.created || (reg.createdDate === prev.created && reg.id < prev.id)).toBe(true);
        prev = { created: reg.createdDate, id: reg.id };
        ids.push(reg.id);
      }
      if (!r.body.more) break;
      url = `${s.api}/registrations?more=${encodeURIComponent(r.body.more as string)}`;
    }
    expect(new Set(ids).size).toBe(ids.length);
    return ids;
  };
  const expected = (match: (i: number) => boolean) =>
    Array.from({ length: N }, (_, i) => i)
      .filter(match)
      .map((i) => `r-${String(i).padStart(5, '0')}`)
      .reverse();

  it('a tag on many registrations: every one once, newest first', async () => {
    expect(await walk('tags=many')).toEqual(expected(MANY));
  }, 60_000);

  it('a tag on few registrations, and two tags (either)', async () => {
    expect(await walk('tags=few')).toEqual(expected(FEW));
    expect(await walk('tags=few,many')).toEqual(expected((i) => FEW(i) || MANY(i)));
  }, 60_000);

  it('tags with courseId and with until', async () => {
    expect(await walk('tags=many&courseId=course-1')).toEqual(expected((i) => MANY(i) && COURSE(i) === 'course-1'));
    const until = new Date(Date.UTC(2025, 0, 1) + 299 * 1000).toISOString();
    expect(await walk(`tags=many&until=${encodeURIComponent(until)}`)).toEqual(expected((i) => MANY(i) && i < 600));
    expect(await walk(`tags=few&courseId=course-2`)).toEqual(expected((i) => FEW(i) && COURSE(i) === 'course-2'));
  }, 60_000);
});
