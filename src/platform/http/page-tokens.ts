import { Injectable } from '@nestjs/common';
import { KeyRing } from '../crypto/keyring';
import { InvalidInputError } from './domain-errors';

/** What a `more` token carries: the first call's filters and the keyset position after the last row sent. */
export interface PageState<F> {
  filters: F;
  after: Array<string | number | null>;
}

/**
 * `more` tokens: opaque to clients, signed so they cannot be forged or edited, and bound to the list and
 * the application they were issued for, so a token of one list or tenant is refused by every other.
 */
@Injectable()
export class PageTokens {
  constructor(private readonly keys: KeyRing) {}

  encode<F>(list: string, appId: string, state: PageState<F>): string {
    const payload = Buffer.from(JSON.stringify({ v: 1, f: state.filters, a: state.after })).toString('base64url');
    return `${payload}.${this.keys.sign('paging', `${list}\n${appId}\n${payload}`)}`;
  }

  decode<F>(list: string, appId: string, token: string): PageState<F> {
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined || !this.keys.verify('paging', `${list}\n${appId}\n${payload}`, signature)) {
      throw new InvalidInputError('more: the token is invalid; pass the more value of the previous page unchanged');
    }
    const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { v: number; f: F; a: PageState<F>['after'] };
    return { filters: parsed.f, after: parsed.a };
  }
}
