import { zipOf } from './player';

export const COURSE_ACTIVITY = 'https://example.com/lcds-test/xapi-course';

/** A TinCan package: tincan.xml naming the course activity, and index.html with `page` as its body. */
export async function tincanPackage(page: string, launch = 'index.html'): Promise<Buffer> {
  return zipOf({
    'tincan.xml': `<?xml version="1.0" encoding="utf-8"?><tincan xmlns="http://projecttincan.com/tincan.xsd"><activities>
<activity id="${COURSE_ACTIVITY}" type="http://adlnet.gov/expapi/activities/course"><name lang="en-US">Generated TinCan course</name>
<description lang="en-US">A generated xAPI course</description><launch lang="en-US">${launch}</launch></activity></activities></tincan>`,
    'index.html': page,
  });
}

/** The TinCan launch parameters on the content URL of a player page (its lcds-config). */
export function xapiLaunchOf(html: string): { contentUrl: string; endpoint: string; auth: string; actor: any; registration: string; activityId: string } {
  const config = JSON.parse(/<script id="lcds-config" type="application\/json">(.*?)<\/script>/s.exec(html)![1]) as { contentUrl: string };
  const q = new URL(config.contentUrl, 'http://x/').searchParams;
  return { contentUrl: config.contentUrl, endpoint: q.get('endpoint')!, auth: q.get('auth')!, actor: JSON.parse(q.get('actor')!), registration: q.get('registration')!, activityId: q.get('activity_id')! };
}

/** A statement of the learner about an activity in a registration (ADL verb `verb`). */
export function statement(actor: unknown, verb: string, activityId: string, registration: string, result?: Record<string, unknown>, timestamp?: string): Record<string, unknown> {
  return {
    actor,
    verb: { id: `http://adlnet.gov/expapi/verbs/${verb}`, display: { 'en-US': verb } },
    object: { objectType: 'Activity', id: activityId },
    context: { registration },
    ...(result ? { result } : {}),
    ...(timestamp ? { timestamp } : {}),
  };
}
