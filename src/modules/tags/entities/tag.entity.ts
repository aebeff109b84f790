import { Entity, PrimaryColumn } from 'typeorm';

/** One tag on one resource of any taggable type; the resource's existence is its module's business. */
@Entity('tag')
export class TagEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  @PrimaryColumn({ type: 'varchar', length: 32 })
  resourceType!: string;

  @PrimaryColumn({ type: 'varchar', length: 191 })
  resourceId!: string;

  @PrimaryColumn({ type: 'varchar', length: 191 })
  tag!: string;
}
