import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { ColumnKit } from '../column-kit';

/** xAPI statement pipes (XapiStatementPipeEntity) and what launches have reported as statements (XapiLaunchStateEntity). */
export class XapiPipes1764800000000 implements MigrationInterface {
  name = 'XapiPipes1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'xapi_statement_pipe',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('id', { isPrimary: true }),
          c.text('source_url'),
          c.string('source_user', 255, { isNullable: true }),
          c.text('source_password_sealed'),
          c.text('target_url', { isNullable: false }),
          c.string('target_user', 255, { isNullable: true }),
          c.text('target_password_sealed'),
          c.int('generation'),
          c.datetime('last_forwarded_statement_date', { isNullable: true }),
          c.text('more_url'),
          c.int('attempts'),
          c.datetime('visible_after'),
          c.text('last_error'),
          c.datetime('processing_until', { isNullable: true }),
          c.string('processing_token', 36, { isNullable: true }),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
        indices: [new TableIndex({ name: 'ix_xapi_statement_pipe_due', columnNames: ['visible_after'] })],
      }),
    );
    await queryRunner.createTable(xapiLaunchStateTable(c));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('xapi_launch_state');
    await queryRunner.dropTable('xapi_statement_pipe');
  }
}

/** What launches reported as statements, by activity (until migration 1766000000000 moved it onto the instances). */
export function xapiLaunchStateTable(c: ColumnKit): Table {
  return new Table({
    name: 'xapi_launch_state',
    columns: [
      c.id('app_id', { isPrimary: true }),
      c.id('registration_id', { isPrimary: true }),
      c.int('instance', { isPrimary: true, default: undefined }),
      c.id('activity_id', { isPrimary: true }),
      c.bigint('seq'),
      c.text('reported', { isNullable: false }),
      c.datetime('updated_at'),
    ],
  });
}
