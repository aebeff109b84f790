import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { ColumnKit } from '../column-kit';

/**
 * The agent a State or Agent Profile document hangs off, as the statements' agent key (indexKey of its inverse
 * functional identifier): the document's scope is a hash, so without it a learner's documents could not be found to
 * erase them (DeleteAllLearnerData). Documents written before have none.
 */
export class XapiDocumentAgent1767300000000 implements MigrationInterface {
  name = 'XapiDocumentAgent1767300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.addColumn('xapi_document', new TableColumn(c.id('agent_key', { isNullable: true })));
    await queryRunner.createIndex('xapi_document', new TableIndex({ name: 'ix_xapi_document_agent', columnNames: ['app_id', 'agent_key'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('xapi_document', 'ix_xapi_document_agent');
    await queryRunner.dropColumn('xapi_document', 'agent_key');
  }
}
