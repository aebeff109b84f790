// Prints the plain closing line CI reads ("tests: N passed, N failed") and, when LCDS_TEST_SUMMARY_FILE is set,
// appends "passed failed" to it so .ci/run can add up both stacks.
const { appendFileSync } = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    // A suite that failed before running any test (e.g. a crash in beforeAll of a file) counts as a failure.
    const brokenSuites = results.testResults.filter((r) => r.testExecError || (r.numFailingTests === 0 && r.failureMessage && r.numPassingTests === 0)).length;
    const failed = results.numFailedTests + brokenSuites;
    process.stdout.write(`\ntests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
    if (process.env.LCDS_TEST_SUMMARY_FILE) appendFileSync(process.env.LCDS_TEST_SUMMARY_FILE, `${results.numPassedTests} ${failed}\n`);
  }
}
module.exports = SummaryReporter;
