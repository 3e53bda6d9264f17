import { execFile } from 'node:child_process';

/** Core's built entry point, as a URL a child program imports. */
export const CORE_DIST = new URL('../../../dist/index.js', import.meta.url);

/** What a child `node` program did: its exit status (1 when it timed out or died) and output. */
export interface ProgramRun {
  code: number | null;
  out: string;
}

/**
 * Runs `script` as a plain ES module program (`node --input-type=module -e`), as a user runs
 * one, outside the test runner and its handlers; killed past `timeoutMs`.
 */
export function runProgram(script: string, timeoutMs = 20_000): Promise<ProgramRun> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { timeout: timeoutMs },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error.code as number) ?? 1) : 0, out: stdout + stderr }),
    ),
  );
}
