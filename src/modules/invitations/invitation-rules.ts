import { IsNotEmpty, IsString } from 'class-validator';
import { defineQueue, QueueDefinition } from '../../platform/queue/job-queue';

/** The address as compared and keyed: trimmed, lower case, at most 191 characters. */
export function emailKeyOf(address: string): string {
  return address.trim().toLowerCase().slice(0, 191);
}

/**
 * An address LCDS sends to: one `@`, a local part and a domain with a dot, no spaces or angle brackets, at most 191
 * characters (RFC 5321 allows 254; longer ones are not seen in practice and would not fit the key).
 */
export function emailProblem(address: string): string | null {
  const a = address.trim();
  if (a === '') return 'the address is empty';
  if (a.length > 191) return 'the address is longer than 191 characters';
  if (!/^[^\s@<>()[\]\\,;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/.test(a)) return 'not a valid e-mail address';
  return null;
}

export class InvitationEmailPayload {
  @IsString() @IsNotEmpty() appId!: string;
  @IsString() @IsNotEmpty() invitationId!: string;
}

export const INVITATION_EMAIL_QUEUE_NAME = 'invitation-email';

/** The e-mails of a private invitation: one job per invitation; temporary SMTP failures retried with backoff. */
export function invitationEmailQueue(backoffMs: number): QueueDefinition<InvitationEmailPayload> {
  return defineQueue<InvitationEmailPayload>({ name: INVITATION_EMAIL_QUEUE_NAME, payloadClass: InvitationEmailPayload, maxAttempts: 12, backoffMs, timeoutMs: 30 * 60_000 });
}
