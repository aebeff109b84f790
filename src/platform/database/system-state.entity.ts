import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sealed } from '../crypto/sealed';

@Entity('system_state')
export class SystemStateEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  key!: string;

  /** Some values are secrets made once per installation (sealed, then "<sealed> <claim id>"): `lcds secrets reseal` re-seals those. */
  @Sealed({ optional: true })
  @Column({ type: 'text', nullable: true })
  value!: string | null;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
