import { Column, Entity, PrimaryColumn } from 'typeorm';

/** What a document belongs to: a State (activity + agent + registration), an Activity Profile or an Agent Profile. */
export type XapiDocumentKind = 'state' | 'activity' | 'agent';

/**
 * One document of the State, Activity Profile or Agent Profile resource. `scope` is a hash of what the document hangs
 * off (activityId, agent, registration), so one index serves "this document", "all of them" and `since` lists.
 */
@Entity('xapi_document')
export class XapiDocumentEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  @PrimaryColumn({ type: 'varchar', length: 8 })
  kind!: XapiDocumentKind;

  @PrimaryColumn({ type: 'varchar', length: 64 })
  scope!: string;

  /** indexKey(documentId) */
  @PrimaryColumn({ type: 'varchar', length: 191 })
  docKey!: string;

  /** stateId / profileId as sent. */
  @Column({ type: 'text' })
  docId!: string;

  @Column({ type: 'blob' })
  content!: Buffer;

  @Column({ type: 'varchar', length: 255 })
  contentType!: string;

  /** SHA-1 of the content, hex (the ETag, quoted on the wire). */
  @Column({ type: 'varchar', length: 64 })
  etag!: string;

  @Column({ type: 'datetime', precision: 3 })
  updated!: Date;

  /** The agent's key (indexKey of its IFI) of a State or Agent Profile document, for erasing a learner's documents. */
  @Column({ type: 'varchar', length: 191, nullable: true })
  agentKey!: string | null;
}

/** The content of an attachment sent as a multipart/mixed part, once per application and SHA-2. */
@Entity('xapi_attachment')
export class XapiAttachmentEntity {
  @PrimaryColumn({ type: 'varchar', length: 191 })
  appId!: string;

  @PrimaryColumn({ type: 'varchar', length: 128 })
  sha2!: string;

  @Column({ type: 'varchar', length: 255 })
  contentType!: string;

  @Column({ type: 'blob' })
  content!: Buffer;
}
