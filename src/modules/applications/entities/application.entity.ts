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

  /** Registrations the application may create per calendar month (UTC); null: no limit. */
  @Column({ type: 'int', nullable: true, default: null })
  regLimit!: number | null;

  /** Past regLimit, CreateRegistration answers 403 (otherwise the limit is only reported). */
  @Column({ type: 'boolean', default: false })
  strictLimit!: boolean;

  @Column({ type: 'varchar', length: 255, nullable: true, default: null })
  contactEmail!: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true, default: null })
  contactCompany!: string | null;

  @Column({ type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
