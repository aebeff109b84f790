import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One audited change (table `audit_entry`): who, from where, what and when. Holds ids and field names only,
 * never a value that was sent, so no secret can reach it. Rows outlive the application they concern.
 */
@Entity('audit_entry')
export class AuditEntryEntity {
  /** Increasing: the list's order and its keyset. */
  @PrimaryGeneratedColumn({ type: 'bigint' })
  seq!: string;

  /** The application the change concerns (a management application's change of another one: that other one). */
  @Column({ type: 'varchar', length: 191 })
  appId!: string;

  @Column({ type: 'datetime', precision: 3 })
  occurredAt!: Date;

  /** The operation: its operationId (CreateCredential, SetStatementPipe, …). */
  @Column({ type: 'varchar', length: 64 })
  action!: string;

  /** basic (a secret key), bearer (a token), cli (the `lcds` command on a server). */
  @Column({ type: 'varchar', length: 16 })
  actorKind!: string;

  /** The application whose key or token made the call; null for the CLI. */
  @Column({ type: 'varchar', length: 191, nullable: true })
  actorAppId!: string | null;

  /** The secret key's id (basic) or the token's id (bearer); never the key itself. */
  @Column({ type: 'varchar', length: 191, nullable: true })
  actorCredentialId!: string | null;

  /** The client's address as the service saw it, or `cli:<user>`. */
  @Column({ type: 'varchar', length: 191, nullable: true })
  source!: string | null;

  /** JSON object: the ids the change names ({"credentialId": "…"}). */
  @Column({ type: 'text' })
  targets!: string;

  /** JSON array: the names of the fields the request set (dotted for nested ones), never their values. */
  @Column({ type: 'text' })
  fields!: string;
}
