import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Two indexes fewer to maintain on every stored statement. ix_xapi_statement_voiding: a voiding statement's target is
 * also its ref_target, found through ix_xapi_statement_ref. ix_xapi_statement_link_seq: no query reads links by seq
 * alone (filters go through the primary key app/kind/value/seq, application deletion through its app_id prefix).
 */
export class LrsIngestIndexes1765500000000 implements MigrationInterface {
  name = 'LrsIngestIndexes1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('xapi_statement', 'ix_xapi_statement_voiding');
    await queryRunner.dropIndex('xapi_statement_link', 'ix_xapi_statement_link_seq');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('xapi_statement_link', new TableIndex({ name: 'ix_xapi_statement_link_seq', columnNames: ['app_id', 'seq'] }));
    await queryRunner.createIndex('xapi_statement', new TableIndex({ name: 'ix_xapi_statement_voiding', columnNames: ['app_id', 'voiding_target'] }));
  }
}
