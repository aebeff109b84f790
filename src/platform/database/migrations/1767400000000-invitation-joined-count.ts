import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { ColumnKit } from '../column-kit';

/**
 * How many visitors joined a public invitation (its user invitations), kept on the invitation row: a visitor takes
 * a place with one conditional update (`joined_count < registration_cap`), so simultaneous visitors never take the
 * invitation past its cap. Counted from the user invitations already there.
 */
export class InvitationJoinedCount1767400000000 implements MigrationInterface {
  name = 'InvitationJoinedCount1767400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.addColumn('invitation', new TableColumn(c.int('joined_count', { default: 0 })));
    await queryRunner.query(
      'UPDATE invitation SET joined_count = (SELECT COUNT(*) FROM user_invitation u WHERE u.app_id = invitation.app_id AND u.invitation_id = invitation.id)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('invitation', 'joined_count');
  }
}
