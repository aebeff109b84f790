import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { ColumnKit } from '../column-kit';

/**
 * Player sessions: one row per launch link (its token id). `used_at` makes a link one-time: the launch claims the row
 * with a conditional update; the same row then backs the player session until `expires_at`.
 */
export class Player1764200000000 implements MigrationInterface {
  name = 'Player1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'player_session',
        columns: [
          c.string('id', 36, { isPrimary: true }),
          c.id('app_id'),
          c.id('registration_id'),
          c.int('instance', { default: undefined }),
          c.string('launch_history_id', 36, { isNullable: true }),
          c.datetime('created_at'),
          c.datetime('expires_at'),
          c.datetime('used_at', { isNullable: true }),
          c.text('settings'),
        ],
        indices: [
          new TableIndex({ name: 'ix_player_session_registration', columnNames: ['app_id', 'registration_id'] }),
          new TableIndex({ name: 'ix_player_session_expires', columnNames: ['expires_at'] }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('player_session');
  }
}
