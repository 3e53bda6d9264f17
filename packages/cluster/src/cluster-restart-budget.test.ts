// A worker process's number is given up only after starts that fail before it runs a task:
// deaths caused by a task, and deaths of a worker that served, restart it with the whole
// budget again (Dask's nanny). A plain program on real worker processes, SIGKILLed from
// inside (by a task) and from outside. Needs the built dist.
import { describe, expect, it } from 'vitest';
import { fixture, programsBuilt, runProgram } from './__fixtures__/run-program.js';

describe.skipIf(!programsBuilt)('cluster: a worker number keeps its restart budget', () => {
  it('a task killing its worker 3 times, then 4 outside SIGKILLs after it served: replaced each time', async () => {
    const r = await runProgram([fixture('restart-budget-main.mjs')], 90_000);
    const said = `exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\n${r.stdout}\n${r.stderr}`;
    expect(r.code, said).toBe(0);
    expect(r.stderr, said).not.toMatch(/Unhandled|given up|while starting/);
    expect(r.stdout.trim().split('\n'), said).toEqual([
      'killer DTASK_WORKER_LOST',
      'served after the killer',
      'replaced 1',
      'replaced 2',
      'replaced 3',
      'replaced 4',
      'done',
    ]);
  }, 120_000);
});
