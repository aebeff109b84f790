import { Column, Entity, PrimaryColumn } from 'typeorm';

export type AiPluginImportState = 'QUEUED' | 'IMPORTED' | 'FAILED';

/** A course version's AI plugin state: enabled for launches, its course options, its import to the partner. */
@Entity('ai_plugin_course')
export class AiPluginCourseEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 }) appId!: string;
  @PrimaryColumn({ type: 'varchar', length: 191 }) courseId!: string;
  @PrimaryColumn({ type: 'int' }) version!: number;
  @Column({ type: 'boolean' }) enabled!: boolean;
  @Column({ type: 'varchar', length: 255, nullable: true }) nti!: string | null;
  @Column({ type: 'varchar', length: 255, nullable: true }) cta!: string | null;
  @Column({ type: 'varchar', length: 16, nullable: true }) importState!: AiPluginImportState | null;
  @Column({ type: 'text', nullable: true }) error!: string | null;
  @Column({ type: 'datetime', precision: 3 }) updatedAt!: Date;
}
