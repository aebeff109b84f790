import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Repository } from 'typeorm';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/app-config';
import { KeyRing } from '../../../platform/crypto/keyring';
import { ClusterEvents } from '../../../platform/redis/cluster-events.service';
import { XapiAuthType, XapiCredentialEntity, XapiPermissionsLevel } from '../entities/xapi-credential.entity';

/** An enabled xAPI credential as the LRS needs it. */
export interface LrsCredential {
  id: string;
  name: string;
  auth: XapiAuthType;
  permissionsLevel: XapiPermissionsLevel;
}

interface Entry {
  credential: LrsCredential | null;
  /** SHA-256 of the secret (basic authentication compares digests in constant time). */
  digest: Buffer | null;
  /** The secret itself, kept only for OAUTH credentials: OAuth 1.0 signatures are keyed with it. */
  secret: string | null;
  expiresAt: number;
}

const CHANNEL = 'xapi-credential-invalidate';
const NEGATIVE_TTL_MS = 5_000;
const MAX_ENTRIES = 100_000;

function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/**
 * The xAPI credentials of the LRS, from memory: an LRS request costs no database read and no decryption once its
 * credential is cached. A miss loads that one credential (concurrent misses share the load; unknown ids are
 * remembered briefly). Any change to an application's credentials is broadcast to every node (ClusterEvents), which
 * drops that application's entries at once, so a disabled or deleted credential stops working everywhere; the TTL
 * only bounds the damage of a lost message.
 */
@Injectable()
export class LrsCredentialCache implements OnModuleInit {
  private readonly entries = new Map<string, Map<string, Entry>>();
  private readonly loading = new Map<string, Promise<Entry>>();
  private readonly generations = new Map<string, number>();
  private size = 0;

  constructor(
    @InjectRepository(XapiCredentialEntity) private readonly credentials: Repository<XapiCredentialEntity>,
    private readonly keys: KeyRing,
    private readonly events: ClusterEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.events.on(CHANNEL, (appId) => {
      if (appId === ClusterEvents.RESET) {
        for (const key of [...this.entries.keys()]) this.drop(key);
      } else {
        this.drop(appId);
      }
    });
  }

  /** The enabled BASICAUTH credential with this id and secret, else null. */
  async verifyBasic(appId: string, id: string, secret: string): Promise<LrsCredential | null> {
    const entry = await this.lookup(appId, id);
    if (!entry.credential || entry.credential.auth !== 'BASICAUTH' || !entry.digest) return null;
    return timingSafeEqual(entry.digest, digest(secret)) ? entry.credential : null;
  }

  /** The enabled OAUTH credential with this consumer key, and its secret (to check a signature with). */
  async oauthConsumer(appId: string, id: string): Promise<{ credential: LrsCredential; secret: string } | null> {
    const entry = await this.lookup(appId, id);
    if (!entry.credential || entry.credential.auth !== 'OAUTH' || entry.secret === null) return null;
    return { credential: entry.credential, secret: entry.secret };
  }

  /** Call after a change to the application's credentials is committed. */
  async invalidate(appId: string): Promise<void> {
    await this.events.publish(CHANNEL, appId);
  }

  private drop(appId: string): void {
    const app = this.entries.get(appId);
    if (app) this.size -= app.size;
    this.entries.delete(appId);
    this.generations.set(appId, (this.generations.get(appId) ?? 0) + 1);
  }

  private async lookup(appId: string, id: string): Promise<Entry> {
    const cached = this.entries.get(appId)?.get(id);
    if (cached && cached.expiresAt > Date.now()) return cached;
    const key = `${appId}\n${id}`;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.load(appId, id).finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  private async load(appId: string, id: string): Promise<Entry> {
    const generation = this.generations.get(appId) ?? 0;
    const row = id === '' || id.length > 191 || appId.length > 191 ? null : await this.credentials.findOneBy({ appId, id });
    let entry: Entry;
    if (!row || !row.isEnabled) {
      entry = { credential: null, digest: null, secret: null, expiresAt: Date.now() + NEGATIVE_TTL_MS };
    } else {
      const secret = this.keys.open(row.secretSealed);
      entry = {
        credential: { id: row.id, name: row.name, auth: row.auth, permissionsLevel: row.permissionsLevel },
        digest: digest(secret),
        secret: row.auth === 'OAUTH' ? secret : null,
        expiresAt: Date.now() + this.config.auth.cacheTtlMs,
      };
    }
    // A change that happened while we were loading wins: keep nothing rather than something stale.
    if ((this.generations.get(appId) ?? 0) === generation) {
      if (this.size >= MAX_ENTRIES) {
        const oldest = this.entries.keys().next().value as string;
        this.drop(oldest);
      }
      let app = this.entries.get(appId);
      if (!app) {
        app = new Map();
        this.entries.set(appId, app);
      }
      if (!app.has(id)) this.size++;
      app.set(id, entry);
    }
    return entry;
  }
}
