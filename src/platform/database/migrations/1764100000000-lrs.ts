import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { ColumnKit } from '../column-kit';

/**
 * The LRS: xAPI credentials of applications, and the statements of each application's LRS.
 * Statement lookup keys (verb, agent, activity) are at most 191 characters: longer values are stored as a hash
 * (see statement-keys.ts), so every index stays far below MySQL's 3072-byte key limit.
 */
export class Lrs1764100000000 implements MigrationInterface {
  name = 'Lrs1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    const mysql = queryRunner.connection.driver.options.type === 'mysql';

    await queryRunner.createTable(
      new Table({
        name: 'xapi_credential',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('id', { isPrimary: true }),
          c.string('name', 255),
          c.text('info'),
          c.text('secret_sealed', { isNullable: false }),
          c.bool('is_enabled', true),
          c.string('auth', 16),
          c.string('permissions_level', 16),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
        indices: [
          new TableIndex({ name: 'ix_xapi_credential_created', columnNames: ['app_id', 'created_at', 'id'] }),
          new TableIndex({ name: 'ix_xapi_credential_updated', columnNames: ['app_id', 'updated_at', 'id'] }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'xapi_statement',
        columns: [
          // SQLite allows AUTOINCREMENT only on an INTEGER PRIMARY KEY (which is 64-bit).
          { name: 'seq', type: mysql ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          c.id('app_id'),
          c.string('id', 36),
          c.text('statement', { isNullable: false }),
          c.string('content_hash', 64),
          c.id('verb_id'),
          c.id('agent', { isNullable: true }),
          c.id('activity_id', { isNullable: true }),
          c.string('registration', 36, { isNullable: true }),
          c.bool('voided', false),
          c.string('voiding_target', 36, { isNullable: true }),
          c.id('credential_id', { isNullable: true }),
          c.datetime('timestamp'),
          c.datetime('stored'),
        ],
        indices: [
          new TableIndex({ name: 'ux_xapi_statement_id', columnNames: ['app_id', 'id'], isUnique: true }),
          new TableIndex({ name: 'ix_xapi_statement_app', columnNames: ['app_id', 'seq'] }),
          new TableIndex({ name: 'ix_xapi_statement_verb', columnNames: ['app_id', 'verb_id', 'seq'] }),
          new TableIndex({ name: 'ix_xapi_statement_agent', columnNames: ['app_id', 'agent', 'seq'] }),
          new TableIndex({ name: 'ix_xapi_statement_activity', columnNames: ['app_id', 'activity_id', 'seq'] }),
          new TableIndex({ name: 'ix_xapi_statement_registration', columnNames: ['app_id', 'registration', 'seq'] }),
          new TableIndex({ name: 'ix_xapi_statement_voiding', columnNames: ['app_id', 'voiding_target'] }),
        ],
      }),
    );

    // Every agent and activity a statement mentions (actor, object, context, authority, sub-statement), for
    // the related_agents / related_activities queries.
    await queryRunner.createTable(
      new Table({
        name: 'xapi_statement_link',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.string('kind', 8, { isPrimary: true }),
          c.id('value', { isPrimary: true }),
          c.bigint('seq', { isPrimary: true, default: undefined }),
        ],
        indices: [new TableIndex({ name: 'ix_xapi_statement_link_seq', columnNames: ['app_id', 'seq'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('xapi_statement_link');
    await queryRunner.dropTable('xapi_statement');
    await queryRunner.dropTable('xapi_credential');
  }
}
