import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { ColumnKit } from '../column-kit';

/**
 * The AI plugin (docs/aiplugin.md): each application's partner company id and key pair (the private key sealed with
 * the master key), and each course version's plugin state (enabled, course options, where its import to the partner
 * stands). Content connectors (CreateConnector): where an application keeps course packages (S3 or HTTP), their
 * secrets sealed.
 */
export class AiPlugin1767800000000 implements MigrationInterface {
  name = 'AiPlugin1767800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'ai_plugin_app',
        columns: [c.id('app_id', { isPrimary: true }), c.string('company_id', 255, { isNullable: true }), c.text('public_key'), c.text('private_key'), c.datetime('updated_at')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'ai_plugin_course',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('course_id', { isPrimary: true }),
          c.int('version', { isPrimary: true }),
          c.bool('enabled', false),
          c.string('nti', 255, { isNullable: true }),
          c.string('cta', 255, { isNullable: true }),
          // null (never imported), QUEUED, IMPORTED, FAILED (error says why).
          c.string('import_state', 16, { isNullable: true }),
          c.text('error'),
          c.datetime('updated_at'),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'content_connector',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('id', { isPrimary: true }),
          c.string('type', 16),
          // The configuration without its secrets (JSON); the secrets, sealed (JSON inside).
          c.text('configuration'),
          c.text('secrets'),
          c.bool('enabled', true),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('content_connector');
    await queryRunner.dropTable('ai_plugin_course');
    await queryRunner.dropTable('ai_plugin_app');
  }
}
