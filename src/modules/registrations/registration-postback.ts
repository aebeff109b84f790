import { Injectable } from '@nestjs/common';
import { InvalidInputError } from '../../platform/http/domain-errors';
import { OutboundError, OutboundHttp } from '../../platform/outbound/outbound-http';
import type { PostBackDto } from './dto/registration.dto';
import { httpUrlProblem } from '../../platform/http/http-url';
import type { ActivityResult } from './registration-types';
import type { RegistrationView } from './registration-view';

/** A RegistrationSchema as resultsFormat wants it: COURSE (and UNDEFINED) the summary, ACTIVITY the activity tree, FULL with runtime data. */
export function shapeForResultsFormat(view: RegistrationView, format: PostBackDto['resultsFormat']): RegistrationView {
  if (format === 'FULL') return view;
  const { activityDetails, ...summary } = view;
  if (format !== 'ACTIVITY' || !activityDetails) return summary;
  const strip = (n: ActivityResult): ActivityResult => {
    const { runtime: _runtime, ...rest } = n;
    return { ...rest, children: (n.children ?? []).map(strip) };
  };
  return { ...summary, activityDetails: strip(activityDetails) };
}

/** How long a postback may take when the application sets no ApiPostbackTimeoutSeconds (its default: 10 s). */
export const DEFAULT_POSTBACK_TIMEOUT_MS = 10_000;

export interface PostbackOptions {
  timeoutMs?: number;
  userAgent?: string;
}

/** The application-level settings of postback requests, and what they become. */
export const POSTBACK_REQUEST_SETTING_IDS = ['ApiPostbackTimeoutSeconds', 'WebHookCustomUserAgent'];
export function postbackOptionsOf(values: ReadonlyMap<string, string>): PostbackOptions {
  const seconds = Number(values.get('ApiPostbackTimeoutSeconds'));
  const userAgent = values.get('WebHookCustomUserAgent')?.trim();
  return { ...(Number.isFinite(seconds) && seconds > 0 ? { timeoutMs: seconds * 1000 } : {}), ...(userAgent ? { userAgent } : {}) };
}

/**
 * Sends registration data to a postback URL the way SCORM Cloud does: HTTPBASIC puts the credentials in an
 * Authorization header and the JSON as the body; FORM (and UNDEFINED) sends an urlencoded form with the JSON
 * in `data` and the credentials as `username` / `password` fields. Through OutboundHttp (SSRF policy, timeouts).
 */
@Injectable()
export class RegistrationPostback {
  constructor(private readonly outbound: OutboundHttp) {}

  /**
   * `signing` adds headers computed from the exact body (the signature of registration postbacks); `options`: the
   * application's ApiPostbackTimeoutSeconds and WebHookCustomUserAgent.
   */
  async send(postBack: PostBackDto, view: RegistrationView, signing?: (body: string) => Record<string, string>, options: PostbackOptions = {}): Promise<void> {
    if (!postBack.url) throw new InvalidInputError('url is required');
    const problem = httpUrlProblem(postBack.url, 'url');
    if (problem) throw new InvalidInputError(problem);
    const json = JSON.stringify(shapeForResultsFormat(view, postBack.resultsFormat));
    let body: string;
    const headers: Record<string, string> = {};
    if (postBack.authType === 'HTTPBASIC') {
      headers['content-type'] = 'application/json';
      headers.authorization = `Basic ${Buffer.from(`${postBack.userName ?? ''}:${postBack.password ?? ''}`).toString('base64')}`;
      body = json;
    } else {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      const form = new URLSearchParams();
      if (postBack.userName !== undefined) form.set('username', postBack.userName);
      if (postBack.password !== undefined) form.set('password', postBack.password);
      form.set('data', json);
      body = form.toString();
    }
    if (signing) Object.assign(headers, signing(body));
    if (options.userAgent) headers['user-agent'] = options.userAgent;
    let status: number;
    try {
      status = (await this.outbound.post(postBack.url, body, headers, options.timeoutMs ?? DEFAULT_POSTBACK_TIMEOUT_MS)).status;
    } catch (err) {
      if (err instanceof OutboundError) throw new InvalidInputError(`postback to ${postBack.url} failed: ${err.message}`);
      throw err;
    }
    if (status < 200 || status >= 300) throw new InvalidInputError(`postback to ${postBack.url} failed: the receiver answered HTTP ${status}`);
  }

  /** The dummy registration TestRegistrationPostback sends. */
  dummy(): RegistrationView {
    const now = new Date().toISOString();
    return {
      id: 'test-registration-id',
      instance: 0,
      xapiRegistrationId: '00000000-0000-4000-8000-000000000000',
      updated: now,
      registrationCompletion: 'COMPLETED',
      registrationCompletionAmount: 1,
      registrationSuccess: 'PASSED',
      score: { scaled: 0.9 },
      totalSecondsTracked: 120,
      firstAccessDate: now,
      lastAccessDate: now,
      completedDate: now,
      createdDate: now,
      course: { id: 'test-course-id', title: 'Test course', version: 0 },
      learner: { id: 'test-learner-id', email: 'learner@example.com', firstName: 'Test', lastName: 'Learner' },
      tags: [],
      globalObjectives: [],
      activityDetails: {
        id: 'test-course-id',
        title: 'Test course',
        attempts: 1,
        activityCompletion: 'COMPLETED',
        activitySuccess: 'PASSED',
        score: { scaled: 0.9 },
        timeTracked: '0000:02:00',
        suspended: false,
        objectives: [],
        children: [
          {
            id: 'test-sco',
            title: 'Test SCO',
            attempts: 1,
            activityCompletion: 'COMPLETED',
            activitySuccess: 'PASSED',
            score: { scaled: 0.9 },
            timeTracked: '0000:02:00',
            suspended: false,
            objectives: [],
            children: [],
            runtime: { completionStatus: 'completed', runtimeSuccessStatus: 'PASSED', scoreScaled: '0.9', totalTime: '0000:02:00', runtimeInteractions: [], runtimeObjectives: [] },
          },
        ],
      },
    };
  }
}
