// Plain `node` programs on worker processes, as a user runs them (no test runner to catch what
// a real program dies of): a worker process lost in any way never crashes the program with an
// unhandled rejection; `await everywhere(url)` keeps node alive while the workers load it; a
// program run with `node -e` does not fork itself; no socket folder is left in the temp
// directory, with or without `shutdown()`; a scheduler busy in the user's synchronous code
// keeps its workers; an input lost on its way through the scheduler is recomputed. Needs the
// built dist. The programs that only wait on their own processes (no heartbeat timeout of a
// fraction of a second to meet) run side by side, in a group of two and one of four (each
// program is a scheduler and one or two worker processes: most of its time is their start).
import { readFileSync } from 'node:fs';
import { describe, type ExpectStatic, expect as globalExpect, it } from 'vitest';
import { fixture, type ProgramRun, programsBuilt, runProgram } from './__fixtures__/run-program.js';

/**
 * The checks every program here must pass: exit 0, nothing unhandled, no folder left (with the
 * `expect` of the test's context where tests run side by side).
 */
function expectClean(r: ProgramRun, lines: string[], expect: ExpectStatic = globalExpect): void {
  const said = `exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\n${r.stdout}\n${r.stderr}`;
  expect(r.stderr, said).not.toMatch(/Unhandled|WorkerLostError|RECURSED/);
  expect(r.code, said).toBe(0);
  expect(r.stdout.trim().split('\n'), said).toEqual(lines);
  expect(r.leftovers, 'dtask-cluster-* folders left in the temp directory').toEqual([]);
}

describe.skipIf(!programsBuilt)('cluster: plain programs', () => {
  const losses = [
    ['a task calls process.exit(1) on its worker process', 'exit'],
    ['the worker process running a task is SIGKILLed', 'kill'],
    ['the worker process running a task is SIGSTOPped, then the program ends', 'stop'],
  ] as const;
  for (const [what, which] of losses) {
    // The stopped worker is found by heartbeats that time out after 0.8 s: not beside others.
    const test = which === 'stop' ? it : it.concurrent;
    test(`${what}: the re-run result is printed, exit 0, nothing unhandled`, async ({ expect }) => {
      const r = await runProgram([fixture('worker-loss-main.mjs'), which], 90_000);
      expectClean(r, ['value 42', 'done'], expect);
    }, 120_000);
  }

  for (const which of ['killer', 'async-killer']) {
    const how = which === 'killer' ? 'synchronously' : 'after an await';
    it.concurrent(`a task that calls process.exit() ${how} each time, beside slow tasks: it alone fails (after 3 deaths), they finish`, async ({
      expect,
    }) => {
      // The worker process names the task running when it exits: the slow tasks in flight on
      // it each time are not blamed (shared among all, they failed with it, or instead of it).
      const r = await runProgram([fixture('worker-loss-main.mjs'), which], 90_000);
      expectClean(r, ['killer DTASK_WORKER_LOST alone', 'slow 0,1,2', 'done'], expect);
    }, 120_000);
  }

  it.concurrent('cancel() of a busy task on a worker process, a follow-up there, shutdown(): exit 0, no folder left', async ({
    expect,
  }) => {
    const r = await runProgram([fixture('worker-loss-main.mjs'), 'cancel'], 90_000);
    expectClean(r, ['busy DTASK_CANCELLED', 'value 42', 'done'], expect);
  }, 120_000);

  it.concurrent('a program that ends without shutdown() leaves no socket folder in the temp directory', async ({
    expect,
  }) => {
    const r = await runProgram([fixture('worker-loss-main.mjs'), 'no-shutdown'], 90_000);
    expectClean(r, ['value 42', 'done'], expect);
  }, 120_000);

  it('await everywhere(url) keeps node alive while idle worker processes load the module', async () => {
    // Without a handle held for the wait, node ended such programs with status 13 (an
    // unsettled top-level await) in about half the runs: three runs side by side.
    const runs = await Promise.all(
      [1, 2, 3].map(() => runProgram([fixture('everywhere-main.mjs')], 90_000)),
    );
    for (const r of runs) expectClean(r, ['loaded', 'value 42', 'done']);
  }, 120_000);

  it("the scheduler's main thread busy in the user's code for five heartbeat timeouts: the same workers, their data kept, exit 0", async ({
    expect,
  }) => {
    const r = await runProgram([fixture('busy-scheduler-main.mjs')], 90_000);
    expectClean(r, ['sum 499500', 'same workers true', 'lost none'], expect);
    expect(r.stderr).not.toMatch(/no word from the scheduler|did not answer a heartbeat probe/);
  }, 120_000);

  it("an input's holder freezes while the scheduler brings the input to a task elsewhere: recomputed, exact, exit 0", async () => {
    // Before: the task failed with the holder's WorkerLostError, and the program died of it.
    const r = await runProgram([fixture('lost-input-main.mjs')], 90_000);
    expectClean(r, ['sum 499500', 'done']);
  }, 120_000);

  it('a program run with node -e starts workers that run the worker, not the program again', async () => {
    const code = readFileSync(fixture('eval-program.mjs'), 'utf8');
    const r = await runProgram(['--input-type=module', '-e', code], 90_000);
    expectClean(r, ['value 42 flags []', 'done']);
  }, 120_000);
});
