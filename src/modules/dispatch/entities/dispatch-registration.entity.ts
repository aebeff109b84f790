import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Which registration is a client learner's on a dispatch (the learner key is the id LCDS sees, hashed or not). */
@Entity('dispatch_registration')
export class DispatchRegistrationEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 }) appId!: string;
  @PrimaryColumn({ type: 'varchar', length: 191 }) dispatchId!: string;
  @PrimaryColumn({ type: 'varchar', length: 191 }) learnerKey!: string;
  @Column({ type: 'varchar', length: 191 }) registrationId!: string;
  /** LTI 1.1: the consumer's Basic Outcomes service for this learner, and the result's sourcedid. */
  @Column({ type: 'text', nullable: true }) ltiOutcomeUrl!: string | null;
  @Column({ type: 'text', nullable: true }) ltiResultSourcedid!: string | null;
  /** LTI 1.3 AGS: the line item scores go to, and the platform's id of the learner (`sub`). */
  @Column({ type: 'text', nullable: true }) lti13Lineitem!: string | null;
  @Column({ type: 'varchar', length: 255, nullable: true }) lti13Subject!: string | null;
  @Column({ type: 'datetime', precision: 3 }) createdAt!: Date;
}
