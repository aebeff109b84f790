import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sealed } from '../../../platform/crypto/sealed';

export const XAPI_AUTH_TYPES = ['BASICAUTH', 'OAUTH'] as const;
export type XapiAuthType = (typeof XAPI_AUTH_TYPES)[number];

export const XAPI_PERMISSIONS_LEVELS = ['DEFAULT', 'USER', 'ROOT', 'READONLY', 'WRITEONLY'] as const;
export type XapiPermissionsLevel = (typeof XAPI_PERMISSIONS_LEVELS)[number];

/** A key/secret pair with which activity providers use the application's LRS. The secret is stored sealed. */
@Entity('xapi_credential')
export class XapiCredentialEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  @PrimaryColumn({ type: 'varchar', length: 191 })
  id!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'text', nullable: true })
  info!: string | null;

  @Sealed()
  @Column({ type: 'text' })
  secretSealed!: string;

  @Column({ type: 'boolean' })
  isEnabled!: boolean;

  @Column({ type: 'varchar', length: 16 })
  auth!: XapiAuthType;

  @Column({ type: 'varchar', length: 16 })
  permissionsLevel!: XapiPermissionsLevel;

  @Column({ type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
