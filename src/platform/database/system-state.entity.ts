import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('system_state')
export class SystemStateEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  key!: string;

  @Column({ type: 'text', nullable: true })
  value!: string | null;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
