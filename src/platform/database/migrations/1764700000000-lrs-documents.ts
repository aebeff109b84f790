import { MigrationInterface, QueryRunner, Table, TableColumn, TableColumnOptions, TableIndex } from 'typeorm';
import { ColumnKit } from '../column-kit';

/**
 * The LRS's document resources (State, Activity Profile, Agent Profile), the content of statement attachments, and
 * the target of StatementRef statements.
 * Both are kept in the database: documents are small and change under ETag concurrency, which a single row update
 * does atomically; attachment parts arrive in the same request as their statements and are stored in the same
 * transaction, so a statement never exists without its attachment (and nothing is left behind by a failed batch).
 */
export class LrsDocuments1764700000000 implements MigrationInterface {
  name = 'LrsDocuments1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const blob = (name: string): TableColumnOptions => ({ name, type: mysql ? 'longblob' : 'blob', isNullable: false });

    await queryRunner.createTable(
      new Table({
        name: 'xapi_document',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.string('kind', 8, { isPrimary: true }),
          c.string('scope', 64, { isPrimary: true }),
          c.id('doc_key', { isPrimary: true }),
          c.text('doc_id', { isNullable: false }),
          blob('content'),
          c.string('content_type', 255),
          c.string('etag', 64),
          c.datetime('updated'),
        ],
        indices: [new TableIndex({ name: 'ix_xapi_document_updated', columnNames: ['app_id', 'kind', 'scope', 'updated'] })],
      }),
    );

    // Statements whose object is a StatementRef meet a query's filters when their target does (XAPI-00162).
    await queryRunner.addColumn('xapi_statement', new TableColumn(c.string('ref_target', 36, { isNullable: true })));
    await queryRunner.createIndex('xapi_statement', new TableIndex({ name: 'ix_xapi_statement_ref', columnNames: ['app_id', 'ref_target', 'seq'] }));

    await queryRunner.createTable(
      new Table({
        name: 'xapi_attachment',
        columns: [c.id('app_id', { isPrimary: true }), c.string('sha2', 128, { isPrimary: true }), c.string('content_type', 255), blob('content')],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('xapi_attachment');
    await queryRunner.dropIndex('xapi_statement', 'ix_xapi_statement_ref');
    await queryRunner.dropColumn('xapi_statement', 'ref_target');
    await queryRunner.dropTable('xapi_document');
  }
}
