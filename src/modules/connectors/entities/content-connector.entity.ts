import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sealed } from '../../../platform/crypto/sealed';
import { jsonColumn } from '../../../platform/database/column-transformers';

export type ConnectorType = 'S3' | 'HTTP';

/** A place an application keeps course packages; `secrets` is sealed with the master key (KeyRing.seal) and never answered. */
@Entity('content_connector')
export class ContentConnectorEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 }) appId!: string;
  @PrimaryColumn({ type: 'varchar', length: 191 }) id!: string;
  @Column({ type: 'varchar', length: 16 }) type!: ConnectorType;
  @Column({ type: 'text', nullable: true, transformer: jsonColumn }) configuration!: Record<string, unknown> | null;
  @Sealed() @Column({ type: 'text', nullable: true }) secrets!: string | null;
  @Column({ type: 'boolean' }) enabled!: boolean;
  @Column({ type: 'datetime', precision: 3 }) createdAt!: Date;
  @Column({ type: 'datetime', precision: 3 }) updatedAt!: Date;
}
