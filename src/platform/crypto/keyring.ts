import { Inject, Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';

export type KeyPurpose = 'secret-box' | 'token-signing' | 'paging' | 'links' | 'postbacks' | 'lrs-tokens' | 'reports' | 'dispatch';

/** What opening a sealed secret found: its plaintext, and whether the current master key sealed it. */
export interface OpenedSecret {
  plaintext: string;
  current: boolean;
}

/**
 * Every key the service uses is derived from the one master key of the configuration (HKDF-SHA256),
 * one per purpose, so a token signing key can never decrypt a stored secret and vice versa.
 *
 * Rotation: the master keys of LCDS_PREVIOUS_MASTER_KEYS are still tried when a secret is opened or a signature
 * verified, so that a node started with a new key keeps working while `lcds secrets reseal` re-seals the stored
 * secrets with it. Sealing and signing always use the current key.
 */
@Injectable()
export class KeyRing {
  /** One map of derived keys per master key, the current one first. */
  private readonly generations: Array<{ master: Buffer; derived: Map<KeyPurpose, Buffer> }>;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'masterKey'> & Partial<Pick<AppConfig, 'previousMasterKeys'>>) {
    this.generations = [config.masterKey, ...(config.previousMasterKeys ?? [])].map((master) => ({ master, derived: new Map() }));
  }

  /** The current key of a purpose. */
  key(purpose: KeyPurpose): Buffer {
    return this.derive(0, purpose);
  }

  /** The keys of a purpose that verify: the current one first, then those of the previous master keys. */
  verificationKeys(purpose: KeyPurpose): Buffer[] {
    return this.generations.map((_, i) => this.derive(i, purpose));
  }

  /** AES-256-GCM; the output carries version, nonce and tag so the format can change later. */
  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key('secret-box'), iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${body.toString('base64url')}`;
  }

  open(sealed: string): string {
    return this.openSealed(sealed).plaintext;
  }

  /**
   * Opens with the current key, then with each previous one: GCM's tag tells a wrong key from the right one.
   * Throws when no key opens it (the message names the likely cause: a master key that changed).
   */
  openSealed(sealed: string): OpenedSecret {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('Unknown sealed secret format');
    for (let i = 0; i < this.generations.length; i++) {
      const decipher = createDecipheriv('aes-256-gcm', this.derive(i, 'secret-box'), Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      try {
        const plaintext = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
        return { plaintext, current: i === 0 };
      } catch {
        // not this key: try the next one
      }
    }
    throw new Error('Unsupported state or unable to authenticate data: no configured master key (LCDS_MASTER_KEY, LCDS_PREVIOUS_MASTER_KEYS) opens this secret');
  }

  sign(purpose: KeyPurpose, data: string): string {
    return hmac(this.key(purpose), data);
  }

  /** True when the signature was made with the current key of the purpose or with a previous master key's. */
  verify(purpose: KeyPurpose, data: string, signature: string): boolean {
    const given = Buffer.from(signature);
    return this.verificationKeys(purpose).some((key) => {
      const expected = Buffer.from(hmac(key, data));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }

  private derive(generation: number, purpose: KeyPurpose): Buffer {
    const g = this.generations[generation];
    let key = g.derived.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', g.master, Buffer.from('lcds'), Buffer.from(purpose), 32));
      g.derived.set(purpose, key);
    }
    return key;
  }
}

function hmac(key: Buffer, data: string): string {
  return createHmac('sha256', key).update(data).digest('base64url');
}

/** A random secret of the form the real service hands out: URL-safe, 40 characters. */
export function newSecret(bytes = 30): string {
  return randomBytes(bytes).toString('base64url');
}
