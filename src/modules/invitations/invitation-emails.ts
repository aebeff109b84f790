import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { Mailer, PermanentMailError } from '../../platform/mail/mailer';
import { JobContext, JobQueue, QueueDefinition, UnrecoverableJobError } from '../../platform/queue/job-queue';
import { CoursesService } from '../courses/courses.service';
import { RegistrationsService } from '../registrations/registrations.service';
import { RegistrationCreation } from '../registrations/registration-creation';
import { InvitationEntity } from './entities/invitation.entity';
import { UserInvitationEntity } from './entities/user-invitation.entity';
import { invitationEmail } from './invitation-email-content';
import { emailProblem, InvitationEmailPayload, invitationEmailQueue } from './invitation-rules';
import { registrationIdFor } from './invitations.service';
import { LearnerRegistrations } from '../registrations/learner-registrations';

/** User invitations a job reads at a time, and how many of them go at once (registrations, then SMTP). */
const BATCH = 200;
const PARALLEL = 8;
/** Accepted messages whose `sent` marks are written together (SentMarks). */
const MARK_GROUP = 25;

/**
 * The `invitation-email` job of a private invitation: for each pending user invitation, its registration (following
 * duplicateRegistrationOption), then its e-mail. Each user invitation is marked `sent` or `failed` once its message
 * was accepted or refused, so a run that stops (a worker restart, a temporary SMTP failure and its retry) takes up
 * the pending ones only; registration ids are worked out from the address, so a registration made before a stop is
 * found again, not made twice. The e-mail's Message-ID is also stable: in the one window where a message was
 * accepted but not yet marked (a crash between the two: at most MARK_GROUP + PARALLEL messages), a receiver sees the
 * same message id again.
 */
@Injectable()
export class InvitationEmails implements OnModuleInit {
  private readonly logger = new Logger(InvitationEmails.name);
  readonly queue: QueueDefinition<InvitationEmailPayload>;

  constructor(
    @InjectRepository(InvitationEntity) private readonly invitations: Repository<InvitationEntity>,
    @InjectRepository(UserInvitationEntity) private readonly users: Repository<UserInvitationEntity>,
    private readonly registrations: RegistrationsService,
    private readonly creation: RegistrationCreation,
    private readonly learners: LearnerRegistrations,
    private readonly courses: CoursesService,
    private readonly mailer: Mailer,
    private readonly jobs: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.queue = invitationEmailQueue(config.mail.emailBackoffMs);
  }

  onModuleInit(): void {
    this.jobs.register(this.queue, (payload, ctx) => this.run(payload, ctx));
  }

  async run({ appId, invitationId }: InvitationEmailPayload, ctx: JobContext): Promise<{ sent: number; failed: number }> {
    const inv = await this.invitations.findOneBy({ appId, id: invitationId });
    if (!inv) throw new UnrecoverableJobError('the invitation no longer exists');
    const { version } = await this.courses.resolveVersion(appId, inv.courseId).catch((err: unknown) => {
      throw new UnrecoverableJobError('the course of the invitation no longer exists', { cause: err });
    });
    // The first temporary failure of a batch (set by its workers); the batch stops taking new addresses.
    const failure: { temporary: Error | null } = { temporary: null };
    for (;;) {
      if (ctx.signal?.aborted) throw new Error('stopped');
      const rows = await this.users.find({ where: { appId, invitationId, status: 'pending' }, order: { emailKey: 'ASC' }, take: BATCH });
      if (rows.length === 0) break;
      // The batch's registrations (a few statements for all of them), then its e-mails PARALLEL at a time over the
      // pooled SMTP connections.
      let ready: UserInvitationEntity[];
      try {
        ready = await this.registerBatch(inv, rows);
      } catch (err) {
        failure.temporary = err instanceof Error ? err : new Error(String(err));
        break;
      }
      let next = 0;
      const marks = new SentMarks((sent) => this.markSent(sent));
      const worker = async () => {
        while (next < ready.length && failure.temporary === null && !ctx.signal?.aborted) {
          const row = ready[next++];
          try {
            if (await this.send(inv, version.title, row)) marks.add(row);
          } catch (err) {
            failure.temporary = err instanceof Error ? err : new Error(String(err));
          }
        }
      };
      await Promise.all(Array.from({ length: PARALLEL }, worker));
      // Before the next batch is read: it must not find a sent address still pending.
      await marks.flush().catch((err: Error) => {
        failure.temporary ??= err;
      });
      if (failure.temporary !== null) break;
      const total = Math.max(inv.jobTotal, 1);
      const pending = await this.users.countBy({ appId, invitationId, status: 'pending' });
      await ctx.reportProgress(Math.floor(((total - pending) / total) * 100));
    }
    const temporary = failure.temporary;
    if (temporary !== null) {
      if (ctx.attempt >= (this.queue.maxAttempts ?? 1)) {
        // The last attempt: the addresses still pending failed, and the job status says so.
        await this.users.update({ appId, invitationId, status: 'pending' }, { status: 'failed', error: `not sent: ${temporary.message}`, updatedAt: new Date() });
        await this.invitations.update({ appId, id: invitationId }, { jobStatus: 'ERROR' });
        throw new UnrecoverableJobError(temporary.message);
      }
      // Retried with backoff; what was sent stays sent.
      this.logger.warn({ msg: 'invitation e-mails: temporary failure, the job will retry', appId, invitationId, attempt: ctx.attempt, ...smtpCodes(temporary) });
      throw temporary;
    }
    const failed = await this.users.countBy({ appId, invitationId, status: 'failed' });
    const sent = await this.users.countBy({ appId, invitationId, status: 'sent' });
    await this.invitations.update({ appId, id: invitationId }, { jobStatus: failed > 0 ? 'ERROR' : 'COMPLETE' });
    this.logger.log({ msg: 'invitation e-mails done', appId, invitationId, sent, failed });
    return { sent, failed };
  }

  /**
   * The registrations of a batch of user invitations, made once (following duplicateRegistrationOption), and the rows
   * that may be sent; an invalid address or a FAIL duplicate is marked failed. Registrations already made (a run
   * before a restart) are found by their ids; the new ones are created together (RegistrationCreation.createMany), in
   * the transaction that links them to their user invitations. Throws for what should be retried.
   */
  private async registerBatch(inv: InvitationEntity, rows: UserInvitationEntity[]): Promise<UserInvitationEntity[]> {
    const ready: UserInvitationEntity[] = [];
    const open: UserInvitationEntity[] = [];
    for (const row of rows) {
      const problem = emailProblem(row.email);
      if (problem) await this.mark(row, 'failed', problem);
      else (row.registrationId === null ? open : ready).push(row);
    }
    if (open.length === 0) return ready;
    const own = (row: UserInvitationEntity) => registrationIdFor(inv.appId, inv.id, row.emailKey);
    const made = new Set(await this.registrations.existingIds(inv.appId, open.map(own)));
    const others = inv.duplicateOption === 'CREATE_NEW' ? new Map<string, { id: string }>() : await this.learners.newestForLearners(inv.appId, inv.courseId, open.filter((r) => !made.has(own(r))).map((r) => r.emailKey));
    const found: UserInvitationEntity[] = [];
    const fresh: UserInvitationEntity[] = [];
    for (const row of open) {
      const existing = others.get(row.emailKey);
      if (made.has(own(row))) row.registrationId = own(row);
      else if (!existing) {
        fresh.push(row);
        continue;
      } else if (inv.duplicateOption === 'FAIL') {
        await this.mark(row, 'failed', 'the learner already has a registration for this course (duplicateRegistrationOption FAIL)');
        continue;
      } else {
        if (inv.duplicateOption === 'INSTANCE_EXISTING') await this.registrations.createInstance(inv.appId, existing.id);
        row.registrationId = existing.id;
      }
      found.push(row);
    }
    if (found.length) await this.link(this.users.manager, found);
    if (fresh.length) {
      const postBack = inv.postBack ? this.registrations.openPostBack(inv.postBack) : undefined;
      await this.creation.createMany(
        inv.appId,
        fresh.map((row) => ({ courseId: inv.courseId, registrationId: own(row), learner: { id: row.emailKey, email: row.email.trim() }, ...(postBack ? { postBack } : {}) })),
        // Each chunk's transaction links the chunk's user invitations.
        {
          within: (m, ids) => {
            const chunk = new Set(ids);
            return this.link(m, fresh.filter((row) => chunk.has(own(row))).map((row) => Object.assign(row, { registrationId: own(row) })));
          },
        },
      );
    }
    return [...ready, ...found, ...fresh];
  }

  /** Stores each row's registrationId (one statement for the lot). */
  private async link(m: EntityManager, rows: UserInvitationEntity[]): Promise<void> {
    const { appId, invitationId } = rows[0];
    const cases = rows.map(() => 'WHEN ? THEN ?').join(' ');
    await m.query(`UPDATE user_invitation SET registration_id = CASE email_key ${cases} END WHERE app_id = ? AND invitation_id = ? AND email_key IN (${rows.map(() => '?').join(', ')})`, [
      ...rows.flatMap((r) => [r.emailKey, r.registrationId]),
      appId,
      invitationId,
      ...rows.map((r) => r.emailKey),
    ]);
  }

  /** The address's e-mail: true once accepted, false when refused (marked failed); throws for a temporary failure (the job retries). */
  private async send(inv: InvitationEntity, courseTitle: string, row: UserInvitationEntity): Promise<boolean> {
    const content = invitationEmail({
      subject: inv.emailSubject,
      body: inv.emailBody,
      courseTitle,
      link: `${this.config.publicUrl}/invite/u/${row.token}`,
    });
    try {
      await this.mailer.send({
        to: row.email.trim(),
        ...content,
        messageId: `${registrationIdFor(row.appId, row.invitationId, row.emailKey, 'message')}@${hostOf(this.config.publicUrl)}`,
        batch: `${row.appId}-${row.invitationId}`,
        // The person who sent the invitation is who a recipient asks to be left out of further ones.
        ...(emailProblem(inv.creatingUserEmail) === null ? { unsubscribe: `mailto:${inv.creatingUserEmail.trim()}?subject=unsubscribe` } : {}),
      });
    } catch (err) {
      if (!(err instanceof PermanentMailError)) throw err;
      await this.mark(row, 'failed', err.message);
      return false;
    }
    return true;
  }

  private async markSent(rows: UserInvitationEntity[]): Promise<void> {
    const { appId, invitationId } = rows[0];
    await this.users.update({ appId, invitationId, emailKey: In(rows.map((r) => r.emailKey)) }, { status: 'sent', error: null, updatedAt: new Date() });
  }

  private async mark(row: UserInvitationEntity, status: 'sent' | 'failed', error: string | null): Promise<void> {
    await this.users.update({ appId: row.appId, invitationId: row.invitationId, emailKey: row.emailKey }, { status, error, updatedAt: new Date() });
  }
}

/**
 * The `sent` marks of accepted messages, written MARK_GROUP at a time in one UPDATE (and the rest when the batch
 * ends). On SQLite each write is a synced commit (~5 ms here, the event loop blocked meanwhile), so one per message
 * bounded the job at ~200 messages a second. A crash loses at most the marks not yet written: those addresses are
 * sent again, under the same Message-ID.
 */
class SentMarks {
  private waiting: UserInvitationEntity[] = [];
  private writing: Promise<void> | null = null;
  private failed: Error | null = null;

  constructor(private readonly write: (rows: UserInvitationEntity[]) => Promise<void>) {}

  add(row: UserInvitationEntity): void {
    this.waiting.push(row);
    if (this.waiting.length >= MARK_GROUP) this.writing ??= this.drain();
  }

  /** Every mark added so far is written (or the first write error is thrown). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.waiting.length > 0) await (this.writing = this.drain());
    if (this.failed !== null) throw this.failed;
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0 && this.failed === null) await this.write(this.waiting.splice(0, 500));
    } catch (err) {
      this.failed = err instanceof Error ? err : new Error(String(err));
    } finally {
      this.writing = null;
    }
  }
}

/** What a log line may say about an SMTP failure: its codes, never its text (which can name a recipient). */
function smtpCodes(err: Error): { code?: string; responseCode?: number } {
  const e = err as { code?: unknown; responseCode?: unknown };
  return { ...(typeof e.code === 'string' ? { code: e.code } : {}), ...(typeof e.responseCode === 'number' ? { responseCode: e.responseCode } : {}) };
}

function hostOf(url: string): string {
  return new URL(url).hostname || 'lcds.invalid';
}
