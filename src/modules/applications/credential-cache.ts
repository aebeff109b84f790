import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { setBounded } from '../../platform/bounded-map';
import { InjectRepository } from '@nestjs/typeorm';
import { hash, timingSafeEqual } from 'node:crypto';
import { Repository } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { CredentialVerifier } from '../../platform/auth/credential-verifier';
import { KeyRing } from '../../platform/crypto/keyring';
import { ClusterEvents } from '../../platform/redis/cluster-events.service';
import { ApplicationEntity } from './entities/application.entity';
import { CredentialEntity } from './entities/credential.entity';

interface CachedApplication {
  isManagement: boolean;
  keys: Array<{ id: string; digest: Buffer }>;
  expiresAt: number;
}

const CHANNEL = 'auth-invalidate';
const NEGATIVE_TTL_MS = 5_000;
const MAX_ENTRIES = 50_000;

/** One-shot `hash` (no Hash object per call): half the cost of createHash on a request's path. */
function digest(secret: string): Buffer {
  return hash('sha256', secret, 'buffer');
}

/**
 * Answers "is this an active secret key of that application?" from memory. Secret keys are random 240-bit
 * values, so a SHA-256 digest compared in constant time is as strong as a slow hash here and costs a
 * microsecond. A miss loads the application's keys once (concurrent misses share the load). Any change to
 * an application or key is broadcast to every node, which drops its entry at once; the TTL only bounds the
 * damage of a lost message, and a reconnect of the subscription drops everything.
 */
@Injectable()
export class CredentialCache extends CredentialVerifier implements OnModuleInit {
  private readonly entries = new Map<string, CachedApplication | { missing: true; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<CachedApplication | null>>();
  private readonly generations = new Map<string, number>();

  constructor(
    @InjectRepository(ApplicationEntity) private readonly apps: Repository<ApplicationEntity>,
    @InjectRepository(CredentialEntity) private readonly credentials: Repository<CredentialEntity>,
    private readonly keys: KeyRing,
    private readonly events: ClusterEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  onModuleInit(): void {
    this.events.on(CHANNEL, (appId) => {
      if (appId === ClusterEvents.RESET) {
        this.entries.clear();
        this.generations.clear();
      } else {
        this.drop(appId);
      }
    });
  }

  async verifySecret(appId: string, secret: string): Promise<{ isManagement: boolean; credentialId: string } | null> {
    const app = await this.lookup(appId);
    if (!app) return null;
    const given = digest(secret);
    let match: string | null = null;
    for (const key of app.keys) {
      // Compare against every key so the time taken does not tell which one matched.
      if (timingSafeEqual(key.digest, given)) match = key.id;
    }
    return match ? { isManagement: app.isManagement, credentialId: match } : null;
  }

  async applicationStatus(appId: string): Promise<{ isManagement: boolean } | null> {
    const app = await this.lookup(appId);
    return app ? { isManagement: app.isManagement } : null;
  }

  /** Call after the change is committed. */
  async invalidate(appId: string): Promise<void> {
    await this.events.publish(CHANNEL, appId);
  }

  private drop(appId: string): void {
    this.entries.delete(appId);
    this.generations.set(appId, (this.generations.get(appId) ?? 0) + 1);
  }

  private async lookup(appId: string): Promise<CachedApplication | null> {
    const entry = this.entries.get(appId);
    if (entry && entry.expiresAt > Date.now()) return 'missing' in entry ? null : entry;
    let pending = this.loading.get(appId);
    if (!pending) {
      pending = this.load(appId).finally(() => this.loading.delete(appId));
      this.loading.set(appId, pending);
    }
    return pending;
  }

  private async load(appId: string): Promise<CachedApplication | null> {
    if (appId.length === 0 || appId.length > 191) return null;
    const generation = this.generations.get(appId) ?? 0;
    const app = await this.apps.findOne({ where: { id: appId }, select: { id: true, isManagement: true } });
    const rows = app ? await this.credentials.find({ where: { appId, status: 'active' }, select: { id: true, secretSealed: true } }) : [];
    const value: CachedApplication | null = app
      ? {
          isManagement: app.isManagement,
          keys: rows.map((r) => ({ id: r.id, digest: digest(this.keys.open(r.secretSealed)) })),
          expiresAt: Date.now() + this.config.auth.cacheTtlMs,
        }
      : null;
    // A change that happened while we were loading wins: keep nothing rather than something stale.
    if ((this.generations.get(appId) ?? 0) === generation) {
      setBounded(this.entries, appId, value ?? { missing: true, expiresAt: Date.now() + NEGATIVE_TTL_MS }, MAX_ENTRIES);
    }
    return value;
  }
}
