import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { JobStatus } from './job-queue';

/** One row per job (table `job`, created by the foundation migration). The queue transport only carries its id. */
@Entity('job')
export class JobEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 64 })
  queue!: string;

  @Column({ type: 'varchar', length: 191, nullable: true })
  appId!: string | null;

  /** JSON of the payload. */
  @Column({ type: 'text' })
  payload!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: JobStatus;

  /** Runs started so far (a claim adds one), including runs whose worker died. */
  @Column({ type: 'int' })
  attempts!: number;

  @Column({ type: 'int' })
  maxAttempts!: number;

  @Column({ type: 'int' })
  progress!: number;

  /** A queued job is not started before this time (delay, retry backoff). */
  @Column({ type: 'datetime', precision: 3 })
  runAfter!: Date;

  /** Worker id holding the running attempt. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  lockedBy!: string | null;

  /** The running attempt is presumed dead after this time unless its worker extends it. */
  @Column({ type: 'datetime', precision: 3, nullable: true })
  lockedUntil!: Date | null;

  /** JSON of the handler's return value. */
  @Column({ type: 'text', nullable: true })
  result!: string | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  finishedAt!: Date | null;
}
