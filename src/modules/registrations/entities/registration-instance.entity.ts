import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ActivityResult, Objective } from '../registration-types';
import { bigintColumn, doubleColumn, jsonColumn } from '../../../platform/database/column-transformers';

/**
 * One instance of a registration: the course version it runs, the progress summary (scalar columns, for lists)
 * and the full activity tree with runtime data (JSON; the player writes it with ordered, idempotent commits).
 */
@Entity('registration_instance')
export class RegistrationInstanceEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  @PrimaryColumn({ type: 'varchar', length: 191 })
  registrationId!: string;

  @PrimaryColumn({ type: 'int' })
  instance!: number;

  @Column({ type: 'int' })
  courseVersion!: number;

  /** RegistrationCompletion: UNKNOWN | COMPLETED | INCOMPLETE */
  @Column({ type: 'varchar', length: 16 })
  completion!: string;

  /** RegistrationSuccess: UNKNOWN | PASSED | FAILED */
  @Column({ type: 'varchar', length: 16 })
  success!: string;

  @Column({ type: 'double', default: 0, transformer: doubleColumn })
  completionAmount!: number;

  @Column({ type: 'double', nullable: true, transformer: doubleColumn })
  scoreScaled!: number | null;

  @Column({ type: 'double', default: 0, transformer: doubleColumn })
  totalSeconds!: number;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  firstAccessAt!: Date | null;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  lastAccessAt!: Date | null;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  completedAt!: Date | null;

  /** ActivityResultSchema tree, with runtime data, as the player keeps it. */
  @Column({ type: 'text', nullable: true, transformer: jsonColumn })
  activityDetails!: ActivityResult | null;

  @Column({ type: 'text', nullable: true, transformer: jsonColumn })
  globalObjectives!: Objective[] | null;

  /**
   * SCORM 2004 courses: the sequencing engine's serialized state (SerializedSequencingState JSON: activity states,
   * attempts, objectives, and the registration's global shared objectives); null until the first launch.
   */
  @Column({ type: 'text', nullable: true, select: false })
  sequencingState!: string | null;

  /**
   * SCORM courses: what the xAPI statements of the player's commits have reported of each activity (ReportedState
   * JSON by activity id), written with the commit that states it; null before the first such commit.
   */
  @Column({ type: 'text', nullable: true, select: false })
  xapiReported!: string | null;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  suspendedActivityId!: string | null;

  /** Sequence number of the player's last applied commit (ordered, idempotent commits). */
  @Column({ type: 'bigint', default: 0, transformer: bigintColumn })
  commitSeq!: number;

  @Column({ type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
