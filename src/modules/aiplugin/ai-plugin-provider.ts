/**
 * The AI plugin's partner, as LCDS sees it (docs/aiplugin.md). One implementation talks HTTP to the partner at
 * LCDS_AIPLUGIN_URL (HttpAiPluginProvider); another partner plugs in by providing this class.
 */

/** Who calls the partner: the application, its company id at the partner, and a signer with its private key. */
export interface AiPluginCaller {
  appId: string;
  companyId: string | null;
  /** A JWT (ES256, `iss` the application, `aud` "aiplugin") over these claims, valid for ttlSeconds. */
  sign(claims: Record<string, unknown>, ttlSeconds: number): Promise<string>;
}

export interface AiPluginCourseRef {
  courseId: string;
  version: number;
  title: string;
  /** The course options (ZoomiCourseOptionsSchema). */
  nti: string | null;
  cta: string | null;
}

/** The launch of a course version the plugin is enabled for. */
export interface AiPluginLaunch {
  courseId: string;
  version: number;
  registrationId: string;
  learnerId: string;
  nti: string | null;
  cta: string | null;
}

/**
 * What the player page carries for the partner (its config's `aiPlugin`): a short-lived token naming application,
 * course, version, registration and learner, the course options, and the partner's script for the page, if any.
 */
export interface AiPluginLaunchConfig {
  token: string;
  scriptUrl: string | null;
  nti: string | null;
  cta: string | null;
}

/** GetAiPluginCourseStatus's answer when no partner is configured. */
export const NOT_CONFIGURED = 'NOT_CONFIGURED';

export abstract class AiPluginProvider {
  /** False: no partner; the operations store their settings and the status says NOT_CONFIGURED. */
  abstract readonly configured: boolean;
  /** Hands a course version to the partner (a job; may be called again for the same version). */
  abstract importCourse(caller: AiPluginCaller, course: AiPluginCourseRef, signal?: AbortSignal): Promise<void>;
  /** The partner's status string of an imported course version. */
  abstract status(caller: AiPluginCaller, courseId: string, version: number): Promise<string>;
  /** Removes a course version from the partner (nothing there is not an error). */
  abstract deleteCourse(caller: AiPluginCaller, courseId: string, version: number): Promise<void>;
  /** What the player page of a launch carries. */
  abstract launch(caller: AiPluginCaller, launch: AiPluginLaunch): Promise<AiPluginLaunchConfig>;
}
