import { Inject, Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';

export type KeyPurpose = 'secret-box' | 'token-signing' | 'paging' | 'links' | 'postbacks' | 'lrs-tokens' | 'reports' | 'dispatch';

/**
 * Every key the service uses is derived from the one master key of the configuration (HKDF-SHA256),
 * one per purpose, so a token signing key can never decrypt a stored secret and vice versa.
 */
@Injectable()
export class KeyRing {
  private readonly keys = new Map<KeyPurpose, Buffer>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  key(purpose: KeyPurpose): Buffer {
    let key = this.keys.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.config.masterKey, Buffer.from('lcds'), Buffer.from(purpose), 32));
      this.keys.set(purpose, key);
    }
    return key;
  }

  /** AES-256-GCM; the output carries version, nonce and tag so the format can change later. */
  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key('secret-box'), iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${body.toString('base64url')}`;
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('Unknown sealed secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key('secret-box'), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  sign(purpose: KeyPurpose, data: string): string {
    return createHmac('sha256', this.key(purpose)).update(data).digest('base64url');
  }

  verify(purpose: KeyPurpose, data: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(purpose, data));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

/** A random secret of the form the real service hands out: URL-safe, 40 characters. */
export function newSecret(bytes = 30): string {
  return randomBytes(bytes).toString('base64url');
}
