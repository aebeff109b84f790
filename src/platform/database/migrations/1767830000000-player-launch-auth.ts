import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { ColumnKit } from '../column-kit';

/**
 * launchAuth of launch links (LaunchAuthSchema): what the link asked for and, once claimed, what the session is bound
 * to (a cookie's hash, the client address, a fingerprint), as JSON; and when the session was last used (slidingExpiry).
 */
export class PlayerLaunchAuth1767830000000 implements MigrationInterface {
  name = 'PlayerLaunchAuth1767830000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.addColumn('player_session', new TableColumn(c.text('launch_auth')));
    await queryRunner.addColumn('player_session', new TableColumn(c.datetime('last_seen_at', { isNullable: true })));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('player_session', 'last_seen_at');
    await queryRunner.dropColumn('player_session', 'launch_auth');
  }
}
