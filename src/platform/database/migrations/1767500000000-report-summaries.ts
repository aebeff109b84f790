import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { ColumnKit } from '../column-kit';

/** Score buckets (ten of 10 points) and time-spent buckets (seven) of report_day: s0..s9, t0..t6. */
const SCORE_BUCKETS = 10;
const TIME_BUCKETS = 7;

/**
 * The report viewer's summaries (RegistrationSummaries): per application, course and day of creation, the counts,
 * sums and histogram buckets of the registrations' latest instances (report_day), their completions per day
 * (report_completion_day), the buckets whose registrations were deleted (report_dirty) and how far each
 * application's summaries are brought up to date (report_state). Empty here: an application's summaries are built
 * by `lcds reports rebuild` or on its first refresh. registration_instance gets an index on its updated time, from
 * which a refresh finds the instances that changed; the registrations' course index also holds the latest instance.
 */
export class ReportSummaries1767500000000 implements MigrationInterface {
  name = 'ReportSummaries1767500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    const counter = (name: string) => c.bigint(name);
    const sum = (name: string) => ({ name, type: 'double', isNullable: false, default: 0 });
    await queryRunner.createTable(
      new Table({
        name: 'report_day',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('course_id', { isPrimary: true }),
          c.string('created_day', 10, { isPrimary: true }),
          ...['registrations', 'started', 'completed', 'passed', 'failed', 'score_count', 'seconds_count'].map(counter),
          sum('score_sum'),
          sum('seconds_sum'),
          ...Array.from({ length: SCORE_BUCKETS }, (_, k) => counter(`s${k}`)),
          ...Array.from({ length: TIME_BUCKETS }, (_, k) => counter(`t${k}`)),
        ],
        indices: [new TableIndex({ name: 'ix_report_day_day', columnNames: ['app_id', 'created_day'] })],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'report_completion_day',
        columns: [c.id('app_id', { isPrimary: true }), c.id('course_id', { isPrimary: true }), c.string('created_day', 10, { isPrimary: true }), c.string('completed_day', 10, { isPrimary: true }), counter('completed')],
        indices: [new TableIndex({ name: 'ix_report_completion_day_day', columnNames: ['app_id', 'created_day'] })],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'report_dirty',
        columns: [c.id('app_id', { isPrimary: true }), c.id('course_id', { isPrimary: true }), c.string('created_day', 10, { isPrimary: true }), c.datetime('marked_at')],
        indices: [new TableIndex({ name: 'ix_report_dirty_marked', columnNames: ['app_id', 'marked_at'] })],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'report_state',
        columns: [c.id('app_id', { isPrimary: true }), c.bool('built', false), c.datetime('watermark'), c.datetime('built_at', { isNullable: true })],
      }),
    );
    await queryRunner.createIndex('registration_instance', new TableIndex({ name: 'ix_registration_instance_updated', columnNames: ['app_id', 'updated_at'] }));
    // A course's newest registrations with their latest instance number, from the index alone (the course report reads
    // thousands: on MariaDB at a million registrations, reading each registration's row took half the time).
    await queryRunner.createIndex('registration', new TableIndex({ name: 'ix_registration_course_latest', columnNames: ['app_id', 'course_id', 'created_at', 'latest_instance'] }));
    await queryRunner.dropIndex('registration', 'ix_registration_course');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('registration', new TableIndex({ name: 'ix_registration_course', columnNames: ['app_id', 'course_id', 'created_at'] }));
    await queryRunner.dropIndex('registration', 'ix_registration_course_latest');
    await queryRunner.dropIndex('registration_instance', 'ix_registration_instance_updated');
    for (const table of ['report_state', 'report_dirty', 'report_completion_day', 'report_day']) await queryRunner.dropTable(table);
  }
}
