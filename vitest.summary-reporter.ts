import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';

/** One error as the summary prints it: its first lines and the first frame in a test file. */
function describeError(error: { message?: string; stack?: string; name?: string }): string {
  const message = (error.message ?? String(error)).split('\n').slice(0, 6).join('\n      ');
  const frame = (error.stack ?? '')
    .split('\n')
    .find((line) => /\.test\.ts:\d+/.test(line) && !line.includes('node_modules'));
  return `    ${error.name ?? 'Error'}: ${message}${frame ? `\n      ${frame.trim()}` : ''}`;
}

/** "file > describe > test" for a test case, the file relative to the workspace. */
function testName(test: TestCase): string {
  return `${relative(process.cwd(), test.module.moduleId)} > ${test.fullName}`;
}

/**
 * A vitest reporter that writes, once the run ends, a short summary to the file named by
 * `DTASK_TEST_SUMMARY`: every failed test, file and unhandled error with its first lines, and
 * every test that passed only when tried again (`retry`), with the error of its failed try.
 * The test command (`scripts/test.sh`) prints it last, after the checks' long output, so the end
 * of a failed run's log names what failed; a test that needed a second try is named there even
 * when the run passes, since it is sensitive to load and wants fixing.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<{ message?: string; stack?: string; name?: string }>,
  ): void {
    const path = process.env.DTASK_TEST_SUMMARY;
    if (!path) return;
    const failed: string[] = [];
    const flaky: string[] = [];
    for (const module of modules) {
      const moduleErrors = module.errors();
      if (moduleErrors.length > 0) {
        failed.push(
          `  ${relative(process.cwd(), module.moduleId)} (the file itself)`,
          ...moduleErrors.map(describeError),
        );
      }
      for (const test of module.children.allTests()) {
        const result = test.result();
        const errors = [...new Set((result.errors ?? []).map(describeError))];
        if (result.state === 'failed') failed.push(`  ${testName(test)}`, ...errors);
        else if (result.state === 'passed' && test.diagnostic()?.flaky) {
          flaky.push(`  ${testName(test)}`, ...errors);
        }
      }
    }
    const lines: string[] = [];
    if (failed.length > 0) lines.push('failed:', ...failed);
    if (unhandledErrors.length > 0) {
      lines.push(
        `unhandled errors (${unhandledErrors.length}):`,
        ...unhandledErrors.map(describeError),
      );
    }
    if (flaky.length > 0) {
      lines.push('passed only on a second try (sensitive to load: fix them):', ...flaky);
    }
    writeFileSync(path, lines.length > 0 ? `${lines.join('\n')}\n` : '');
  }
}
