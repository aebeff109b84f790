import { Injectable } from '@nestjs/common';
import { InvalidInputError } from '../../platform/http/domain-errors';
import { httpUrlProblem } from './registrations.service';

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

type Issuer = (request: LaunchLinkRequest) => Promise<string>;

/**
 * The player registers how launch links are made (it depends on registrations and courses, not the other way
 * round). Provided by the courses module, so course previews and registration launches share it.
 */
@Injectable()
export class LaunchLinks {
  private issuer: Issuer | null = null;

  register(issuer: Issuer): void {
    this.issuer = issuer;
  }

  async issue(request: LaunchLinkRequest): Promise<string> {
    // PlayerModule registers the issuer when the application starts; without it the application is mis-wired (a bug, not a missing feature).
    if (!this.issuer) throw new Error('LaunchLinks: no issuer registered; PlayerModule must be imported by the application');
    return this.issuer(request);
  }
}
