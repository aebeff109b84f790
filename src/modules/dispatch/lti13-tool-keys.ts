import { Injectable } from '@nestjs/common';
import { createPublicKey, generateKeyPairSync, KeyObject, createPrivateKey } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { KeyRing } from '../../platform/crypto/keyring';
import { SystemStateService } from '../../platform/database/system-state.service';

const STATE_KEY = 'dispatch-lti13-tool-key';

/**
 * LCDS's LTI 1.3 tool key pair (RS256): made once per installation (the first node to need it stores it, sealed with
 * the master key, in system_state; the others read it), published as the tool's JWKS.
 */
@Injectable()
export class Lti13ToolKeys {
  private loaded: Promise<{ privateKey: KeyObject; publicJwk: JWK & { kid: string }; publicPem: string }> | null = null;

  constructor(
    private readonly state: SystemStateService,
    private readonly keys: KeyRing,
  ) {}

  get(): Promise<{ privateKey: KeyObject; publicJwk: JWK & { kid: string }; publicPem: string }> {
    this.loaded ??= this.load().catch((err: unknown) => {
      this.loaded = null;
      throw err;
    });
    return this.loaded;
  }

  private async load() {
    const sealed = await this.state.once(STATE_KEY, () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      return this.keys.seal(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    });
    const privateKey = createPrivateKey(this.keys.open(sealed));
    const publicKey = createPublicKey(privateKey);
    const jwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(jwk);
    return { privateKey, publicJwk: { ...jwk, kid, alg: 'RS256', use: 'sig' }, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
  }
}
