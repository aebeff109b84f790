import { ColumnKit } from 'lcds/extension';
import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/** The extension's table. The class name starts with the extension's name: migration names share one table with LCDS's. */
export class RegistrationCompletedExport1767000000000 implements MigrationInterface {
  name = 'RegistrationCompletedExport1767000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'ext_registration_completed_export',
        columns: [
          c.string('event_id', 36, { isPrimary: true }),
          c.id('app_id'),
          c.id('registration_id'),
          c.int('instance', { default: undefined }),
          c.id('course_id'),
          c.id('learner_id'),
          c.string('success', 16),
          { name: 'score', type: 'double', isNullable: true },
          c.int('total_seconds_tracked'),
          c.datetime('completed_at'),
          c.datetime('exported_at'),
        ],
        indices: [new TableIndex({ name: 'ix_ext_rce_app_completed', columnNames: ['app_id', 'completed_at'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('ext_registration_completed_export');
  }
}
