import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DurableDelivery, EventBus, RegistrationCompleted } from 'lcds/extension';
import { LessThan, Repository } from 'typeorm';
import { CompletionExportEntity } from './completion-export.entity';

/** What the route shows of a row. */
export interface CompletionExportView {
  registrationId: string;
  instance: number;
  courseId: string;
  learnerId: string;
  success: string;
  score: number | null;
  totalSecondsTracked: number;
  completedAt: string;
  exportedAt: string;
}

/**
 * Listens to RegistrationCompleted durably: LCDS writes the delivery in the transaction that completed the
 * registration and runs it at least once on a worker, so the row is written even if a process stops on the way.
 * A delivery may come twice: the event id is the row's key, and a second insert of it is ignored.
 */
@Injectable()
export class CompletionExports implements OnModuleInit {
  constructor(
    private readonly events: EventBus,
    @InjectRepository(CompletionExportEntity) private readonly rows: Repository<CompletionExportEntity>,
  ) {}

  onModuleInit(): void {
    this.events.onDurable(RegistrationCompleted, { name: 'registration-completed-export.rows' }, (event, delivery) => this.record(event, delivery));
  }

  async record(event: RegistrationCompleted, delivery: DurableDelivery): Promise<void> {
    await this.rows
      .createQueryBuilder()
      .insert()
      .into(CompletionExportEntity)
      .values({
        eventId: delivery.idempotencyKey,
        appId: event.appId,
        registrationId: event.registrationId,
        instance: event.instance,
        courseId: event.courseId,
        learnerId: event.learnerId,
        success: event.success,
        score: event.score,
        totalSecondsTracked: event.totalSecondsTracked,
        completedAt: new Date(event.completedAt),
        exportedAt: new Date(),
      })
      .orIgnore()
      .execute();
  }

  /** The application's rows, newest completion first; `before` (a completedAt) pages on. */
  async list(appId: string, limit: number, before?: Date): Promise<CompletionExportView[]> {
    const rows = await this.rows.find({
      where: { appId, ...(before ? { completedAt: LessThan(before) } : {}) },
      order: { completedAt: 'DESC', eventId: 'ASC' },
      take: limit,
    });
    return rows.map((r) => ({
      registrationId: r.registrationId,
      instance: r.instance,
      courseId: r.courseId,
      learnerId: r.learnerId,
      success: r.success,
      score: r.score,
      totalSecondsTracked: r.totalSecondsTracked,
      completedAt: r.completedAt.toISOString(),
      exportedAt: r.exportedAt.toISOString(),
    }));
  }
}
