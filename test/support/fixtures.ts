import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The third-party course packages (SCORM, AICC, TinCan, cmi5 examples, ADL's cmi5 test suite, SCORM 2004 test
 * manifests) are not part of this repository: tests read them from LCDS_FIXTURES_DIR, by default `../shared/fixtures`
 * beside the clone (where CI keeps them). Without them, jest.config.js leaves the test files that need them out,
 * with one line saying so; CI (LCDS_REQUIRE_FIXTURES=1) fails instead.
 */
export const FIXTURES = resolve(process.env.LCDS_FIXTURES_DIR ?? join(__dirname, '..', '..', '..', 'shared', 'fixtures'));

export function fixturesPresent(): boolean {
  return existsSync(join(FIXTURES, 'packages'));
}
