import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { affectedBy, type LeanStatement, rowInsert } from '../../platform/database/lean-read';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { KeyRing } from '../../platform/crypto/keyring';
import { InvalidInputError } from '../../platform/http/domain-errors';
import { PlayerSessionEntity, type PlayerSessionSettings } from './player-session.entity';
import { encodeToken, type LaunchClaims } from './player-tokens';
import { httpUrlProblem } from '../../platform/http/http-url';
import { launchAuthPolicyOf, type LaunchAuthBody } from './launch-auth';

/** What a launch link opens: a registration's instance (tracked), or a course version previewed without one. */
export type LaunchTarget = { kind: 'registration'; registrationId: string; instance: number } | { kind: 'preview'; courseId: string; version: number };

/** ItemValuePairSchema entries of `additionalvalues`. */
export interface AdditionalValue {
  item: string;
  value: string;
}

/** The launch options both LaunchLinkRequestSchema and PreviewLaunchLinkRequestSchema carry, checked. */
export interface LaunchOptions {
  expirySeconds: number;
  redirectOnExitUrl: string;
  startSco?: string;
  culture?: string;
  cssUrl?: string;
  additionalValues?: AdditionalValue[];
}

export interface LaunchLinkRequest extends LaunchOptions {
  appId: string;
  target: LaunchTarget;
  tracking: boolean;
  /** launchAuth of the link as the API takes it (LaunchAuthSchema; launch-auth.ts); none: the session URL works anywhere, as before. */
  launchAuth?: LaunchAuthBody | null;
}

/** Keywords redirectOnExitUrl may carry instead of a URL (the client documentation's list); '' means the configured setting. */
export const REDIRECT_KEYWORDS = ['closer', 'blank', 'message'];
export const DEFAULT_LINK_EXPIRY = 120;

/** A culture code as SCORM Cloud takes it (`en`, `en-US`, `zh-Hans-CN`): a BCP 47 language tag. */
const CULTURE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** What the request bodies carry before they are checked (class-validator has checked the types). */
export interface LaunchOptionsBody {
  expiry?: number;
  redirectOnExitUrl?: string;
  startSco?: string;
  culture?: string;
  cssUrl?: string;
  additionalvalues?: Array<{ item?: string; value?: string }>;
}

/** Checks the options of a launch or preview link request; a bad one is a 400 naming the field. */
export function launchOptionsOf(body: LaunchOptionsBody, startScoIds?: () => Set<string>): LaunchOptions {
  const expiry = body.expiry ?? DEFAULT_LINK_EXPIRY;
  if (expiry < 10 || expiry > 300) throw new InvalidInputError(`expiry must be from 10 to 300 seconds, not ${expiry}`);
  const redirect = (body.redirectOnExitUrl ?? '').trim();
  if (redirect !== '' && !REDIRECT_KEYWORDS.includes(redirect)) {
    const problem = httpUrlProblem(redirect, 'redirectOnExitUrl');
    if (problem) throw new InvalidInputError(`${problem}, or one of ${REDIRECT_KEYWORDS.join(', ')}`);
  }
  if (body.cssUrl) {
    const problem = httpUrlProblem(body.cssUrl, 'cssUrl');
    if (problem) throw new InvalidInputError(problem);
  }
  if (body.culture && !CULTURE.test(body.culture)) throw new InvalidInputError(`culture must be a culture code such as 'en-US' or 'fr', not '${body.culture}'`);
  if (body.startSco && startScoIds && !startScoIds().has(body.startSco)) throw new InvalidInputError(`startSco '${body.startSco}' is not an activity of the course`);
  const additionalValues: AdditionalValue[] = [];
  for (const [i, pair] of (body.additionalvalues ?? []).entries()) {
    const item = pair.item?.trim();
    if (!item) throw new InvalidInputError(`additionalvalues[${i}].item is required`);
    additionalValues.push({ item, value: pair.value ?? '' });
  }
  return {
    expirySeconds: expiry,
    redirectOnExitUrl: redirect,
    ...(body.startSco ? { startSco: body.startSco } : {}),
    ...(body.culture ? { culture: body.culture } : {}),
    ...(body.cssUrl ? { cssUrl: body.cssUrl } : {}),
    ...(additionalValues.length ? { additionalValues } : {}),
  };
}

/** Ids of an activity tree (CourseActivitySchema or ActivityResultSchema shaped): what startSco may name. */
export function activityIdsOf<T extends { children?: T[] }>(root: T | null | undefined, idOf: (node: T) => string): Set<string> {
  const ids = new Set<string>();
  const walk = (n: T | null | undefined) => {
    if (!n) return;
    ids.add(idOf(n));
    for (const c of n.children ?? []) walk(c);
  };
  walk(root);
  return ids;
}

/**
 * Issues launch links (BuildRegistrationLaunchLink, course previews): a player session row not yet claimed and a signed
 * launch token. Launching lives in the player; courses and registrations import LaunchLinksModule and ask this
 * service, which depends on nothing of theirs (the player checks the registration or course when the link is opened).
 */
@Injectable()
export class LaunchLinks {
  constructor(
    @InjectRepository(PlayerSessionEntity) private readonly sessions: Repository<PlayerSessionEntity>,
    private readonly keys: KeyRing,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async issue(req: LaunchLinkRequest): Promise<string> {
    const link = this.prepare(req);
    await affectedBy(this.sessions.manager.connection, link.statement.sql, link.statement.params);
    return link.url;
  }

  /**
   * A launch link and the statement that stores its session row, for a caller that runs it in a transaction of its
   * own (a dispatch's first launch: with the registration's rows). The link works once the statement has committed.
   */
  prepare(req: LaunchLinkRequest): { url: string; statement: LeanStatement } {
    const id = randomUUID();
    const now = new Date();
    const exp = Math.floor(now.getTime() / 1000) + req.expirySeconds;
    const target = req.target;
    const registrationId = target.kind === 'registration' ? target.registrationId : '';
    const instance = target.kind === 'registration' ? target.instance : 0;
    const settings: PlayerSessionSettings = {
      redirectOnExitUrl: req.redirectOnExitUrl,
      tracking: req.tracking && target.kind === 'registration',
      ...(req.startSco ? { startSco: req.startSco } : {}),
      ...(req.culture ? { culture: req.culture } : {}),
      ...(req.cssUrl ? { cssUrl: req.cssUrl } : {}),
      ...(req.additionalValues?.length ? { additionalValues: req.additionalValues } : {}),
      ...(target.kind === 'preview' ? { preview: { courseId: target.courseId, version: target.version } } : {}),
    };
    const policy = launchAuthPolicyOf(req.launchAuth);
    // By SQL text made once (every launch page issues one): no entity manager, no query builder.
    const statement = rowInsert(this.sessions, { id, appId: req.appId, registrationId, instance, launchHistoryId: null, createdAt: now, expiresAt: new Date(exp * 1000), usedAt: null, settings, launchAuth: policy ? { policy } : null, lastSeenAt: null });
    const claims: LaunchClaims = {
      t: 'launch',
      id,
      app: req.appId,
      reg: registrationId,
      inst: instance,
      exp,
      redirect: req.redirectOnExitUrl,
      tracking: settings.tracking,
      ...(req.startSco ? { startSco: req.startSco } : {}),
      ...(req.culture ? { culture: req.culture } : {}),
      ...(req.cssUrl ? { css: req.cssUrl } : {}),
      ...(!policy && !settings.additionalValues && !settings.preview ? { plain: true as const } : {}),
    };
    return { url: `${this.config.publicUrl}/player/launch/${encodeToken(this.keys, claims)}`, statement };
  }
}
