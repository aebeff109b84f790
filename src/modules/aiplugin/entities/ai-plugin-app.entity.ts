import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sealed } from '../../../platform/crypto/sealed';

/** An application's AI plugin settings: the partner's company id and the application's key pair (made on first use). */
@Entity('ai_plugin_app')
export class AiPluginAppEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 }) appId!: string;
  @Column({ type: 'varchar', length: 255, nullable: true }) companyId!: string | null;
  /** SPKI PEM; null until first use and after DeleteApplicationAiPluginKeys. */
  @Column({ type: 'text', nullable: true }) publicKey!: string | null;
  /** PKCS#8 PEM sealed with the master key (KeyRing.seal). */
  @Sealed() @Column({ type: 'text', nullable: true }) privateKey!: string | null;
  @Column({ type: 'datetime', precision: 3 }) updatedAt!: Date;
}
