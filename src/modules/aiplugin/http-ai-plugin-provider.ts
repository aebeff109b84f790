import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { DomainError } from '../../platform/http/domain-errors';
import { AiPluginCaller, AiPluginCourseRef, AiPluginLaunch, AiPluginLaunchConfig, AiPluginProvider } from './ai-plugin-provider';

/** How long the tokens of partner requests and of launches live. */
const REQUEST_TOKEN_SECONDS = 120;
export const LAUNCH_TOKEN_SECONDS = 300;
const TIMEOUT_MS = 30_000;

/** The partner refused or failed a request (502 to the API client); the message names what and how. */
export class AiPluginPartnerError extends DomainError {
  readonly status = 502;
}

/**
 * The partner over HTTP at LCDS_AIPLUGIN_URL (the operator's setting, not a client's URL, so not OutboundHttp's
 * public-address policy). Every request carries `Authorization: Bearer <JWT>` signed with the application's private
 * key; the partner verifies it with the public key of GET /aiplugin/key. Requests (JSON):
 * - `POST {url}/courses` {companyId, applicationId, courseId, version, title, nti, cta}: import
 * - `GET {url}/courses/{applicationId}/{courseId}/{version}` → `{status}` (404: NOT_IMPORTED)
 * - `DELETE {url}/courses/{applicationId}/{courseId}/{version}`
 * Launches: the page gets `{url}/launch.js` and a launch token (docs/aiplugin.md).
 */
@Injectable()
export class HttpAiPluginProvider extends AiPluginProvider {
  private readonly url: string | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super();
    this.url = config.aiPlugin.url;
  }

  get configured(): boolean {
    return this.url !== null;
  }

  async importCourse(caller: AiPluginCaller, course: AiPluginCourseRef, signal?: AbortSignal): Promise<void> {
    const body = { companyId: caller.companyId, applicationId: caller.appId, courseId: course.courseId, version: course.version, title: course.title, nti: course.nti, cta: course.cta };
    await this.send(caller, 'POST', '/courses', { op: 'import', courseId: course.courseId, version: course.version }, body, signal);
  }

  async status(caller: AiPluginCaller, courseId: string, version: number): Promise<string> {
    const res = await this.send(caller, 'GET', this.coursePath(caller, courseId, version), { op: 'status', courseId, version }, undefined, undefined, [404]);
    if (res.status === 404) return 'NOT_IMPORTED';
    const status = (res.json as { status?: unknown } | null)?.status;
    if (typeof status !== 'string') throw new AiPluginPartnerError('The AI plugin partner answered a status without a `status` string');
    return status;
  }

  async deleteCourse(caller: AiPluginCaller, courseId: string, version: number): Promise<void> {
    await this.send(caller, 'DELETE', this.coursePath(caller, courseId, version), { op: 'delete', courseId, version }, undefined, undefined, [404]);
  }

  async launch(caller: AiPluginCaller, launch: AiPluginLaunch): Promise<AiPluginLaunchConfig> {
    const claims = { application: caller.appId, companyId: caller.companyId, course: launch.courseId, version: launch.version, registration: launch.registrationId, learner: launch.learnerId, nti: launch.nti, cta: launch.cta };
    return { token: await caller.sign(claims, LAUNCH_TOKEN_SECONDS), scriptUrl: this.url ? `${this.url}/launch.js` : null, nti: launch.nti, cta: launch.cta };
  }

  private coursePath(caller: AiPluginCaller, courseId: string, version: number): string {
    return `/courses/${encodeURIComponent(caller.appId)}/${encodeURIComponent(courseId)}/${version}`;
  }

  private async send(caller: AiPluginCaller, method: string, path: string, claims: Record<string, unknown>, body?: unknown, signal?: AbortSignal, accepted: number[] = []): Promise<{ status: number; json: unknown }> {
    if (!this.url) throw new AiPluginPartnerError('No AI plugin partner is configured (LCDS_AIPLUGIN_URL)');
    const token = await caller.sign({ ...claims, companyId: caller.companyId }, REQUEST_TOKEN_SECONDS);
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      throw new AiPluginPartnerError(`The AI plugin partner could not be reached: ${(err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok && !accepted.includes(res.status)) throw new AiPluginPartnerError(`The AI plugin partner answered HTTP ${res.status} to ${method} ${path}`);
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, json };
  }
}
