import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The postback sequence of one registration: `requestedSeq` goes up on every progress change that asks for a
 * postback, `settledSeq` is the highest requested sequence a postback job has dealt with (delivered, or given up
 * on after a day of retries). The one pending job of a registration is keyed by `settledSeq`, so that every change
 * while it waits folds into it, and a job whose key is below `settledSeq` is stale and does nothing.
 */
@Entity('registration_postback_state')
export class RegistrationPostbackStateEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  @PrimaryColumn({ type: 'varchar', length: 191 })
  registrationId!: string;

  /** The instance of the latest change: the one the postback describes. */
  @Column({ type: 'int' })
  instance!: number;

  @Column({ type: 'int' })
  requestedSeq!: number;

  @Column({ type: 'int' })
  settledSeq!: number;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
