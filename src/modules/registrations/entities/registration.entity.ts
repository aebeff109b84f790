import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sealed } from '../../../platform/crypto/sealed';
import { jsonColumn } from '../../../platform/database/column-transformers';

export type { StoredPostBack } from '../registration-types';
import type { StoredPostBack } from '../registration-types';

/** A learner's enrolment in a course; progress lives on its instances. */
@Entity('registration')
export class RegistrationEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  @PrimaryColumn({ type: 'varchar', length: 191 })
  id!: string;

  @Column({ type: 'varchar', length: 191 })
  courseId!: string;

  @Column({ type: 'varchar', length: 191 })
  learnerId!: string;

  @Column({ type: 'varchar', length: 320, nullable: true })
  learnerEmail!: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  learnerFirstName!: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  learnerLastName!: string | null;

  @Column({ type: 'varchar', length: 64 })
  xapiRegistrationId!: string;

  @Sealed({ jsonField: 'sealedPassword' })
  @Column({ type: 'text', nullable: true, transformer: jsonColumn })
  postBack!: StoredPostBack | null;

  /** The highest instance number that exists; GetRegistrationProgress reads this one. */
  @Column({ type: 'int' })
  latestInstance!: number;

  @Column({ type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
