import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One completed registration instance, as the extension exported it (table `ext_registration_completed_export`). */
@Entity('ext_registration_completed_export')
export class CompletionExportEntity {
  /** The RegistrationCompleted event's id: a redelivered event finds its row already there. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  eventId!: string;

  @Column({ type: 'varchar', length: 191 })
  appId!: string;

  @Column({ type: 'varchar', length: 191 })
  registrationId!: string;

  @Column({ type: 'int' })
  instance!: number;

  @Column({ type: 'varchar', length: 191 })
  courseId!: string;

  @Column({ type: 'varchar', length: 191 })
  learnerId!: string;

  @Column({ type: 'varchar', length: 16 })
  success!: string;

  @Column({ type: 'double', nullable: true })
  score!: number | null;

  @Column({ type: 'int' })
  totalSecondsTracked!: number;

  @Column({ type: 'datetime', precision: 3 })
  completedAt!: Date;

  @Column({ type: 'datetime', precision: 3 })
  exportedAt!: Date;
}
