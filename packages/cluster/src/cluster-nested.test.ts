// Nested tasks placed by the worker process whose task spawned them (core's
// runtime/owned-tasks.ts), in plain `node` programs as users write them
// (`__fixtures__/nested-main.mjs`): a tree of 1,365 nested tasks rooted on each worker process,
// exact, almost none of them through the scheduler; and with a worker process SIGKILLed while
// its tree runs, everything recomputed, exact, exit 0. Needs the built dist. The two programs
// run side by side (each is mostly worker processes starting and tasks waiting on timers).
import { describe, type ExpectStatic, it } from 'vitest';
import { fixture, programsBuilt, runProgram } from './__fixtures__/run-program.js';

/**
 * Runs the program's `which` case on `workers` worker processes; its JSON report (checked with
 * the `expect` of the test's context, as tests run side by side).
 */
async function run(which: string, workers: number, expect: ExpectStatic) {
  const r = await runProgram([fixture('nested-main.mjs'), which, String(workers)], 90_000);
  const said = `exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\n${r.stdout}\n${r.stderr}`;
  expect(r.stderr, said).not.toMatch(/Unhandled|WorkerLostError/);
  expect(r.code, said).toBe(0);
  expect(r.leftovers).toEqual([]);
  return { report: JSON.parse(r.stdout.trim().split('\n').at(-1)!), said };
}

describe.skipIf(!programsBuilt)('cluster: nested tasks placed by their worker process', () => {
  it.concurrent('a tree on each of 2 worker processes: exact, placed by the workers, not the scheduler', async ({
    expect,
  }) => {
    const { report, said } = await run('tree', 2, expect);
    expect(report.sums, said).toEqual(report.expected);
    const nested = 2 * (report.perTree - 1);
    // A few may go to the scheduler while a worker has yet to time the tree's function.
    expect(report.placedByWorkers.finished, said).toBeGreaterThan(0.9 * nested);
    expect(report.scheduled + report.placedByWorkers.finished, said).toBe(2 + nested);
  }, 120_000);

  it.concurrent('a worker process SIGKILLed under nested work: everything recomputed, exact, exit 0', async ({
    expect,
  }) => {
    const { report, said } = await run('kill', 2, expect);
    expect(report.killed, said).toMatchObject({ midTree: true });
    expect(report.sums, said).toEqual(report.expected);
  }, 120_000);
});
