import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { ColumnKit } from '../column-kit';

/**
 * SCORM 2004 sequencing: the engine's tracking state of each registration instance (activity states, attempts,
 * objectives, the global shared objectives of the registration), stored as JSON with the instance.
 */
export class SequencingState1765200000000 implements MigrationInterface {
  name = 'SequencingState1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.addColumn('registration_instance', new TableColumn(c.text('sequencing_state')));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('registration_instance', 'sequencing_state');
  }
}
