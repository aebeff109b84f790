import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { IsNull, Repository } from 'typeorm';
import { KeyRing } from '../../platform/crypto/keyring';
import type { AiPluginCaller } from './ai-plugin-provider';
import { AiPluginAppEntity } from './entities/ai-plugin-app.entity';

/** The signing algorithm of the application's key pair (ECDSA P-256). */
export const AI_PLUGIN_ALG = 'ES256';
/** The `aud` of every token signed for the partner. */
export const AI_PLUGIN_AUDIENCE = 'aiplugin';

/**
 * Each application's AI plugin row: its company id at the partner and its key pair, made on first use (node:crypto),
 * the private key sealed with the master key. Discarding the pair makes the next use make a new one; tokens signed
 * with the old one stop verifying against the new public key.
 */
@Injectable()
export class AiPluginKeys {
  constructor(
    @InjectRepository(AiPluginAppEntity) private readonly rows: Repository<AiPluginAppEntity>,
    private readonly keyRing: KeyRing,
  ) {}

  async companyId(appId: string): Promise<string | null> {
    return (await this.rows.findOneBy({ appId }))?.companyId ?? null;
  }

  async setCompanyId(appId: string, companyId: string): Promise<void> {
    await this.ensureRow(appId);
    await this.rows.update({ appId }, { companyId, updatedAt: new Date() });
  }

  /** The public key (SPKI PEM), the pair made first if the application has none. */
  async publicKey(appId: string): Promise<string> {
    return (await this.withKeys(appId)).publicKey!;
  }

  async discard(appId: string): Promise<void> {
    await this.rows.update({ appId }, { publicKey: null, privateKey: null, updatedAt: new Date() });
  }

  /** The application as the partner sees it: its company id and a signer with its private key. */
  async caller(appId: string): Promise<AiPluginCaller> {
    const row = await this.withKeys(appId);
    const key = createPrivateKey(this.keyRing.open(row.privateKey!));
    return {
      appId,
      companyId: row.companyId,
      sign: (claims, ttlSeconds) =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: AI_PLUGIN_ALG, typ: 'JWT' })
          .setIssuer(appId)
          .setAudience(AI_PLUGIN_AUDIENCE)
          .setIssuedAt()
          .setExpirationTime(`${ttlSeconds}s`)
          .sign(key),
    };
  }

  async purge(appId: string): Promise<void> {
    await this.rows.delete({ appId });
  }

  private async withKeys(appId: string): Promise<AiPluginAppEntity> {
    const row = await this.ensureRow(appId);
    if (row.publicKey && row.privateKey) return row;
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256', publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    // Only where there is no pair yet: two first uses at once keep one pair, the one stored first.
    await this.rows.update({ appId, privateKey: IsNull() }, { publicKey: pair.publicKey, privateKey: this.keyRing.seal(pair.privateKey), updatedAt: new Date() });
    return this.rows.findOneByOrFail({ appId });
  }

  private async ensureRow(appId: string): Promise<AiPluginAppEntity> {
    const row = await this.rows.findOneBy({ appId });
    if (row) return row;
    await this.rows
      .createQueryBuilder()
      .insert()
      .values({ appId, companyId: null, publicKey: null, privateKey: null, updatedAt: new Date() })
      .orIgnore()
      .execute();
    return this.rows.findOneByOrFail({ appId });
  }
}
