import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { ColumnKit } from '../column-kit';

/** Courses and their versions, configuration settings at every level, and tags of every taggable resource. */
export class Courses1763900000000 implements MigrationInterface {
  name = 'Courses1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);

    await queryRunner.createTable(
      new Table({
        name: 'course',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('id', { isPrimary: true }),
          c.string('title', 512),
          c.int('latest_version'),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
        indices: [
          new TableIndex({ name: 'ix_course_created', columnNames: ['app_id', 'created_at', 'id'] }),
          new TableIndex({ name: 'ix_course_updated', columnNames: ['app_id', 'updated_at', 'id'] }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'course_version',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.id('course_id', { isPrimary: true }),
          c.int('version', { isPrimary: true, default: undefined }),
          c.string('title', 512),
          c.string('learning_standard', 32),
          c.string('xapi_activity_id', 1000, { isNullable: true }),
          c.text('metadata'),
          c.text('root_activity'),
          c.text('package'),
          c.string('content_prefix', 512),
          c.bigint('size_bytes'),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
        indices: [new TableIndex({ name: 'ix_course_version_created', columnNames: ['app_id', 'course_id', 'created_at'] })],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'setting_value',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.string('level', 32, { isPrimary: true }),
          c.id('target_id', { isPrimary: true }),
          c.string('variant', 64, { isPrimary: true, default: "''" }),
          c.string('setting_id', 128, { isPrimary: true }),
          c.text('value', { isNullable: false }),
          c.datetime('updated_at'),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'tag',
        columns: [
          c.id('app_id', { isPrimary: true }),
          c.string('resource_type', 32, { isPrimary: true }),
          c.id('resource_id', { isPrimary: true }),
          c.id('tag', { isPrimary: true }),
        ],
        indices: [new TableIndex({ name: 'ix_tag_lookup', columnNames: ['app_id', 'resource_type', 'tag', 'resource_id'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('tag');
    await queryRunner.dropTable('setting_value');
    await queryRunner.dropTable('course_version');
    await queryRunner.dropTable('course');
  }
}
