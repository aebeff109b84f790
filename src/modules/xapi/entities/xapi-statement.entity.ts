import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** One stored statement, immutable except for `voided`. `seq` orders an application's statements by arrival. */
@Entity('xapi_statement')
export class XapiStatementEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  seq!: number;

  @Column({ type: 'varchar', length: 191 })
  appId!: string;

  @Column({ type: 'varchar', length: 36 })
  id!: string;

  /** The statement as stored (with `stored`, `authority`, `version`, `timestamp` set), JSON. */
  @Column({ type: 'text' })
  statement!: string;

  /** Hash of the statement as submitted, to tell a resubmission from a conflicting one. */
  @Column({ type: 'varchar', length: 64 })
  contentHash!: string;

  @Column({ type: 'varchar', length: 191 })
  verbId!: string;

  @Column({ type: 'varchar', length: 191, nullable: true })
  agent!: string | null;

  @Column({ type: 'varchar', length: 191, nullable: true })
  activityId!: string | null;

  @Column({ type: 'varchar', length: 36, nullable: true })
  registration!: string | null;

  @Column({ type: 'boolean' })
  voided!: boolean;

  @Column({ type: 'varchar', length: 36, nullable: true })
  voidingTarget!: string | null;

  /** The statement id a StatementRef object points at (voiding statements included), for the StatementRef filter rule. */
  @Column({ type: 'varchar', length: 36, nullable: true })
  refTarget!: string | null;

  /** The xAPI credential that stored it (null: the application's own keys or the service itself). */
  @Column({ type: 'varchar', length: 191, nullable: true })
  credentialId!: string | null;

  @Column({ type: 'datetime', precision: 3 })
  timestamp!: Date;

  @Column({ type: 'datetime', precision: 3 })
  stored!: Date;
}

@Entity('xapi_statement_link')
export class XapiStatementLinkEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  /** 'agent' | 'activity' (anything the statement mentions), 'objagent' (its object, when an agent) */
  @PrimaryColumn({ type: 'varchar', length: 8 })
  kind!: string;

  @PrimaryColumn({ type: 'varchar', length: 191 })
  value!: string;

  @PrimaryColumn({ type: 'bigint' })
  seq!: number;
}
