// Dagger's streaming cases (core's `streamingConformance` kit) on 2 worker processes and the
// main thread, each task's scope chosen at random as Dagger's test/streaming.jl does; and a
// plain program in which the worker process under a streaming task is killed.
import { scope } from '@dtask/core';
import { streamingConformance } from '@dtask/core/testing';
import { describe, expect, it } from 'vitest';
import { clusterRig } from './__fixtures__/rig.js';
import { fixture, programsBuilt, runProgram } from './__fixtures__/run-program.js';

describe.skipIf(!programsBuilt)('cluster: streaming', () => {
  streamingConformance(
    'cluster({ workers: 2 }), a random process per task',
    async () => {
      const { ctx, plugin } = await clusterRig();
      const placements = [
        { scope: scope({ worker: 1, thread: 1 }) },
        ...plugin.processWorkers().map((w) => ({ scope: scope({ worker: w.worker }) })),
      ];
      return {
        context: ctx,
        pick: () => placements[Math.floor(Math.random() * placements.length)] as object,
      };
    },
    { describe, it },
  );

  it('a worker process killed under a streaming task fails the DAG with WorkerLostError naming it; other tasks still run', async () => {
    const r = await runProgram([fixture('streaming-loss-main.mjs')], 90_000);
    const said = `exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\n${r.stdout}\n${r.stderr}`;
    expect(r.code, said).toBe(0);
    expect(r.stderr, said).not.toMatch(/Unhandled/);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0], said).toMatch(/^values \d+$/);
    expect(lines.slice(1), said).toEqual([
      'source DTASK_CANCELLED',
      "double DTASK_WORKER_LOST names 'double' yes",
      'sink DTASK_CANCELLED',
      'reader DTASK_CANCELLED',
      'after 42',
      'done',
    ]);
  }, 120_000);
});
