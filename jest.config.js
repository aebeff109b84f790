const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');

/**
 * The third-party course packages live outside the repository (LCDS_FIXTURES_DIR, default ../shared/fixtures; see
 * test/support/fixtures.ts). Without them the test files that read them are left out, with one line saying so;
 * with LCDS_REQUIRE_FIXTURES=1 (CI) their absence is an error.
 */
const fixturesDir = resolve(process.env.LCDS_FIXTURES_DIR || join(__dirname, '..', 'shared', 'fixtures'));
const NEEDS_FIXTURES = /\badlEngine\(|\bADL_MANIFEST_DIRS\b|\bfixture\(|\bFIXTURES\b|fixture-source|\bPACKAGES_DIR\b|\bCMI5_SUITE_DIR\b|\bSCORM_4ED_MANIFESTS_DIR\b/;

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'support' ? [] : testFiles(path);
    return /\.(e2e-)?spec\.ts$/.test(e.name) ? [path] : [];
  });
}

const ignored = [];
if (!existsSync(join(fixturesDir, 'packages'))) {
  if (process.env.LCDS_REQUIRE_FIXTURES === '1') {
    throw new Error(`LCDS_REQUIRE_FIXTURES=1 but there are no course packages in ${fixturesDir}/packages (set LCDS_FIXTURES_DIR)`);
  }
  for (const file of testFiles(join(__dirname, 'test'))) {
    if (NEEDS_FIXTURES.test(readFileSync(file, 'utf8'))) ignored.push(file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  }
  process.stderr.write(
    `lcds: ${ignored.length} test files left out: they play third-party course packages, and ${fixturesDir} has none ` +
      '(set LCDS_FIXTURES_DIR to a copy of the fixtures directory: public SCORM, AICC, xAPI and cmi5 examples and ADL test suites).\n',
  );
}

/** @type {import('jest').Config} */
module.exports = {
  rootDir: '.',
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/test/**/*.spec.ts', '<rootDir>/src/**/*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...ignored],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022', keepClassNames: true } }] },
  // Extensions import LCDS's public surface by its package name (LCDS's own loader maps it when not under jest).
  moduleNameMapper: { '^lcds/extension$': '<rootDir>/src/extension/index.ts' },
  testEnvironment: 'node',
  testTimeout: 60000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
