import { randomUUID } from 'node:crypto';
import { agentKey, contentHash, indexKey, objectActivityId, objectAgentKey, relatedKeys } from '../../src/modules/xapi/lrs/statement-keys';
import { BenchDb, dbDateText } from '../courses-list/seed-db';

/** Shapes of the generated statements: this many distinct agents, verbs, activities and registrations. */
export const AGENTS = 1000;
export const VERBS = 20;
export const ACTIVITIES = 2000;
export const REGISTRATIONS = 20000;

export const agentOf = (i: number) => ({ objectType: 'Agent', name: `Learner ${i}`, mbox: `mailto:learner${i}@bench.example.com` });
export const verbOf = (i: number) => `http://adlnet.gov/expapi/verbs/bench-${i}`;
export const activityOf = (i: number) => `https://bench.example.com/activities/course-${Math.floor(i / 20)}/module-${i}`;
export const courseOf = (i: number) => `https://bench.example.com/activities/course-${Math.floor(i / 20)}`;
export const registrationOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/** A realistic statement of about 1.8 KB (context activities, result with extensions, platform, language). */
export function statementFor(n: number, withId = false): Record<string, unknown> {
  const a = n % ACTIVITIES;
  return {
    ...(withId ? { id: randomUUID() } : {}),
    actor: agentOf(n % AGENTS),
    verb: { id: verbOf(n % VERBS), display: { 'en-US': `bench verb ${n % VERBS}` } },
    object: {
      objectType: 'Activity',
      id: activityOf(a),
      definition: {
        name: { 'en-US': `Module ${a} of the benchmark course` },
        description: { 'en-US': 'A module of a course used to measure the statement throughput and query latency of the LRS under load.' },
        type: 'http://adlnet.gov/expapi/activities/module',
        extensions: { 'https://bench.example.com/ext/difficulty': 'medium', 'https://bench.example.com/ext/tags': ['bench', 'lrs', 'xapi'] },
      },
    },
    result: {
      score: { scaled: 0.85, raw: 85, min: 0, max: 100 },
      success: true,
      completion: true,
      duration: 'PT12M30S',
      response: 'The learner answered every question of the module with a long enough free text answer.',
      extensions: { 'https://bench.example.com/ext/attempt': 3, 'https://bench.example.com/ext/device': { os: 'Linux', browser: 'Chromium', screen: '1920x1080' } },
    },
    context: {
      registration: registrationOf(n % REGISTRATIONS),
      contextActivities: {
        parent: [{ objectType: 'Activity', id: courseOf(a) }],
        grouping: [{ objectType: 'Activity', id: 'https://bench.example.com/programs/onboarding' }],
        category: [{ objectType: 'Activity', id: 'https://w3id.org/xapi/scorm' }],
      },
      platform: 'LCDS benchmark',
      language: 'en-US',
      extensions: { 'https://bench.example.com/ext/session': `session-${n % 5000}`, 'https://bench.example.com/ext/cohort': 'spring-2026' },
    },
    timestamp: new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString(),
  };
}

/**
 * Stores statements `from`…`from+count-1` straight into the service's database, as XapiStatementsService would
 * (same index keys and link rows), in transactions of `chunk` rows. Returns the last seq used.
 */
export async function seedStatements(db: BenchDb, appId: string, from: number, count: number, firstSeq: number, chunk = 10_000): Promise<number> {
  const authority = { objectType: 'Agent', account: { homePage: 'http://bench', name: appId } };
  let seq = firstSeq;
  for (let start = from; start < from + count; start += chunk) {
    const rows: unknown[][] = [];
    const links: unknown[][] = [];
    for (let n = start; n < Math.min(from + count, start + chunk); n++) {
      seq++;
      const s = statementFor(n, true) as Record<string, any>;
      const hash = contentHash(s);
      const stored = new Date(Date.UTC(2025, 0, 1) + n * 1000);
      s.stored = stored.toISOString();
      s.authority = authority;
      s.version = '1.0.0';
      const activity = objectActivityId(s);
      rows.push([
        seq,
        appId,
        s.id,
        JSON.stringify(s),
        hash,
        indexKey(s.verb.id as string),
        agentKey(s.actor),
        activity === null ? null : indexKey(activity),
        (s.context.registration as string).toLowerCase(),
        0,
        null,
        null,
        dbDateText(new Date(s.timestamp as string)),
        dbDateText(stored),
      ]);
      const { agents, activities } = relatedKeys(s);
      for (const v of agents) links.push([appId, 'agent', v, seq]);
      for (const v of activities) links.push([appId, 'activity', v, seq]);
      const oa = objectAgentKey(s);
      if (oa !== null) links.push([appId, 'objagent', oa, seq]);
    }
    await db.insertRows(
      'xapi_statement',
      ['seq', 'app_id', 'id', 'statement', 'content_hash', 'verb_id', 'agent', 'activity_id', 'registration', 'voided', 'voiding_target', 'credential_id', 'timestamp', 'stored'],
      rows,
      500,
    );
    await db.insertRows('xapi_statement_link', ['app_id', 'kind', 'value', 'seq'], links, 2000);
  }
  return seq;
}
