import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A launch token's nonce, kept until the token expires: a second use is a replay. */
@Entity('dispatch_nonce')
export class DispatchNonceEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 }) nonce!: string;
  @Column({ type: 'datetime', precision: 3 }) expiresAt!: Date;
}
