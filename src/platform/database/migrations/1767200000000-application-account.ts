import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { ColumnKit } from '../column-kit';

/**
 * What GetAccountInfo reports about an application beyond its counts: an optional registration limit per
 * calendar month (reg_limit; strict_limit makes CreateRegistration refuse past it) and contact details.
 */
export class ApplicationAccount1767200000000 implements MigrationInterface {
  name = 'ApplicationAccount1767200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.addColumns('application', [
      new TableColumn(c.int('reg_limit', { isNullable: true, default: null })),
      new TableColumn(c.bool('strict_limit', false)),
      new TableColumn(c.string('contact_email', 255, { isNullable: true })),
      new TableColumn(c.string('contact_company', 255, { isNullable: true })),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const column of ['contact_company', 'contact_email', 'strict_limit', 'reg_limit']) await queryRunner.dropColumn('application', column);
  }
}
