import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('course')
export class CourseEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  @PrimaryColumn({ type: 'varchar', length: 191 })
  id!: string;

  @Column({ type: 'varchar', length: 512 })
  title!: string;

  @Column({ type: 'int' })
  latestVersion!: number;

  @Column({ type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
