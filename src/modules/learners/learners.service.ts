import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { IsNotEmpty, IsString } from 'class-validator';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { EventBus, LearnerErased } from '../../platform/events';
import { ForbiddenError, NotFoundError } from '../../platform/http/domain-errors';
import { defineQueue, JobQueue } from '../../platform/queue/job-queue';
import { emailKeyOf } from '../invitations/invitation-rules';
import { InvitationsService } from '../invitations/invitations.service';
import { LearnerDto } from '../registrations/dto/registration.dto';
import { RegistrationsService } from '../registrations/registrations.service';
import { TagsService } from '../tags/tags.service';
import { KeyRing } from '../../platform/crypto/keyring';
import { XapiStatementsService } from '../xapi/xapi-statements.service';
import { ApplicationAdminsService } from './application-admins.service';
import { XapiDocumentsService } from '../xapi/xapi-documents.service';
import { agentKey } from '../xapi/lrs/statement-keys';
import { LearnerRegistrations } from '../registrations/learner-registrations';

/** The learner id travels sealed: the job row outlives the erasure (finished jobs are kept 7 days). */
export class LearnerErasurePayload {
  @IsString() @IsNotEmpty() appId!: string;
  @IsString() @IsNotEmpty() sealedLearnerId!: string;
}

export const LEARNER_ERASURE_QUEUE = defineQueue<LearnerErasurePayload>({ name: 'learner-erasure', payloadClass: LearnerErasurePayload, maxAttempts: 10, backoffMs: 5_000, timeoutMs: 30 * 60_000 });

/**
 * Learners are not stored on their own: they are the learner of registrations. Tags, UpdateLearnerInfo (on every
 * registration of the learner) and DeleteAllLearnerData, whose job erases every trace of the learner in the
 * application.
 */
@Injectable()
export class LearnersService implements OnModuleInit {
  private readonly logger = new Logger(LearnersService.name);

  constructor(
    private readonly registrations: RegistrationsService,
    private readonly learnerRegistrations: LearnerRegistrations,
    private readonly invitations: InvitationsService,
    private readonly tags: TagsService,
    private readonly admins: ApplicationAdminsService,
    private readonly jobs: JobQueue,
    private readonly events: EventBus,
    private readonly statements: XapiStatementsService,
    private readonly documents: XapiDocumentsService,
    private readonly keys: KeyRing,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register(LEARNER_ERASURE_QUEUE, (p) => this.erase(p.appId, this.keys.open(p.sealedLearnerId)));
  }

  /** A learner is known once a registration (or a tag) carries its id. */
  async requireLearner(appId: string, learnerId: string): Promise<void> {
    if (await this.learnerRegistrations.learnerExists(appId, learnerId)) return;
    if ((await this.tags.get(appId, 'learner', learnerId)).length > 0) return;
    throw new NotFoundError('Learner', learnerId);
  }

  async updateInfo(appId: string, learnerId: string, body: LearnerDto): Promise<void> {
    await this.requireLearner(appId, learnerId);
    await this.learnerRegistrations.updateLearner(appId, { ...body, id: learnerId });
  }

  /** DeleteAllLearnerData: 403 unless userEmail administers the application; the erasure runs as a job. */
  async startErasure(appId: string, learnerId: string, userEmail: string): Promise<void> {
    if (!(await this.admins.isAdmin(appId, userEmail))) throw new ForbiddenError('userEmail is not an administrator of this application (see lcds apps admins)');
    await this.requireLearner(appId, learnerId);
    await this.jobs.enqueue(LEARNER_ERASURE_QUEUE, { appId, sealedLearnerId: this.keys.seal(learnerId) }, { appId });
  }

  /**
   * Idempotent: a second run finds nothing left. The learner's registrations with everything they hold (instances,
   * runtime data, launch history, sequencing and postback state, settings, tags), user invitations, learner tags,
   * the LRS statements naming the learner (account `{PUBLIC_URL, learnerId}`, mbox of each address) or their
   * registrations, and the queued or finished jobs whose payload names any of them.
   */
  async erase(appId: string, learnerId: string): Promise<void> {
    const emails = await this.learnerRegistrations.emailsOfLearner(appId, learnerId);
    const keys = [...new Set([...emails.map(emailKeyOf), ...(learnerId.includes('@') ? [emailKeyOf(learnerId)] : [])])];
    // Invitations register a learner under the address: those registrations are the same person's.
    const learnerIds = [...new Set([learnerId, ...keys])];
    const registrations = (await Promise.all(learnerIds.map((id) => this.learnerRegistrations.idsOfLearner(appId, id)))).flat();
    const registrationIds = registrations.map((r) => r.id);
    for (const id of learnerIds) if (id !== learnerId) emails.push(...(await this.learnerRegistrations.emailsOfLearner(appId, id)));
    const agents = [{ account: { homePage: this.config.publicUrl, name: learnerId } }, ...[...new Set([...emails, ...keys])].map((e) => ({ mbox: `mailto:${e}` }))];
    await this.statements.eraseAgents(appId, agents, registrations.map((r) => r.xapiRegistrationId));
    // The learner's State and Agent Profile documents (by agent: the account and each address).
    await this.documents.eraseAgents(appId, agents.map((a) => agentKey(a)).filter((k): k is string => k !== null));
    await this.invitations.forgetLearner(appId, keys, registrationIds);
    await this.registrations.deleteMany(appId, registrationIds);
    for (const id of learnerIds) await this.tags.purge(appId, 'learner', id);
    await this.forgetJobs(appId, [...learnerIds, ...emails, ...keys, ...registrationIds]);
    await this.compactStorage();
    this.logger.log({ msg: 'learner data erased', appId, registrations: registrationIds.length });
    await this.events.publish(new LearnerErased({ appId, learnerId }));
  }

  /** Jobs of the application (not running) whose payload or result names the learner or their registrations. */
  private async forgetJobs(appId: string, needles: string[]): Promise<void> {
    const driver = this.dataSource.driver;
    for (const needle of new Set(needles.filter((n) => n.length >= 3))) {
      const pattern = `%${needle.replace(/[!%_]/g, (c) => `!${c}`)}%`;
      await this.dataSource.query(
        `DELETE FROM ${driver.escape('job')} WHERE app_id = ? AND status <> 'running' AND (payload LIKE ? ESCAPE '!' OR result LIKE ? ESCAPE '!')`,
        [appId, pattern, pattern],
      );
    }
  }

  /** SQLite: deleted pages are overwritten (secure_delete is on for every connection); the WAL is checkpointed and truncated. */
  private async compactStorage(): Promise<void> {
    if (this.config.database.kind !== 'sqlite') return;
    await this.dataSource.query('PRAGMA wal_checkpoint(TRUNCATE)');
  }
}
