import { Inject, Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { DispatchesService } from './dispatches.service';
import { DispatchLaunches, LaunchRefusal, splitName } from './dispatch-launches';
import type { XapiRelayConfig } from './dispatch-xapi-page';
import { dispatchActivityId, packageSignature } from './dispatch-package';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Launches of cmi5 and xAPI dispatch packages: the client LMS opens LCDS's page with its launch parameters (cmi5:
 * endpoint, fetch, actor, registration, activityId; Tin Can launch: endpoint, auth, actor, registration, activity_id);
 * the learner is the actor's account name (or mbox); the page then reports to the LMS's LRS.
 */
@Injectable()
export class DispatchXapi {
  constructor(
    private readonly dispatches: DispatchesService,
    private readonly launches: DispatchLaunches,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async launch(kind: 'cmi5' | 'xapi', key: string, signature: string, query: Record<string, unknown>, now = new Date()): Promise<XapiRelayConfig | { refused: LaunchRefusal }> {
    const d = await this.dispatches.byPackageKey(key);
    if (!d || !sameText(packageSignature(d, this.dispatches.secretOf(d), kind), signature)) return { refused: 'invalid' };
    const param = (name: string, max = 2048) => {
      const v = query[name];
      return typeof v === 'string' && v.length > 0 && v.length <= max ? v : undefined;
    };
    const endpoint = httpUrl(param('endpoint'));
    const actor = parseActor(param('actor', 4096));
    const registration = param('registration', 64);
    if (!endpoint || !actor || (registration !== undefined && !UUID.test(registration))) return { refused: 'invalid' };
    const lrs: Pick<XapiRelayConfig, 'fetchUrl' | 'auth' | 'activityId'> | null =
      kind === 'cmi5'
        ? httpUrl(param('fetch')) && param('activityId') && registration
          ? { fetchUrl: httpUrl(param('fetch'))!, activityId: param('activityId')! }
          : null
        : param('auth', 4096)
          ? { auth: param('auth', 4096)!, activityId: param('activity_id') ?? dispatchActivityId(this.config.publicUrl, d, 'activity') }
          : null;
    if (!lrs) return { refused: 'invalid' };
    const cssUrl = httpUrl(param('cssUrl'));
    const result = await this.launches.launch(d, actor.learnerId, actor.name ? splitName(actor.name) : {}, new URL(this.config.publicUrl).origin, cssUrl, now);
    if ('refused' in result) return result;
    return { mode: kind, playerUrl: result.playerUrl, status: `/dispatch/status/${result.statusToken}`, every: result.pollMs, endpoint, actor: actor.json, ...(registration ? { registration } : {}), ...lrs };
  }
}

/** An http(s) URL (of at most 2048 characters), normalised, or undefined. */
export function httpUrl(value: string | undefined): string | undefined {
  if (!value || value.length > 2048) return undefined;
  try {
    const u = new URL(value);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.toString() : undefined;
  } catch {
    return undefined;
  }
}

export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The launch's actor: an Agent with an account (cmi5) or an mbox; Tin Can's older form (arrays of names, mboxes and
 * accounts) is read too. The learner id is the account's name, else the mbox's address.
 */
function parseActor(text: string | undefined): { json: unknown; learnerId: string; name?: string } | null {
  if (!text) return null;
  let actor: unknown;
  try {
    actor = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof actor !== 'object' || actor === null || Array.isArray(actor)) return null;
  const a = actor as Record<string, unknown>;
  const first = (v: unknown) => (Array.isArray(v) ? (v as unknown[])[0] : v);
  const account = first(a.account) as Record<string, unknown> | undefined;
  const accountName = typeof account === 'object' && account !== null ? first(account.name ?? account.accountName) : undefined;
  const mbox = first(a.mbox);
  const id = typeof accountName === 'string' && accountName ? accountName : typeof mbox === 'string' ? mbox.replace(/^mailto:/i, '') : '';
  if (!id || id.length > 191) return null;
  const name = first(a.name);
  return { json: actor, learnerId: id, ...(typeof name === 'string' && name.trim() ? { name } : {}) };
}
