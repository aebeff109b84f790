import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { dataSourceOptions } from '../../src/platform/database/data-source-options';
import { MIGRATIONS } from '../../src/platform/database/migration-list';
import { XapiReported1766000000000 } from '../../src/platform/database/migrations/1766000000000-xapi-reported';
import { createTestStack, TestStack } from '../support/test-stack';

/**
 * Upgrading an installation whose launches reported xAPI statements (xapi_launch_state rows, by the version before
 * commits stored their own statements): what each activity reported moves onto its instance, so the next commit
 * states only what changed since, and the table goes.
 */
describe('migration 1766000000000: what launches reported moves onto the instances', () => {
  let stack: TestStack;
  let ds: DataSource;

  beforeAll(async () => {
    stack = await createTestStack();
  });
  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await stack?.destroy();
  });

  it('copies each instance state by activity, leaves other instances alone, drops the table; down brings the table back', async () => {
    const config = loadConfig({ ...process.env, ...stack.env });
    const before = MIGRATIONS.filter((m) => m !== XapiReported1766000000000);
    expect(before).toHaveLength(MIGRATIONS.length - 1);
    ds = new DataSource({ ...dataSourceOptions(config), migrations: before });
    await ds.initialize();
    await ds.runMigrations();
    const now = '2026-11-01 10:00:00.000';
    const instance = (registrationId: string, n: number) =>
      ds.query(
        `INSERT INTO registration_instance (app_id, registration_id, instance, course_version, completion, success, completion_amount, total_seconds, commit_seq, created_at, updated_at)
         VALUES ('app', ?, ?, 1, 'UNKNOWN', 'UNKNOWN', 0, 0, 0, ?, ?)`,
        [registrationId, n, now, now],
      );
    await instance('r1', 0);
    await instance('r1', 1);
    await instance('r2', 0);
    const state = (registrationId: string, n: number, activityId: string, reported: unknown) =>
      ds.query(`INSERT INTO xapi_launch_state (app_id, registration_id, instance, activity_id, seq, reported, updated_at) VALUES ('app', ?, ?, ?, 3, ?, ?)`, [
        registrationId,
        n,
        activityId,
        typeof reported === 'string' ? reported : JSON.stringify(reported),
        now,
      ]);
    const a = { completion: 'COMPLETED', success: 'PASSED', score: '{"scaled":0.8}', interactions: 2 };
    const b = { completion: 'INCOMPLETE', success: 'UNKNOWN', score: null, interactions: 0 };
    await state('r1', 0, 'sco-1', a);
    await state('r1', 0, 'sco-2', b);
    await state('r1', 1, 'sco-1', b);
    await state('r2', 0, 'sco-1', 'not json');
    await ds.destroy();

    ds = new DataSource(dataSourceOptions(config));
    await ds.initialize();
    expect(await ds.runMigrations()).toHaveLength(1);
    const reported = async (registrationId: string, n: number) =>
      (await ds.query<Array<{ xapi_reported: string | null }>>('SELECT xapi_reported FROM registration_instance WHERE app_id = ? AND registration_id = ? AND instance = ?', ['app', registrationId, n]))[0].xapi_reported;
    expect(JSON.parse((await reported('r1', 0))!)).toEqual({ 'sco-1': a, 'sco-2': b });
    expect(JSON.parse((await reported('r1', 1))!)).toEqual({ 'sco-1': b });
    // An unreadable state is left out: that activity's next commit states its outcome again.
    expect(JSON.parse((await reported('r2', 0))!)).toEqual({});
    expect(await ds.createQueryRunner().hasTable('xapi_launch_state')).toBe(false);

    await ds.undoLastMigration();
    expect(await ds.createQueryRunner().hasTable('xapi_launch_state')).toBe(true);
    expect(await ds.createQueryRunner().hasColumn('registration_instance', 'xapi_reported')).toBe(false);
  });
});
