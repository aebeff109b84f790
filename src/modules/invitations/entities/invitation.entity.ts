import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sealed } from '../../../platform/crypto/sealed';
import { jsonColumn } from '../../../platform/database/column-transformers';
import type { StoredPostBack } from '../../registrations/registration-types';

export const DUPLICATE_OPTIONS = ['FAIL', 'INSTANCE_EXISTING', 'SEND_EXISTING', 'CREATE_NEW'] as const;
export type DuplicateOption = (typeof DUPLICATE_OPTIONS)[number];
export type InvitationJobState = 'STARTED' | 'CANCELLED' | 'COMPLETE' | 'ERROR';

/** A public or private invitation to a course. */
@Entity('invitation')
export class InvitationEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 }) appId!: string;
  @PrimaryColumn({ type: 'varchar', length: 191 }) id!: string;
  @Column({ type: 'varchar', length: 191 }) courseId!: string;
  @Column({ type: 'boolean' }) isPublic!: boolean;
  @Column({ type: 'boolean' }) allowLaunch!: boolean;
  @Column({ type: 'boolean' }) allowNewRegistrations!: boolean;
  /** 0 = no cap. */
  @Column({ type: 'int' }) registrationCap!: number;
  /**
   * Public: the visitors who joined (its user invitations). Only the conditional updates of InvitationsService change
   * it (never `save`, which would write back a stale count).
   */
  @Column({ type: 'int', update: false }) joinedCount!: number;
  @Column({ type: 'datetime', precision: 3, nullable: true }) expirationDate!: Date | null;
  @Sealed({ jsonField: 'sealedPassword' }) @Column({ type: 'text', nullable: true, transformer: jsonColumn }) postBack!: StoredPostBack | null;
  @Column({ type: 'text', nullable: true }) emailSubject!: string | null;
  @Column({ type: 'text', nullable: true }) emailBody!: string | null;
  @Column({ type: 'varchar', length: 320 }) creatingUserEmail!: string;
  @Column({ type: 'varchar', length: 32 }) duplicateOption!: DuplicateOption;
  @Column({ type: 'varchar', length: 64, nullable: true }) publicToken!: string | null;
  @Column({ type: 'varchar', length: 16, nullable: true }) jobStatus!: InvitationJobState | null;
  @Column({ type: 'int' }) jobTotal!: number;
  @Column({ type: 'datetime', precision: 3 }) createdAt!: Date;
  @Column({ type: 'datetime', precision: 3 }) updatedAt!: Date;
}
