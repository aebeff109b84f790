import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThanOrEqual, Repository } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { RegistrationProgress } from '../registrations/registration-progress';
import { SettingsService } from '../settings/settings.service';
import { Cmi5Runtime } from './cmi5-runtime';
import { PlayerSessionEntity } from './player-session.entity';

const REAP_EVERY_MS = 15 * 60 * 1000;
/** Rows deleted per statement: short statements that never hold locks for long on a busy table. */
export const REAP_BATCH = 500;

/**
 * Deletes player sessions past their expiry (issuing the abandoned statement of a cmi5 session left open) (unused launch links after `expiry`, sessions SESSION_TTL_SECONDS after
 * launch): at start, then every 15 minutes, in batches. Runs on worker processes only (LCDS_ROLE worker or all).
 * In the same runs, the launch history of applications with ShouldExpireLaunchHistory true older than their
 * ExpireLaunchHistoryAfterDays goes, in batches too.
 */
@Injectable()
export class PlayerSessionReaper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PlayerSessionReaper.name);
  private timer?: NodeJS.Timeout;
  private running: Promise<number> | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectRepository(PlayerSessionEntity) private readonly sessions: Repository<PlayerSessionEntity>,
    private readonly progress: RegistrationProgress,
    private readonly cmi5: Cmi5Runtime,
    private readonly settings: SettingsService,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.role === 'api') return;
    void this.reap();
    this.timer = setInterval(() => void this.reap(), REAP_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Deletes every session that expired before `now`, and expired launch history; returns how many sessions. One run at a time per process. */
  reap(now = new Date()): Promise<number> {
    this.running ??= this.reapAll(now)
      .then(async (n) => {
        await this.expireLaunchHistory(now);
        return n;
      })
      .finally(() => (this.running = null));
    return this.running;
  }

  /** ShouldExpireLaunchHistory: per application that set it, the launch history rows older than ExpireLaunchHistoryAfterDays. */
  private async expireLaunchHistory(now: Date): Promise<void> {
    let total = 0;
    try {
      for (const appId of await this.settings.applicationsWith('ShouldExpireLaunchHistory', 'true')) {
        const days = Number((await this.settings.effective(appId, { level: 'application' }, ['ExpireLaunchHistoryAfterDays'])).get('ExpireLaunchHistoryAfterDays'));
        if (!Number.isFinite(days) || days < 1) continue;
        const before = new Date(now.getTime() - days * 86_400_000);
        for (;;) {
          const deleted = await this.progress.expireLaunchHistory(appId, before, REAP_BATCH);
          total += deleted;
          if (deleted < REAP_BATCH) break;
        }
      }
      if (total > 0) this.logger.log({ msg: 'expired launch history deleted', count: total });
    } catch (err) {
      this.logger.warn({ msg: 'expiring launch history failed', err: (err as Error).message, deletedSoFar: total });
    }
  }

  private async reapAll(now: Date): Promise<number> {
    let total = 0;
    try {
      for (;;) {
        const batch = await this.sessions.find({ where: { expiresAt: LessThanOrEqual(now) }, order: { expiresAt: 'ASC' }, take: REAP_BATCH });
        if (batch.length === 0) break;
        // A cmi5 session still open when its player session ends was abandoned (cmi5 9.3.6): say so before it goes.
        for (const row of batch) await this.cmi5.abandon(row, now);
        await this.sessions.delete(batch.map((r) => r.id));
        total += batch.length;
        if (batch.length < REAP_BATCH) break;
      }
      if (total > 0) this.logger.log({ msg: 'expired player sessions deleted', count: total });
    } catch (err) {
      this.logger.warn({ msg: 'reaping expired player sessions failed', err: (err as Error).message, deletedSoFar: total });
    }
    return total;
  }
}
