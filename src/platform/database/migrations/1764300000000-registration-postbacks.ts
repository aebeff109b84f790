import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { ColumnKit } from '../column-kit';

/** The postback sequence of each registration (see RegistrationPostbackStateEntity). */
export class RegistrationPostbacks1764300000000 implements MigrationInterface {
  name = 'RegistrationPostbacks1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'registration_postback_state',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('registration_id', { isPrimary: true }),
          c.int('instance'),
          c.int('requested_seq'),
          c.int('settled_seq'),
          c.datetime('updated_at'),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('registration_postback_state');
  }
}
