// Chaos in a plain program: a random 2,000-task DAG on 2 worker processes while 5 of them are
// SIGKILLed at random times (`__fixtures__/chaos-main.mjs`). The program must exit 0, with
// nothing unhandled, every value equal to a sequential evaluation of the same DAG, and no
// socket folder left behind. Needs the built dist.
import { describe, expect, it } from 'vitest';
import { fixture, programsBuilt, runProgram } from './__fixtures__/run-program.js';

describe.skipIf(!programsBuilt)('cluster: chaos in a plain program', () => {
  it('a 2,000-task DAG on 2 worker processes, 5 SIGKILLs at random: exit 0, every value exact', async () => {
    const seed = Math.floor(Math.random() * 1e9);
    const r = await runProgram([fixture('chaos-main.mjs'), String(seed)], 240_000);
    const said = `seed ${seed}, exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\n${r.stdout}\n${r.stderr}`;
    expect(r.stderr, said).not.toMatch(/Unhandled|WorkerLostError/);
    expect(r.code, said).toBe(0);
    const report = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(report, said).toMatchObject({ tasks: 2000, kills: 5, killsWhileRunning: 5, wrong: 0 });
    expect(r.leftovers).toEqual([]);
  }, 300_000);
});
