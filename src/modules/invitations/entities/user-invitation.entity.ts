import { Column, Entity, PrimaryColumn } from 'typeorm';

export type UserInvitationStatus = 'pending' | 'sent' | 'failed' | 'joined';

/** One address of a private invitation, or one visitor of a public one; `token` is the link that is theirs. */
@Entity('user_invitation')
export class UserInvitationEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 }) appId!: string;
  @PrimaryColumn({ type: 'varchar', length: 191 }) invitationId!: string;
  /** The address as compared: trimmed, lower case. */
  @PrimaryColumn({ type: 'varchar', length: 191 }) emailKey!: string;
  @Column({ type: 'varchar', length: 320 }) email!: string;
  @Column({ type: 'varchar', length: 255, nullable: true }) firstName!: string | null;
  @Column({ type: 'varchar', length: 255, nullable: true }) lastName!: string | null;
  @Column({ type: 'varchar', length: 191, nullable: true }) registrationId!: string | null;
  @Column({ type: 'varchar', length: 64 }) token!: string;
  @Column({ type: 'varchar', length: 16 }) status!: UserInvitationStatus;
  @Column({ type: 'text', nullable: true }) error!: string | null;
  @Column({ type: 'datetime', precision: 3 }) createdAt!: Date;
  @Column({ type: 'datetime', precision: 3 }) updatedAt!: Date;
}
