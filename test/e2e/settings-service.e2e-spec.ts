import { DataSource } from 'typeorm';
import { SettingsService, SettingTarget } from '../../src/modules/settings/settings.service';
import { TagsService } from '../../src/modules/tags/tags.service';
import { InvalidInputError } from '../../src/platform/http/domain-errors';
import { countQueries } from '../support/query-counter';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/** SettingsService and TagsService as the courses and registrations modules use them, on the real stack. */
describe('SettingsService fallback chain and TagsService', () => {
  let s: TestServer;
  let settings: SettingsService;
  let tags: TagsService;
  let appId: string;

  beforeAll(async () => {
    s = await startTestServer();
    settings = s.app.get(SettingsService);
    tags = s.app.get(TagsService);
    appId = s.firstStart.application.appId;
  });
  afterAll(async () => s?.close());

  describe('settings', () => {
    const SETTING = 'PlayerScoLaunchType'; // default NEW_WINDOW
    const course = { courseId: 'course-1', version: 2, learningStandard: 'SCORM12', singleSco: true };
    const targets = {
      application: { level: 'application' },
      bucket: { level: 'application', learningStandard: 'SCORM12', singleSco: true },
      course: { level: 'course', courseId: 'course-1', learningStandard: 'SCORM12', singleSco: true },
      version: { level: 'courseVersion', courseId: 'course-1', version: 2, learningStandard: 'SCORM12', singleSco: true },
      registration: { level: 'registration', registrationId: 'reg-1', course },
      instance: { level: 'registrationInstance', registrationId: 'reg-1', instance: 3, course },
    } satisfies Record<string, SettingTarget>;
    type Name = keyof typeof targets;
    const order: Name[] = ['instance', 'registration', 'version', 'course', 'bucket', 'application'];
    const values: Record<Name, string> = {
      application: 'FRAMESET',
      bucket: 'NEW_WINDOW_AFTER_CLICK',
      course: 'NEW_WINDOW_WITHOUT_BROWSER_TOOLBAR',
      version: 'NEW_WINDOW_AFTER_CLICK_WITHOUT_BROWSER_TOOLBAR',
      registration: 'NEW_WINDOW',
      instance: 'FRAMESET',
    };
    const sourceOf: Record<Name, string> = {
      application: 'application',
      bucket: 'learningStandardForApplication',
      course: 'course',
      version: 'course',
      registration: 'registration',
      instance: 'registration',
    };

    async function item(target: SettingTarget, id = SETTING) {
      const { settingItems } = await settings.list(appId, target, { includeMetadata: false });
      return settingItems.find((i) => i.id === id);
    }

    it('walks instance → registration → version → course → bucket → application → default, and clearing falls back one level', async () => {
      // Nothing set anywhere: the default everywhere.
      for (const name of order) expect(await item(targets[name])).toEqual({ id: SETTING, effectiveValue: 'NEW_WINDOW', effectiveValueSource: 'default' });

      // Set from the top down; each level sees its own value as explicit, and the levels below inherit it.
      for (const name of [...order].reverse()) {
        await settings.set(appId, targets[name], [{ settingId: SETTING, value: values[name] }]);
        const here = order.indexOf(name);
        for (const [i, below] of order.entries()) {
          if (i > here) continue; // above the level just set: unchanged, checked when it was set
          const got = await item(targets[below]);
          expect({ below, got }).toEqual({
            below,
            got: { id: SETTING, effectiveValue: values[name], effectiveValueSource: sourceOf[name], ...(below === name ? { explicitValue: values[name] } : {}) },
          });
        }
      }

      // Every level now holds its own value.
      for (const name of order) {
        expect(await item(targets[name])).toEqual({ id: SETTING, effectiveValue: values[name], effectiveValueSource: sourceOf[name], explicitValue: values[name] });
      }
      expect((await settings.effective(appId, targets.instance, [SETTING])).get(SETTING)).toBe(values.instance);

      // Clear from the bottom up: the target falls back exactly one level each time.
      for (const [i, name] of order.entries()) {
        await settings.clear(appId, targets[name], SETTING);
        const next = order[i + 1];
        const got = await item(targets.instance);
        expect({ cleared: name, got }).toEqual({
          cleared: name,
          got: next ? { id: SETTING, effectiveValue: values[next], effectiveValueSource: sourceOf[next] } : { id: SETTING, effectiveValue: 'NEW_WINDOW', effectiveValueSource: 'default' },
        });
        expect(await item(targets[name])).not.toHaveProperty('explicitValue');
      }
    });

    it('reads the right bucket for the course, and none when its standard or SCO count is unknown', async () => {
      await settings.set(appId, { level: 'application', learningStandard: 'SCORM12', singleSco: false }, [{ settingId: 'PlayerShowHelp', value: 'YES' }]);
      await settings.set(appId, targets.application, [{ settingId: 'PlayerShowHelp', value: 'NO' }]);
      expect(await item({ level: 'course', courseId: 'c', learningStandard: 'SCORM12', singleSco: false }, 'PlayerShowHelp')).toMatchObject({
        effectiveValue: 'YES',
        effectiveValueSource: 'learningStandardForApplication',
      });
      expect(await item({ level: 'course', courseId: 'c', learningStandard: 'SCORM12', singleSco: true }, 'PlayerShowHelp')).toMatchObject({ effectiveValue: 'NO', effectiveValueSource: 'application' });
      expect(await item({ level: 'course', courseId: 'c' }, 'PlayerShowHelp')).toMatchObject({ effectiveValue: 'NO', effectiveValueSource: 'application' });
      const reg: SettingTarget = { level: 'registration', registrationId: 'r', course: { courseId: 'c', version: 1, learningStandard: 'SCORM12', singleSco: false } };
      expect(await item(reg, 'PlayerShowHelp')).toMatchObject({ effectiveValue: 'YES', effectiveValueSource: 'learningStandardForApplication' });
      // The list filters on the course's standard: an xAPI course has no SCORM 2004 settings.
      const { settingItems } = await settings.list(appId, { level: 'course', courseId: 'x', learningStandard: 'XAPI', singleSco: true });
      expect(settingItems.find((i) => i.id === 'PlayerLogoutCausesPlayerExit')).toBeUndefined();
      expect(settingItems.find((i) => i.id === 'UseModernPlayer')).toBeDefined();
      // Options may name the standard too.
      const viaOptions = await settings.list(appId, { level: 'course', courseId: 'c' }, { learningStandard: 'SCORM12', singleSco: false });
      expect(viaOptions.settingItems.find((i) => i.id === 'PlayerShowHelp')).toMatchObject({ effectiveValueSource: 'learningStandardForApplication' });
    });

    it('answers effective values from its cache (a registration-level read only when the application has any), and every default when nothing is named', async () => {
      await settings.set(appId, targets.registration, [{ settingId: 'PlayerDesiredWidth', value: '777' }]);
      await settings.effective(appId, targets.instance, ['PlayerDesiredWidth']);
      const counter = countQueries(s.app);
      const values = await settings.effective(appId, targets.instance, ['PlayerDesiredWidth', 'PlayerLaunchType', 'ApiRollupRegistrationAuthPassword']);
      counter.stop();
      // The levels above the registration come from the cache; the registration's own rows are one query.
      expect(counter.count).toBe(1);
      expect(Object.fromEntries(values)).toEqual({ PlayerDesiredWidth: '777', PlayerLaunchType: 'FRAMESET', ApiRollupRegistrationAuthPassword: '' });
      const all = await settings.effective(appId, targets.instance);
      expect(all.size).toBe(174);
      expect(all.get('PlayerDesiredWidth')).toBe('777');
      await expect(settings.effective(appId, targets.instance, ['Nope'])).rejects.toThrow(/Nope/);
    });

    it('refuses Tenant-level settings below the application, unknown ids and bad values, writing nothing', async () => {
      for (const name of ['bucket', 'course', 'version', 'registration', 'instance'] as const) {
        const attempt = settings.set(appId, targets[name], [{ settingId: 'ApiUseSignedLaunchLinks', value: 'true' }]);
        await expect(attempt).rejects.toThrow(InvalidInputError);
        await expect(settings.set(appId, targets[name], [{ settingId: 'ApiUseSignedLaunchLinks', value: 'true' }])).rejects.toThrow(/ApiUseSignedLaunchLinks/);
      }
      await settings.set(appId, targets.application, [{ settingId: 'ApiUseSignedLaunchLinks', value: 'True' }]);
      expect(await item(targets.registration, 'ApiUseSignedLaunchLinks')).toEqual({ id: 'ApiUseSignedLaunchLinks', effectiveValue: 'true', effectiveValueSource: 'application' });

      await expect(settings.set(appId, targets.course, [{ settingId: 'PlayerTimeLimit', value: '30' }, { settingId: 'Bogus', value: 'x' }])).rejects.toThrow(/Bogus is not a valid setting ID/);
      expect(await item(targets.course, 'PlayerTimeLimit')).toMatchObject({ effectiveValueSource: 'default' });
      await expect(settings.clear(appId, targets.course, 'Bogus')).rejects.toThrow(/Bogus/);
      await expect(settings.list(appId, { level: 'application', learningStandard: 'SCORM12' })).rejects.toThrow(/together/);
    });

    it('purges a course with its versions, a registration with its instances, and nothing of other targets', async () => {
      const other: SettingTarget = { level: 'course', courseId: 'course-2' };
      await settings.set(appId, targets.course, [{ settingId: 'PlayerShowTitleBar', value: 'YES' }]);
      await settings.set(appId, targets.version, [{ settingId: 'PlayerShowTitleBar', value: 'YES' }]);
      await settings.set(appId, targets.registration, [{ settingId: 'PlayerShowTitleBar', value: 'YES' }]);
      await settings.set(appId, targets.instance, [{ settingId: 'PlayerShowTitleBar', value: 'YES' }]);
      await settings.set(appId, other, [{ settingId: 'PlayerShowTitleBar', value: 'YES' }]);

      await settings.purgeTarget(appId, targets.course);
      expect(await item(targets.version, 'PlayerShowTitleBar')).toMatchObject({ effectiveValueSource: 'default' });
      expect(await item(targets.registration, 'PlayerShowTitleBar')).toMatchObject({ effectiveValueSource: 'registration', explicitValue: 'YES' });
      expect(await item(other, 'PlayerShowTitleBar')).toMatchObject({ explicitValue: 'YES' });

      await settings.purgeTarget(appId, targets.registration);
      expect(await item(targets.instance, 'PlayerShowTitleBar')).toMatchObject({ effectiveValueSource: 'default' });

      // Another application with the same course id is untouched by all of this.
      const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
      const created = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'settings-svc-other' } });
      await settings.set(created.body.id, other, [{ settingId: 'PlayerShowTitleBar', value: 'NO' }]);
      await settings.purgeTarget(appId, other);
      expect(await item(other, 'PlayerShowTitleBar')).toMatchObject({ effectiveValueSource: 'default' });
      const { settingItems } = await settings.list(created.body.id, other);
      expect(settingItems.find((i) => i.id === 'PlayerShowTitleBar')).toMatchObject({ effectiveValue: 'NO', explicitValue: 'NO' });
    });
  });

  describe('tags', () => {
    it('replaces, adds and removes the tags of one resource, normalised', async () => {
      await tags.replace(appId, 'course', 'c1', ['beta', ' alpha ', 'beta']);
      expect(await tags.get(appId, 'course', 'c1')).toEqual(['alpha', 'beta']);
      await tags.replace(appId, 'course', 'c1', ['gamma']);
      expect(await tags.get(appId, 'course', 'c1')).toEqual(['gamma']);
      await tags.add(appId, 'course', 'c1', ['alpha', 'gamma']);
      expect(await tags.get(appId, 'course', 'c1')).toEqual(['alpha', 'gamma']);
      await tags.remove(appId, 'course', 'c1', ['gamma', 'not-there']);
      expect(await tags.get(appId, 'course', 'c1')).toEqual(['alpha']);
      await tags.replace(appId, 'course', 'c1', []);
      expect(await tags.get(appId, 'course', 'c1')).toEqual([]);
      // Tags compare byte for byte.
      await tags.replace(appId, 'course', 'c1', ['Alpha', 'alpha']);
      expect(await tags.get(appId, 'course', 'c1')).toEqual(['Alpha', 'alpha']);
    });

    it('validates tags', async () => {
      await expect(tags.replace(appId, 'course', 'c1', ['ok', '  '])).rejects.toThrow(/must not be empty/);
      await expect(tags.replace(appId, 'course', 'c1', ['x'.repeat(192)])).rejects.toThrow(/at most 191/);
      await expect(tags.replace(appId, 'course', 'c1', Array.from({ length: 101 }, (_, i) => `t${i}`))).rejects.toThrow(/at most 100/);
      await expect(tags.replace(appId, 'course', 'c1', [7 as unknown as string])).rejects.toThrow(InvalidInputError);
      await tags.replace(appId, 'course', 'c1', ['x'.repeat(191), ...Array.from({ length: 99 }, (_, i) => `t${i}`)]);
      expect(await tags.get(appId, 'course', 'c1')).toHaveLength(100);
      // A failed replace left the resource as it was.
      await expect(tags.replace(appId, 'course', 'c1', ['fine', ''])).rejects.toThrow();
      expect(await tags.get(appId, 'course', 'c1')).toHaveLength(100);
    });

    it('adds every tag of a batch to every id, keeping the tags they had', async () => {
      await tags.replace(appId, 'registration', 'r1', ['keep']);
      await tags.addBatch(appId, 'registration', ['r1', 'r2', 'r1'], ['x', 'y']);
      const map = await tags.tagsFor(appId, 'registration', ['r1', 'r2', 'r3']);
      expect(Object.fromEntries(map)).toEqual({ r1: ['keep', 'x', 'y'], r2: ['x', 'y'], r3: [] });
      // Same ids of another type or another application are separate resources.
      expect(await tags.get(appId, 'course', 'r1')).toEqual([]);
      expect(await tags.get(s.firstStart.management.appId, 'registration', 'r1')).toEqual([]);
      const many = Array.from({ length: 300 }, (_, i) => `bulk-${i}`);
      await tags.addBatch(appId, 'learner', many, ['a', 'b', 'c']);
      const counter = countQueries(s.app);
      const all = await tags.tagsFor(appId, 'learner', many);
      counter.stop();
      expect(counter.count).toBe(1);
      expect([...all.values()].every((t) => t.join() === 'a,b,c')).toBe(true);
      await tags.purge(appId, 'learner', many);
      expect((await tags.tagsFor(appId, 'learner', ['bulk-1'])).get('bulk-1')).toEqual([]);
      await expect(tags.addBatch(appId, 'registration', ['r1', ''], ['x'])).rejects.toThrow(/ids/);
    });

    it('filters a real query on any of the tags', async () => {
      const ds = s.app.get(DataSource);
      const other = s.firstStart.management.appId;
      for (const [app, id] of [[appId, 'fc1'], [appId, 'fc2'], [appId, 'fc3'], [other, 'fc1']]) {
        await ds.query('INSERT INTO course (app_id, id, title, latest_version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [app, id, id, 1, '2024-01-01 00:00:00.000', '2024-01-01 00:00:00.000']);
      }
      await tags.replace(appId, 'course', 'fc1', ['red', 'round']);
      await tags.replace(appId, 'course', 'fc2', ['blue']);
      await tags.replace(appId, 'course', 'fc3', ['round']);
      await tags.replace(appId, 'registration', 'fc3', ['red']);
      await tags.replace(other, 'course', 'fc1', ['blue']);

      const ids = async (filters: Array<string[] | undefined>) => {
        const qb = ds.createQueryBuilder().select('c.id', 'id').from('course', 'c').where('c.app_id = :app', { app: appId }).orderBy('c.id');
        for (const f of filters) tags.applyTagFilter(qb, 'c', 'id', appId, 'course', f);
        return (await qb.getRawMany<{ id: string }>()).map((r) => r.id);
      };
      expect(await ids([['red']])).toEqual(['fc1']);
      expect(await ids([['red', 'blue']])).toEqual(['fc1', 'fc2']);
      expect(await ids([['blue']])).toEqual(['fc2']);
      expect(await ids([['nothing']])).toEqual([]);
      expect(await ids([[]])).toEqual(['fc1', 'fc2', 'fc3']);
      expect(await ids([undefined])).toEqual(['fc1', 'fc2', 'fc3']);
      // Two filters on one query: both must hold (and their parameters do not collide).
      expect(await ids([['red', 'blue'], ['round']])).toEqual(['fc1']);
      await ds.query('DELETE FROM course WHERE id IN (?, ?, ?)', ['fc1', 'fc2', 'fc3']);
    });

    it('drops an application\'s tags when the application is deleted', async () => {
      const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
      const created = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'tags-purge' } });
      await tags.replace(created.body.id, 'dispatch', 'd1', ['a']);
      await tags.replace(appId, 'dispatch', 'd1', ['mine']);
      expect((await call(`${s.api}/appManagement/applications/${created.body.id}`, { method: 'DELETE', auth: mgmt })).status).toBe(204);
      expect(await tags.get(created.body.id, 'dispatch', 'd1')).toEqual([]);
      expect(await tags.get(appId, 'dispatch', 'd1')).toEqual(['mine']);
    });
  });
});
