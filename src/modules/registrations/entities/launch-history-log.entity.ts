import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A part of a launch's history log (a batch of lines); the log is its launch's first line and its parts in seq order. */
@Entity('launch_history_log')
export class LaunchHistoryLogEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  seq!: string;

  @Column({ type: 'varchar', length: 191 })
  appId!: string;

  @Column({ type: 'varchar', length: 191 })
  registrationId!: string;

  @Column({ type: 'int' })
  instance!: number;

  @Column({ type: 'varchar', length: 36 })
  launchHistoryId!: string;

  @Column({ type: 'text' })
  text!: string;
}
