import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One value set at one level. `level` names the kind of target (application, learningStandard, course,
 * courseVersion, registration, registrationInstance); `targetId` and `variant` name the target within it:
 * '' and '' for the application, the standard and 'single'/'multi' for a learning-standard bucket, the course
 * or registration id and '' or the version / instance number.
 */
@Entity('setting_value')
export class SettingValueEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  @PrimaryColumn({ type: 'varchar', length: 32 })
  level!: string;

  @PrimaryColumn({ type: 'varchar', length: 191 })
  targetId!: string;

  @PrimaryColumn({ type: 'varchar', length: 64, default: '' })
  variant!: string;

  @PrimaryColumn({ type: 'varchar', length: 128 })
  settingId!: string;

  @Column({ type: 'text' })
  value!: string;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
