import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * What the statements of a registration instance's activity have reported so far (completion, success, score,
 * interactions) and the last commit sequence turned into statements, so each commit's job states only what changed.
 */
@Entity('xapi_launch_state')
export class XapiLaunchStateEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  @PrimaryColumn({ type: 'varchar', length: 191 })
  registrationId!: string;

  @PrimaryColumn({ type: 'int' })
  instance!: number;

  @PrimaryColumn({ type: 'varchar', length: 191 })
  activityId!: string;

  @Column({ type: 'bigint' })
  seq!: number;

  /** ReportedState, JSON. */
  @Column({ type: 'text' })
  reported!: string;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
