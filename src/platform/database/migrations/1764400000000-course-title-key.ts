import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { ColumnKit } from '../column-kit';

/**
 * GetCourses by title: `course.title_key`, the title's first 380 characters (the most MySQL's 3072-byte index keys
 * allow beside app_id and id; written with the title, see CourseEntity.titleKey), indexed for `orderBy=title_*` (an
 * index on the 512-character title exceeds MySQL's key length), and added to the created/updated indexes so that a
 * title `filter` is checked in the index before a row is read.
 */
export class CourseTitleKey1764400000000 implements MigrationInterface {
  name = 'CourseTitleKey1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = new ColumnKit(queryRunner);
    await queryRunner.addColumn('course', new TableColumn(c.string('title_key', 380, { default: "''" })));
    // substr counts characters on both databases, as titleKeyOf does.
    await queryRunner.query('UPDATE course SET title_key = substr(title, 1, 380)');
    await queryRunner.dropIndex('course', 'ix_course_created');
    await queryRunner.dropIndex('course', 'ix_course_updated');
    await queryRunner.createIndices('course', [
      new TableIndex({ name: 'ix_course_created', columnNames: ['app_id', 'created_at', 'id', 'title_key'] }),
      new TableIndex({ name: 'ix_course_updated', columnNames: ['app_id', 'updated_at', 'id', 'title_key'] }),
      new TableIndex({ name: 'ix_course_title', columnNames: ['app_id', 'title_key', 'id'] }),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('course', 'ix_course_title');
    await queryRunner.dropIndex('course', 'ix_course_created');
    await queryRunner.dropIndex('course', 'ix_course_updated');
    await queryRunner.dropColumn('course', 'title_key');
    await queryRunner.createIndices('course', [
      new TableIndex({ name: 'ix_course_created', columnNames: ['app_id', 'created_at', 'id'] }),
      new TableIndex({ name: 'ix_course_updated', columnNames: ['app_id', 'updated_at', 'id'] }),
    ]);
  }
}
