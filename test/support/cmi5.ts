import { zipOf } from './player';

export const CMI5_COURSE = 'https://example.com/lcds-test/cmi5/course';
export const CMI5_BLOCK = 'https://example.com/lcds-test/cmi5/block';
export const cmi5Au = (n: number) => `https://example.com/lcds-test/cmi5/au/${n}`;
export const CMI5_CATEGORY = 'https://w3id.org/xapi/cmi5/context/categories/cmi5';
export const MOVEON_CATEGORY = 'https://w3id.org/xapi/cmi5/context/categories/moveon';
export const SESSION_EXT = 'https://w3id.org/xapi/cmi5/context/extensions/sessionid';

/** A cmi5 package: a block holding AUs (moveOn, masteryScore, launchMethod as given), each at auN.html with `page`. */
export async function cmi5Package(aus: Array<{ moveOn?: string; masteryScore?: number; launchMethod?: string }>, page = '<!doctype html><title>AU</title><p>AU</p>'): Promise<Buffer> {
  const auXml = aus
    .map((a, i) => `<au id="${cmi5Au(i + 1)}"${a.moveOn ? ` moveOn="${a.moveOn}"` : ''}${a.masteryScore !== undefined ? ` masteryScore="${a.masteryScore}"` : ''}${a.launchMethod ? ` launchMethod="${a.launchMethod}"` : ''}>
<title><langstring lang="en-US">AU ${i + 1}</langstring></title><description><langstring lang="en-US">AU ${i + 1}</langstring></description>
<url>au${i + 1}.html?x=1</url><launchParameters>params ${i + 1}</launchParameters><entitlementKey>key ${i + 1}</entitlementKey></au>`)
    .join('\n');
  const files: Record<string, string> = {
    'cmi5.xml': `<?xml version="1.0" encoding="utf-8"?><courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
<course id="${CMI5_COURSE}"><title><langstring lang="en-US">Generated cmi5 course</langstring></title><description><langstring lang="en-US">d</langstring></description></course>
<block id="${CMI5_BLOCK}"><title><langstring lang="en-US">Block</langstring></title><description><langstring lang="en-US">d</langstring></description>
${auXml}</block></courseStructure>`,
  };
  aus.forEach((_, i) => (files[`au${i + 1}.html`] = page));
  return zipOf(files);
}

/** The cmi5 launch parameters on the content URL of a player page (its lcds-config). */
export function cmi5LaunchOf(html: string): { contentUrl: string; ownWindow: boolean; endpoint: string; fetch: string; actor: any; registration: string; activityId: string; query: URLSearchParams } {
  const config = JSON.parse(/<script id="lcds-config" type="application\/json">(.*?)<\/script>/s.exec(html)![1]) as { contentUrl: string; ownWindow: boolean };
  const q = new URL(config.contentUrl, 'http://x/').searchParams;
  return { contentUrl: config.contentUrl, ownWindow: config.ownWindow, endpoint: q.get('endpoint')!, fetch: q.get('fetch')!, actor: JSON.parse(q.get('actor')!), registration: q.get('registration')!, activityId: q.get('activityId')!, query: q };
}

/** A cmi5 defined statement of the AU in its session (with what cmi5 requires of it). */
export function cmi5Statement(l: { actor: any; registration: string; activityId: string }, sessionId: string, verb: string, result?: Record<string, unknown>, extensions: Record<string, unknown> = {}): Record<string, unknown> {
  const moveOn = ['completed', 'passed', 'failed'].includes(verb);
  return {
    id: crypto.randomUUID(),
    timestamp: new Date().toISOString(),
    actor: l.actor,
    verb: { id: `http://adlnet.gov/expapi/verbs/${verb}`, display: { 'en-US': verb } },
    object: { objectType: 'Activity', id: l.activityId },
    ...(result ? { result } : {}),
    context: {
      registration: l.registration,
      contextActivities: { category: [{ id: CMI5_CATEGORY }, ...(moveOn ? [{ id: MOVEON_CATEGORY }] : [])] },
      extensions: { [SESSION_EXT]: sessionId, ...extensions },
    },
  };
}
