import { createHmac } from 'node:crypto';
import type { KeyRing } from '../../platform/crypto/keyring';

/**
 * The signing key of one application's registration postbacks: HMAC-SHA256 keyed with the KeyRing's 'postbacks'
 * key over the appId. `lcds apps postback-key --app APPID` prints it (hex) for the receiver.
 */
export function postbackSigningKey(keys: KeyRing, appId: string): Buffer {
  return createHmac('sha256', keys.key('postbacks')).update(appId).digest();
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (the X-LCDS-Signature header). */
export function postbackSignature(key: Buffer, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', key).update(`${unixSeconds}.${body}`).digest('hex')}`;
}

