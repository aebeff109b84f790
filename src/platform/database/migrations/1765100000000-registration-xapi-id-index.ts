import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/** Finds a registration by the context.registration of xAPI statements (the progress of xAPI courses). */
export class RegistrationXapiIdIndex1765100000000 implements MigrationInterface {
  name = 'RegistrationXapiIdIndex1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('registration', new TableIndex({ name: 'ix_registration_xapi_id', columnNames: ['app_id', 'xapi_registration_id'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('registration', 'ix_registration_xapi_id');
  }
}
