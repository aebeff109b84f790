import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { ColumnKit } from '../column-kit';
import { xapiLaunchStateTable } from './1764800000000-xapi-pipes';

/**
 * What the statements of a registration instance's SCORM activities have reported (ReportedState by activity id)
 * moves from the xapi_launch_state table into the instance's row (registration_instance.xapi_reported): a commit now
 * writes its statements in its own transaction, and the instance row it updates carries the state they are made
 * against. The rows of the table are copied, then the table goes.
 */
export class XapiReported1766000000000 implements MigrationInterface {
  name = 'XapiReported1766000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.addColumn('registration_instance', new TableColumn(c.text('xapi_reported')));
    const rows = (await queryRunner.query('SELECT app_id, registration_id, instance, activity_id, reported FROM xapi_launch_state')) as Array<{
      app_id: string;
      registration_id: string;
      instance: number | string;
      activity_id: string;
      reported: string;
    }>;
    const byInstance = new Map<string, { key: [string, string, number]; reported: Record<string, unknown> }>();
    for (const r of rows) {
      const k = `${r.app_id}\n${r.registration_id}\n${Number(r.instance)}`;
      let entry = byInstance.get(k);
      if (!entry) byInstance.set(k, (entry = { key: [r.app_id, r.registration_id, Number(r.instance)], reported: {} }));
      try {
        entry.reported[r.activity_id] = JSON.parse(r.reported) as unknown;
      } catch {
        // An unreadable state reports nothing: the next commit states the activity's outcome again.
      }
    }
    for (const { key, reported } of byInstance.values()) {
      await queryRunner.query('UPDATE registration_instance SET xapi_reported = ? WHERE app_id = ? AND registration_id = ? AND instance = ?', [JSON.stringify(reported), ...key]);
    }
    await queryRunner.dropTable('xapi_launch_state');
  }

  /** Back to the table, empty: the earlier version's next commit of each activity states its outcome again. */
  async down(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.createTable(xapiLaunchStateTable(c));
    await queryRunner.dropColumn('registration_instance', 'xapi_reported');
  }
}
