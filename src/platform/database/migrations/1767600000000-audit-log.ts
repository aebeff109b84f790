import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { ColumnKit } from '../column-kit';

/** The audit log: one row per audited change (application, key, credential, pipe, configuration, erasure). */
export class AuditLog1767600000000 implements MigrationInterface {
  name = 'AuditLog1767600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.createTable(
      new Table({
        name: 'audit_entry',
        columns: [
          { name: 'seq', type: mysql ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          c.id('app_id'),
          c.datetime('occurred_at'),
          c.string('action', 64),
          c.string('actor_kind', 16),
          c.id('actor_app_id', { isNullable: true }),
          c.id('actor_credential_id', { isNullable: true }),
          c.string('source', 191, { isNullable: true }),
          c.text('targets', { isNullable: false }),
          c.text('fields', { isNullable: false }),
        ],
        indices: [new TableIndex({ name: 'ix_audit_entry_app', columnNames: ['app_id', 'seq'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('audit_entry');
  }
}
