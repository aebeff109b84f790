import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { ColumnKit } from '../column-kit';

/** Dispatch: destinations, dispatches (with their package key and secret), their learners' registrations, launch nonces. */
export class Dispatch1767700000000 implements MigrationInterface {
  name = 'Dispatch1767700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'dispatch_destination',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('id', { isPrimary: true }),
          c.string('name', 255),
          c.string('email', 320, { isNullable: true }),
          c.text('notes'),
          c.text('launch_auth'),
          c.text('lti13_data'),
          c.bool('hash_user_info', false),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
        indices: [
          new TableIndex({ name: 'ix_dispatch_destination_updated', columnNames: ['app_id', 'updated_at', 'id'] }),
          new TableIndex({ name: 'ix_dispatch_destination_created', columnNames: ['app_id', 'created_at', 'id'] }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'dispatch',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('id', { isPrimary: true }),
          c.id('destination_id'),
          c.id('course_id'),
          c.bool('enabled', true),
          c.bool('allow_new_registrations', true),
          c.bool('instanced', true),
          c.bool('hash_user_info', false),
          c.int('registration_cap'),
          c.int('registration_count'),
          c.datetime('last_reset_at', { isNullable: true }),
          c.datetime('expiration_date', { isNullable: true }),
          c.string('email', 320, { isNullable: true }),
          c.text('notes'),
          c.text('post_back'),
          c.string('package_key', 64),
          c.string('secret', 128),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
        indices: [
          new TableIndex({ name: 'ix_dispatch_updated', columnNames: ['app_id', 'updated_at', 'id'] }),
          new TableIndex({ name: 'ix_dispatch_created', columnNames: ['app_id', 'created_at', 'id'] }),
          new TableIndex({ name: 'ix_dispatch_destination', columnNames: ['app_id', 'destination_id'] }),
          new TableIndex({ name: 'ix_dispatch_course', columnNames: ['app_id', 'course_id'] }),
          new TableIndex({ name: 'ux_dispatch_package_key', columnNames: ['package_key'], isUnique: true }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'dispatch_registration',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('dispatch_id', { isPrimary: true }),
          c.id('learner_key', { isPrimary: true }),
          c.id('registration_id'),
          // LTI 1.1 Basic Outcomes: where the consumer takes this learner's score, and its result id.
          c.text('lti_outcome_url'),
          c.text('lti_result_sourcedid'),
          // LTI 1.3 Assignment and Grade Services: the line item the platform takes scores on, and the learner's sub.
          c.text('lti13_lineitem'),
          c.string('lti13_subject', 255, { isNullable: true }),
          c.datetime('created_at'),
        ],
        indices: [new TableIndex({ name: 'ix_dispatch_registration_reg', columnNames: ['app_id', 'registration_id'] })],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'dispatch_nonce',
        columns: [c.id('nonce', { isPrimary: true }), c.datetime('expires_at')],
        indices: [new TableIndex({ name: 'ix_dispatch_nonce_expires', columnNames: ['expires_at'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('dispatch_nonce');
    await queryRunner.dropTable('dispatch_registration');
    await queryRunner.dropTable('dispatch');
    await queryRunner.dropTable('dispatch_destination');
  }
}
