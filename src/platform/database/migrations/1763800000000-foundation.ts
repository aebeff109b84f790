import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { ColumnKit } from '../column-kit';

export class Foundation1763800000000 implements MigrationInterface {
  name = 'Foundation1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);

    await queryRunner.createTable(
      new Table({
        name: 'system_state',
        columns: [c.string('key', 64, { isPrimary: true }), c.text('value'), c.datetime('updated_at')],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'application',
        columns: [
          c.id('id', { isPrimary: true }),
          c.string('name'),
          c.bool('is_management', false),
          c.bool('allow_delete', true),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
        indices: [
          new TableIndex({ name: 'ix_application_created', columnNames: ['created_at', 'id'] }),
          new TableIndex({ name: 'ix_application_updated', columnNames: ['updated_at', 'id'] }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'application_credential',
        columns: [
          c.id('id', { isPrimary: true }),
          c.id('app_id'),
          c.string('name'),
          c.text('secret_sealed', { isNullable: false }),
          c.text('pens_sealed', { isNullable: false }),
          c.string('status', 16),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
        indices: [new TableIndex({ name: 'ix_credential_app', columnNames: ['app_id', 'created_at'] })],
      }),
    );
    await queryRunner.createForeignKey(
      'application_credential',
      new TableForeignKey({ columnNames: ['app_id'], referencedTableName: 'application', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'job',
        columns: [
          c.id('id', { length: '36', isPrimary: true }),
          c.string('queue', 64),
          c.id('app_id', { isNullable: true }),
          c.text('payload', { isNullable: false }),
          c.string('status', 16),
          c.int('attempts'),
          c.int('max_attempts', { default: 5 }),
          c.int('progress'),
          c.datetime('run_after'),
          c.string('locked_by', 128, { isNullable: true }),
          c.datetime('locked_until', { isNullable: true }),
          c.text('result'),
          c.text('error'),
          c.datetime('created_at'),
          c.datetime('updated_at'),
          c.datetime('finished_at', { isNullable: true }),
        ],
        indices: [
          new TableIndex({ name: 'ix_job_status_run_after', columnNames: ['status', 'run_after'] }),
          new TableIndex({ name: 'ix_job_finished', columnNames: ['finished_at'] }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('job');
    await queryRunner.dropTable('application_credential');
    await queryRunner.dropTable('application');
    await queryRunner.dropTable('system_state');
  }
}
