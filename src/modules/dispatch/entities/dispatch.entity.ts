import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sealed } from '../../../platform/crypto/sealed';
import { jsonColumn } from '../../../platform/database/column-transformers';
import type { StoredPostBack } from '../../registrations/registration-types';

/** A dispatch: one course delivered to one destination, with its package's key and secret. */
@Entity('dispatch')
export class DispatchEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 }) appId!: string;
  @PrimaryColumn({ type: 'varchar', length: 191 }) id!: string;
  @Column({ type: 'varchar', length: 191 }) destinationId!: string;
  @Column({ type: 'varchar', length: 191 }) courseId!: string;
  @Column({ type: 'boolean' }) enabled!: boolean;
  @Column({ type: 'boolean' }) allowNewRegistrations!: boolean;
  @Column({ type: 'boolean' }) instanced!: boolean;
  @Column({ type: 'boolean' }) hashUserInfo!: boolean;
  /** 0 = no cap. */
  @Column({ type: 'int' }) registrationCap!: number;
  /** Registrations created since the last reset (what the cap is compared with). */
  @Column({ type: 'int' }) registrationCount!: number;
  @Column({ type: 'datetime', precision: 3, nullable: true }) lastResetAt!: Date | null;
  @Column({ type: 'datetime', precision: 3, nullable: true }) expirationDate!: Date | null;
  @Column({ type: 'varchar', length: 320, nullable: true }) email!: string | null;
  @Column({ type: 'text', nullable: true }) notes!: string | null;
  @Column({ type: 'text', nullable: true, transformer: jsonColumn }) postBack!: StoredPostBack | null;
  /** The public key of the dispatch's packages and LTI links (unique across applications). */
  @Column({ type: 'varchar', length: 64 }) packageKey!: string;
  /**
   * The dispatch-specific secret the packages sign their launches with (and the LTI 1.1 shared secret), sealed with
   * the KeyRing (DispatchesService.secretOf opens it). A sealed 43-character secret takes 101 characters.
   */
  @Sealed() @Column({ type: 'varchar', length: 128 }) secret!: string;
  @Column({ type: 'datetime', precision: 3 }) createdAt!: Date;
  @Column({ type: 'datetime', precision: 3 }) updatedAt!: Date;
}
