import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndex } from 'typeorm';
import { ColumnKit } from '../column-kit';

/** Registrations, their instances (progress and the activity tree the player fills) and launch history. */
export class Registrations1764000000000 implements MigrationInterface {
  name = 'Registrations1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    const double = (name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions => ({ name, type: 'double', isNullable: true, ...options });

    await queryRunner.createTable(
      new Table({
        name: 'registration',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('id', { isPrimary: true }),
          c.id('course_id'),
          c.id('learner_id'),
          c.string('learner_email', 320, { isNullable: true }),
          c.string('learner_first_name', 255, { isNullable: true }),
          c.string('learner_last_name', 255, { isNullable: true }),
          c.string('xapi_registration_id', 64),
          c.text('post_back'),
          c.int('latest_instance'),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
        indices: [
          new TableIndex({ name: 'ix_registration_created', columnNames: ['app_id', 'created_at', 'id'] }),
          new TableIndex({ name: 'ix_registration_updated', columnNames: ['app_id', 'updated_at', 'id'] }),
          new TableIndex({ name: 'ix_registration_course', columnNames: ['app_id', 'course_id', 'created_at'] }),
          new TableIndex({ name: 'ix_registration_learner', columnNames: ['app_id', 'learner_id', 'created_at'] }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'registration_instance',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('registration_id', { isPrimary: true }),
          c.int('instance', { isPrimary: true, default: undefined }),
          c.int('course_version', { default: undefined }),
          c.string('completion', 16),
          c.string('success', 16),
          double('completion_amount', { isNullable: false, default: 0 }),
          double('score_scaled'),
          double('total_seconds', { isNullable: false, default: 0 }),
          c.datetime('first_access_at', { isNullable: true }),
          c.datetime('last_access_at', { isNullable: true }),
          c.datetime('completed_at', { isNullable: true }),
          c.text('activity_details'),
          c.text('global_objectives'),
          c.string('suspended_activity_id', 1000, { isNullable: true }),
          c.bigint('commit_seq'),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'launch_history',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.string('id', 36, { isPrimary: true }),
          c.id('registration_id'),
          c.int('instance', { default: undefined }),
          c.datetime('launch_time'),
          c.datetime('exit_time', { isNullable: true }),
          c.datetime('last_runtime_update', { isNullable: true }),
          c.string('completion', 16),
          c.string('success', 16),
          double('score_scaled'),
          double('total_seconds', { isNullable: false, default: 0 }),
          c.text('history_log'),
        ],
        indices: [new TableIndex({ name: 'ix_launch_history_registration', columnNames: ['app_id', 'registration_id', 'instance', 'launch_time'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('launch_history');
    await queryRunner.dropTable('registration_instance');
    await queryRunner.dropTable('registration');
  }
}
