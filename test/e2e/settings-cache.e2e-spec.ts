import { SettingsService, SettingTarget } from '../../src/modules/settings/settings.service';
import { countQueries } from '../support/query-counter';
import { startExtraNode, startTestServer, TestServer } from '../support/test-server';
import { isProductionStack } from '../support/test-stack';

/**
 * The settings cache (effective values per application and chain, what every launch reads): a write is seen by the
 * next read, on the writing node at once and, on the production stack, on another node through Redis pub/sub.
 * Its own file: a second node's close must not end the first node's other tests' database connections.
 */
describe('SettingsService cache', () => {
  let s: TestServer;
  let settings: SettingsService;
  const course = { courseId: 'course-1', version: 2, learningStandard: 'SCORM12', singleSco: true };
  const version = { level: 'courseVersion', courseId: 'course-1', version: 2, learningStandard: 'SCORM12', singleSco: true } satisfies SettingTarget;

  beforeAll(async () => {
    s = await startTestServer();
    settings = s.app.get(SettingsService);
  });
  afterAll(async () => s?.close());

  it('caches effective values per chain; every write (set, clear, purge) is seen by the next read, on every node', async () => {
    const fresh = 'settings-cache-app';
    const reg = { level: 'registrationInstance', registrationId: 'cache-reg', instance: 0, course } satisfies SettingTarget;
    const read = async (svc: SettingsService, target: SettingTarget = reg) => (await svc.effective(fresh, target, ['PlayerScoLaunchType'])).get('PlayerScoLaunchType');
    expect(await read(settings)).toBe('NEW_WINDOW');
    // Warm: no query at all (the application has no registration-level values).
    const counter = countQueries(s.app);
    expect(await read(settings)).toBe('NEW_WINDOW');
    expect((await settings.explicit(fresh, reg, ['PlayerScoLaunchType'])).size).toBe(0);
    counter.stop();
    expect(counter.count).toBe(0);
    await settings.set(fresh, { level: 'application' }, [{ settingId: 'PlayerScoLaunchType', value: 'FRAMESET' }]);
    expect(await read(settings)).toBe('FRAMESET');
    await settings.set(fresh, version, [{ settingId: 'PlayerScoLaunchType', value: 'NEW_WINDOW_AFTER_CLICK' }]);
    expect(await read(settings)).toBe('NEW_WINDOW_AFTER_CLICK');
    await settings.set(fresh, reg, [{ settingId: 'PlayerScoLaunchType', value: 'NEW_WINDOW_WITHOUT_BROWSER_TOOLBAR' }]);
    expect(await read(settings)).toBe('NEW_WINDOW_WITHOUT_BROWSER_TOOLBAR');
    await settings.clear(fresh, reg, 'PlayerScoLaunchType');
    expect(await read(settings)).toBe('NEW_WINDOW_AFTER_CLICK');
    await settings.purgeTarget(fresh, version);
    expect(await read(settings)).toBe('FRAMESET');
    await settings.purgeApplication(fresh);
    expect(await read(settings)).toBe('NEW_WINDOW');
    if (!isProductionStack()) return;
    // Another node behind the load balancer: its cache is dropped by the write's message (Redis pub/sub).
    const other = await startExtraNode(s.stack);
    try {
      const otherSettings = other.app.get(SettingsService);
      expect(await read(otherSettings)).toBe('NEW_WINDOW');
      for (const value of ['FRAMESET', 'NEW_WINDOW_AFTER_CLICK']) {
        await settings.set(fresh, { level: 'course', courseId: 'course-1', learningStandard: 'SCORM12', singleSco: true }, [{ settingId: 'PlayerScoLaunchType', value }]);
        let seen: string | undefined;
        // The message crosses Redis asynchronously: allow it a moment, far below the cache's TTL (10 s).
        for (let i = 0; i < 20 && seen !== value; i++) {
          seen = await read(otherSettings);
          if (seen !== value) await new Promise((r) => setTimeout(r, 25));
        }
        expect(seen).toBe(value);
      }
    } finally {
      await other.close();
    }
  });
});
