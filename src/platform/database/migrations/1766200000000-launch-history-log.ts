import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { ColumnKit } from '../column-kit';

/**
 * The launches' history logs: appended in parts (one row a batch of lines), so that an append is an INSERT and never
 * rewrites the log (a LONGTEXT rewritten on every commit would cost the commit path its size each time);
 * launch_history.history_log_chars counts what a launch's log holds (its cap is checked on that number, not by
 * reading the log). launch_history.history_log keeps the log's first line (the launch), written with the row.
 */
export class LaunchHistoryLog1766200000000 implements MigrationInterface {
  name = 'LaunchHistoryLog1766200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.addColumn('launch_history', new TableColumn(c.int('history_log_chars')));
    await queryRunner.createTable(
      new Table({
        name: 'launch_history_log',
        columns: [
          // SQLite allows AUTOINCREMENT only on an INTEGER PRIMARY KEY (which is 64-bit).
          { name: 'seq', type: mysql ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          c.id('app_id'),
          c.id('registration_id'),
          c.int('instance', { default: undefined }),
          c.string('launch_history_id', 36),
          c.text('text', { isNullable: false }),
        ],
        indices: [
          new TableIndex({ name: 'ix_launch_history_log_launch', columnNames: ['app_id', 'launch_history_id', 'seq'] }),
          new TableIndex({ name: 'ix_launch_history_log_registration', columnNames: ['app_id', 'registration_id', 'instance'] }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('launch_history_log');
    await queryRunner.dropColumn('launch_history', 'history_log_chars');
  }
}
