import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { call } from './test-server';

/** The example extension, as an operator lists it: the absolute path of its package folder (built by `npm test`). */
export const EXAMPLE = resolve(__dirname, '..', '..', 'examples', 'registration-completed-export');
export const EXAMPLE_ROUTE = '/ext/registration-completed-export/completions';

export function requireBuiltExample(): void {
  if (!existsSync(join(EXAMPLE, 'dist', 'index.js'))) throw new Error('the example extension is not built: run `npm run build:examples` (npm test does)');
}

/**
 * Creates a registration of a one-SCO SCORM 2004 course and has its learner complete it through the player's commits
 * (no browser): an incomplete commit, the completing one (passed, 0.9, 20 s).
 */
export async function completeThroughCommits(baseUrl: string, auth: string, registrationId: string, courseId: string): Promise<void> {
  const api = `${baseUrl}/api/v2`;
  const created = await call(`${api}/registrations`, { method: 'POST', auth, json: { registrationId, courseId, learner: { id: `l-${registrationId}` } } });
  if (created.status !== 204) throw new Error(`CreateRegistration answered ${created.status}: ${JSON.stringify(created.body)}`);
  const link = await call(`${api}/registrations/${registrationId}/launchLink`, { method: 'POST', auth, json: { redirectOnExitUrl: 'message' } });
  const res = await fetch(link.body.launchLink as string, { redirect: 'manual' });
  const player = new URL(res.headers.get('location')!, baseUrl).toString();
  const commit = async (seq: number, cmi: Record<string, string>) => {
    const r = await fetch(`${player}commit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seq, activityId: 'sco-1', cmi }) });
    if (r.status !== 200) throw new Error(`commit ${seq} answered ${r.status}: ${await r.text()}`);
  };
  await commit(1, { 'cmi.completion_status': 'incomplete', 'cmi.session_time': 'PT10S' });
  await commit(2, { 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed', 'cmi.score.scaled': '0.9', 'cmi.session_time': 'PT20S' });
}
