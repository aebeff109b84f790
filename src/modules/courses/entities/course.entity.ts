import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('course')
export class CourseEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  @PrimaryColumn({ type: 'varchar', length: 191 })
  id!: string;

  @Column({ type: 'varchar', length: 512 })
  title!: string;

  /**
   * The title's first 380 characters, for sorting and pre-filtering by title in an index (MySQL's key length does not
   * allow the whole title beside app_id and id). Written with the title: set both with `titleFields`.
   */
  @Column({ type: 'varchar', length: 380, default: '' })
  titleKey!: string;

  @Column({ type: 'int' })
  latestVersion!: number;

  @Column({ type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}

export const TITLE_KEY_LENGTH = 380;

/** `title_key` of a title: its first 380 characters (code points, as SQL substr counts them). */
export function titleKeyOf(title: string): string {
  return title.length <= TITLE_KEY_LENGTH ? title : Array.from(title).slice(0, TITLE_KEY_LENGTH).join('');
}

/** The columns to write when a course's title changes. */
export function titleFields(title: string): Pick<CourseEntity, 'title' | 'titleKey'> {
  return { title, titleKey: titleKeyOf(title) };
}
