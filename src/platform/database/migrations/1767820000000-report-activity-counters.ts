import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';
import { ColumnKit } from '../column-kit';

/**
 * The report viewer's counters of progress per activity (report_activity_day) and question analysis
 * (report_question_day, and report_answer_day: how many gave each wrong final answer), per application, course
 * and UTC day of creation, kept by RegistrationSummaries with report_day. Keys of ids and answers are SHA-1 hex
 * (ids and answers can be longer than an index allows). Every application's summaries are dropped (report_state
 * emptied): they are built again, counters included, by `lcds reports rebuild` or on the next report.
 */
export class ReportActivityCounters1767820000000 implements MigrationInterface {
  name = 'ReportActivityCounters1767820000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    const bucket = (): TableColumnOptions[] => [c.id('app_id', { isPrimary: true }), c.id('course_id', { isPrimary: true }), c.string('created_day', 10, { isPrimary: true })];
    const sha1 = (name: string) => c.string(name, 40, { isPrimary: true });
    await queryRunner.createTable(
      new Table({
        name: 'report_activity_day',
        columns: [...bucket(), sha1('activity_key'), c.text('activity_id', { isNullable: false }), c.text('title'), c.int('depth'), c.int('tree_position'), c.bigint('attempted'), c.bigint('completed'), c.bigint('passed')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'report_question_day',
        columns: [
          ...bucket(),
          sha1('question_key'),
          c.text('activity_id', { isNullable: false }),
          c.text('interaction_id', { isNullable: false }),
          c.text('description'),
          c.text('interaction_type'),
          c.int('tree_position'),
          c.int('ordinal'),
          c.bigint('answered'),
          c.bigint('correct'),
          c.bigint('latency_count'),
          { name: 'latency_sum', type: 'double', isNullable: false, default: 0 },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'report_answer_day',
        columns: [...bucket(), sha1('question_key'), sha1('response_key'), c.text('response'), c.bigint('wrong')],
      }),
    );
    await queryRunner.query('DELETE FROM report_completion_day');
    await queryRunner.query('DELETE FROM report_day');
    await queryRunner.query('DELETE FROM report_dirty');
    await queryRunner.query('DELETE FROM report_state');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['report_answer_day', 'report_question_day', 'report_activity_day']) await queryRunner.dropTable(table);
  }
}
