// A plain `node` program on 32 local worker processes (`__fixtures__/many-workers-main.mjs`),
// as a user runs it: exact results from every worker, a chain whose results hop across all of
// them over peer links made on demand, few sockets per worker, and exit 0. A slow test: starting
// 32 node processes takes most of its time, 10-35 s on a loaded 2-core machine (29 s and 33 s
// measured at load averages of 30-50, and past the default 30 s for a worker to join at load
// 40+); each worker is given 100 s to join, the program 120 s. Needs the built dist.
import { describe, expect, it } from 'vitest';
import { fixture, programsBuilt, runProgram } from './__fixtures__/run-program.js';

describe.skipIf(!programsBuilt)('cluster: a plain program on 32 worker processes', () => {
  it('exact results from all 32, a chain across them, under 8 sockets per worker, exit 0', async () => {
    const r = await runProgram([fixture('many-workers-main.mjs'), '32', '100000'], 120_000);
    const said = `exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\n${r.stdout}\n${r.stderr}`;
    expect(r.stderr, said).not.toMatch(/Unhandled|WorkerLostError/);
    expect(r.code, said).toBe(0);
    const report = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(report, said).toMatchObject({ workers: 32, ranOn: 32 });
    expect(report.sum, said).toBe(report.expected);
    expect(report.chain, said).toBe(report.chainExpected);
    // `ss` may be missing: then the count is null and only the results are checked.
    if (report.socketsMax !== null) expect(report.socketsMax, said).toBeLessThan(8);
    expect(r.leftovers).toEqual([]);
  }, 150_000);
});
