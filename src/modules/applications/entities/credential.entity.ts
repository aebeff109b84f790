import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sealed } from '../../../platform/crypto/sealed';

export type CredentialStatus = 'active' | 'disabled';

/** A secret key of an application. Secrets are stored sealed (AES-256-GCM) with a key from the configuration. */
@Entity('application_credential')
export class CredentialEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  id!: string;

  @Column({ type: 'varchar', length: 191 })
  appId!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Sealed()
  @Column({ type: 'text' })
  secretSealed!: string;

  @Sealed()
  @Column({ type: 'text' })
  pensSealed!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: CredentialStatus;

  @Column({ type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
