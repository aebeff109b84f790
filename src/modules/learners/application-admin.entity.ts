import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An administrator of an application: may start the erasure of a learner's data (DeleteAllLearnerData). */
@Entity('application_admin')
export class ApplicationAdminEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 }) appId!: string;
  /** Trimmed, lower case. */
  @PrimaryColumn({ type: 'varchar', length: 191 }) emailKey!: string;
  @Column({ type: 'varchar', length: 320 }) email!: string;
  @Column({ type: 'datetime', precision: 3 }) createdAt!: Date;
}
