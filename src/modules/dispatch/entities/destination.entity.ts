import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn } from '../../../platform/database/column-transformers';

/** LaunchAuthSchema as stored. */
export interface StoredLaunchAuth {
  type?: string;
  options?: { ipAddress?: boolean; fingerprint?: boolean; expiry?: number; slidingExpiry?: number };
}

/** Lti13PlatformConfigurationSchema as stored. */
export interface StoredLti13Platform {
  clientId: string;
  platformIssuerIdentifier: string;
  deploymentId: string;
  oidcAuthorizationEndpoint: string;
  jsonWebKeySetUrl: string;
  accessTokenUrl?: string;
}

/** A dispatch destination: a client learning system (or a place) the application's courses are dispatched to. */
@Entity('dispatch_destination')
export class DestinationEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 }) appId!: string;
  @PrimaryColumn({ type: 'varchar', length: 191 }) id!: string;
  @Column({ type: 'varchar', length: 255 }) name!: string;
  @Column({ type: 'varchar', length: 320, nullable: true }) email!: string | null;
  @Column({ type: 'text', nullable: true }) notes!: string | null;
  @Column({ type: 'text', nullable: true, transformer: jsonColumn }) launchAuth!: StoredLaunchAuth | null;
  @Column({ type: 'text', nullable: true, transformer: jsonColumn }) lti13Data!: StoredLti13Platform | null;
  /** What UpdateDestinationHashUserInfo last set for the destination's dispatches. */
  @Column({ type: 'boolean' }) hashUserInfo!: boolean;
  @Column({ type: 'datetime', precision: 3 }) createdAt!: Date;
  @Column({ type: 'datetime', precision: 3 }) updatedAt!: Date;
}
