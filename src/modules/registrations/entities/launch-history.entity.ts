import { Column, Entity, PrimaryColumn } from 'typeorm';
import { doubleColumn } from '../../../platform/database/column-transformers';

/** One launch of a registration instance (LaunchHistorySchema); written by the player. */
@Entity('launch_history')
export class LaunchHistoryEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 191 })
  registrationId!: string;

  @Column({ type: 'int' })
  instance!: number;

  @Column({ type: 'datetime', precision: 3 })
  launchTime!: Date;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  exitTime!: Date | null;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  lastRuntimeUpdate!: Date | null;

  @Column({ type: 'varchar', length: 16 })
  completion!: string;

  @Column({ type: 'varchar', length: 16 })
  success!: string;

  @Column({ type: 'double', nullable: true, transformer: doubleColumn })
  scoreScaled!: number | null;

  @Column({ type: 'double', default: 0, transformer: doubleColumn })
  totalSeconds!: number;

  /** The log's first line (the launch); the rest is in launch_history_log (launch-history-log.ts). */
  @Column({ type: 'text', nullable: true })
  historyLog!: string | null;

  /** Characters the launch's log holds (its first line and its parts): the cap is checked on this. */
  @Column({ type: 'int', default: 0 })
  historyLogChars!: number;
}
