import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('application')
export class ApplicationEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  id!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'boolean', default: false })
  isManagement!: boolean;

  @Column({ type: 'boolean', default: true })
  allowDelete!: boolean;

  @Column({ type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
