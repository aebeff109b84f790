import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { ColumnKit } from '../column-kit';

/**
 * Invitations (public and private), their user invitations (one per address or visitor, with the link token that is
 * theirs), and each application's administrators (who may erase a learner's data).
 */
export class Invitations1767000000000 implements MigrationInterface {
  name = 'Invitations1767000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'invitation',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('id', { isPrimary: true }),
          c.id('course_id'),
          c.bool('is_public', false),
          c.bool('allow_launch', true),
          c.bool('allow_new_registrations', true),
          c.int('registration_cap'),
          c.datetime('expiration_date', { isNullable: true }),
          c.text('post_back'),
          c.text('email_subject'),
          c.text('email_body'),
          c.string('creating_user_email', 320),
          c.string('duplicate_option', 32, { default: "'SEND_EXISTING'" }),
          // Public invitations: the token of their page's URL (unique across applications).
          c.string('public_token', 64, { isNullable: true }),
          c.string('job_status', 16, { isNullable: true }),
          c.int('job_total'),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
        indices: [
          new TableIndex({ name: 'ix_invitation_updated', columnNames: ['app_id', 'updated_at', 'id'] }),
          new TableIndex({ name: 'ix_invitation_created', columnNames: ['app_id', 'created_at', 'id'] }),
          new TableIndex({ name: 'ix_invitation_course', columnNames: ['app_id', 'course_id'] }),
          new TableIndex({ name: 'ux_invitation_public_token', columnNames: ['public_token'], isUnique: true }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'user_invitation',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('invitation_id', { isPrimary: true }),
          // The address as compared: trimmed, lower case (one user invitation per address and invitation).
          c.id('email_key', { isPrimary: true }),
          c.string('email', 320),
          c.string('first_name', 255, { isNullable: true }),
          c.string('last_name', 255, { isNullable: true }),
          c.id('registration_id', { isNullable: true }),
          c.string('token', 64),
          // pending (e-mail not yet handed to SMTP), sent, failed (error says why), joined (a public visitor).
          c.string('status', 16),
          c.text('error'),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
        indices: [
          new TableIndex({ name: 'ux_user_invitation_token', columnNames: ['token'], isUnique: true }),
          new TableIndex({ name: 'ix_user_invitation_updated', columnNames: ['app_id', 'invitation_id', 'updated_at'] }),
          new TableIndex({ name: 'ix_user_invitation_status', columnNames: ['app_id', 'invitation_id', 'status'] }),
          new TableIndex({ name: 'ix_user_invitation_registration', columnNames: ['app_id', 'registration_id'] }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'application_admin',
        columns: [c.id('app_id', { isPrimary: true }), c.id('email_key', { isPrimary: true }), c.string('email', 320), c.datetime('created_at')],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('application_admin');
    await queryRunner.dropTable('user_invitation');
    await queryRunner.dropTable('invitation');
  }
}
