import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { CourseActivity, CourseMetadata, LearningStandard, ParsedPackage } from '../packages/package-types';

/** What the player needs of a version, beyond the activity tree. */
export type StoredPackage = Pick<ParsedPackage, 'launchables' | 'packageData' | 'warnings' | 'courseLanguages'>;

const json = {
  to: (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value)),
  from: (value: string | null) => (value === null ? null : (JSON.parse(value) as unknown)),
};

@Entity('course_version')
export class CourseVersionEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  @PrimaryColumn({ type: 'varchar', length: 191 })
  courseId!: string;

  @PrimaryColumn({ type: 'int' })
  version!: number;

  @Column({ type: 'varchar', length: 512 })
  title!: string;

  @Column({ type: 'varchar', length: 32 })
  learningStandard!: LearningStandard;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  xapiActivityId!: string | null;

  @Column({ type: 'text', nullable: true, transformer: json })
  metadata!: CourseMetadata | null;

  @Column({ type: 'text', nullable: true, transformer: json })
  rootActivity!: CourseActivity | null;

  @Column({ type: 'text', nullable: true, transformer: json })
  package!: StoredPackage | null;

  /** Where the version's files live in the content store; each version has its own. */
  @Column({ type: 'varchar', length: 512 })
  contentPrefix!: string;

  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) } })
  sizeBytes!: number;

  @Column({ type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
