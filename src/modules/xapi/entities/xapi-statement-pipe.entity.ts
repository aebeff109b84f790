import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sealed } from '../../../platform/crypto/sealed';

/**
 * A statement pipe: statements read from a source LRS are forwarded to a target LRS. The position (`moreUrl`,
 * `lastForwardedStatementDate`) survives restarts; `generation` goes up on every edit, so work scheduled for an
 * earlier version does nothing; `processingUntil`/`processingToken` are the lease of the run in progress.
 */
@Entity('xapi_statement_pipe')
export class XapiStatementPipeEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  @PrimaryColumn({ type: 'varchar', length: 191 })
  id!: string;

  /** null: the application's own LRS, read in-process. */
  @Column({ type: 'text', nullable: true })
  sourceUrl!: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  sourceUser!: string | null;

  @Sealed()
  @Column({ type: 'text', nullable: true })
  sourcePasswordSealed!: string | null;

  @Column({ type: 'text' })
  targetUrl!: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  targetUser!: string | null;

  @Sealed()
  @Column({ type: 'text', nullable: true })
  targetPasswordSealed!: string | null;

  @Column({ type: 'int' })
  generation!: number;

  /** `stored` of the last statement forwarded. */
  @Column({ type: 'datetime', precision: 3, nullable: true })
  lastForwardedStatementDate!: Date | null;

  /** The source's next page while a backlog is being worked through. */
  @Column({ type: 'text', nullable: true })
  moreUrl!: string | null;

  /** Failed runs in a row. */
  @Column({ type: 'int' })
  attempts!: number;

  @Column({ type: 'datetime', precision: 3 })
  visibleAfter!: Date;

  @Column({ type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  processingUntil!: Date | null;

  @Column({ type: 'varchar', length: 36, nullable: true })
  processingToken!: string | null;

  @Column({ type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
