// A peer's bytes never crash the scheduler or a worker: a plain program sends malformed batches
// in the same write as the handshake's answer, to the scheduler's port and to a worker's peer
// port, then fuzzes both with random and mutated frames for 3 s. Each bad frame closes its own
// link only; both keep serving; nothing is uncaught. Needs the built dist.
import { describe, expect, it } from 'vitest';
import { fixture, programsBuilt, runProgram } from './__fixtures__/run-program.js';

describe.skipIf(!programsBuilt)('cluster: bad bytes from a secret holder', () => {
  it('malformed batches and 3 s of fuzzed frames close their links only', async () => {
    const r = await runProgram([fixture('bad-bytes-main.mjs'), '3000'], 60_000);
    const said = `exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\n${r.stdout}\n${r.stderr}`;
    expect(r.code, said).toBe(0);
    const lines = r.stdout.trim().split('\n');
    const fuzz = lines.splice(2, 1)[0];
    expect(lines, said).toEqual([
      "malformed batches after the handshake's answer: 18 sent",
      'links closed: each',
      'the worker still serves: true',
      'the scheduler still serves: true',
      'crashes: 0',
      'bad bytes: ok',
    ]);
    const counts = /^fuzz: frames tried (\d+), links (\d+), links closed (\d+)$/.exec(fuzz);
    expect(counts, said).not.toBeNull();
    expect(Number(counts![1])).toBeGreaterThan(100);
    console.log(fuzz); // the counts, for the record
  }, 90_000);
});
