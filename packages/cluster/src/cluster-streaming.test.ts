// Dagger's streaming cases (core's `streamingConformance` kit) on 2 worker processes and the
// main thread, each task's scope chosen at random as Dagger's test/streaming.jl does; and a
// plain program in which the worker process under a streaming task is killed.
import { readFileSync } from 'node:fs';
import { type DTask, scope, spawnStreaming, streamValues } from '@dtask/core';
import { streamingConformance } from '@dtask/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterRig } from './__fixtures__/rig.js';
import { fixture, programsBuilt, runProgram } from './__fixtures__/run-program.js';

/** The CPU a process has used (user and system, in clock ticks: 10 ms on Linux). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

describe.skipIf(!programsBuilt)('cluster: streaming', () => {
  // The cluster of 2 worker processes the next test and the conformance cases share: made by
  // the first to ask, closed by the kit after its last case (or here, if it never ran).
  let started: ReturnType<typeof clusterRig> | undefined;
  const rig = () => (started ??= clusterRig());
  afterAll(async () => (await started?.catch(() => undefined))?.ctx.close());

  it('values between two worker processes go directly: they flow while the main thread is blocked, in order', async () => {
    const { ctx, plugin } = await rig();
    const workers = plugin.processWorkers();
    const [a, b] = workers.map((w) => ({ scope: scope({ worker: w.worker }) }));
    const stamperPid = workers[1]!.child!.pid!;
    const spawn = ctx.spawn.bind(ctx) as unknown as (...x: unknown[]) => DTask<unknown>;
    // The middle step stamps each value with the time it ran; the last one keeps them all
    // for the reader on the main thread (room for every value).
    const pipeline = (n: number) =>
      spawnStreaming(() => {
        const source = spawn({ ...a, streamMaxEvals: n, streamBufferSize: 64 }, async function* () {
          for (let i = 0; ; i++) yield i;
        });
        const stamped = spawn(
          { ...b, streamBufferSize: 64 },
          (v: number) => [v, Date.now()],
          source,
        );
        return spawn({ ...a, streamBufferSize: n }, (p: [number, number]) => p, stamped);
      });
    // Warm, as the conformance cases once left the cluster before this test: the links between
    // the two processes made and the steps compiled. Cold, at load 50, they were still being
    // made when the main thread was held below, and the values waited for it.
    let warm = 0;
    for await (const _ of streamValues(pipeline(1000))) warm++;
    expect(warm).toBe(1000);
    const n = 100_000;
    const last = pipeline(n);
    const reader = streamValues(last)[Symbol.asyncIterator]();
    expect((await reader.next()).done).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    // This thread held until the stamping process has worked 100 ms more (its CPU, however
    // loaded the machine is), or 60 s: values that needed this thread would stop it after 128.
    const from = Date.now();
    const busyFrom = cpuTicks(stamperPid);
    while (cpuTicks(stamperPid) - busyFrom < 10 && Date.now() - from < 60_000) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
    const to = Date.now();
    let next = 1;
    let inOrder = true;
    let during = 0;
    for (;;) {
      const r = await reader.next();
      if (r.done) break;
      const [v, at] = r.value as [number, number];
      if (v !== next++) inOrder = false;
      if (at > from && at < to) during++;
    }
    expect(inOrder).toBe(true);
    expect(next).toBe(n);
    // Through the main thread no more than the edge's 64 values and a batch of 64 could.
    expect(during).toBeGreaterThan(1_000);
  }, 120_000);

  streamingConformance(
    'cluster({ workers: 2 }), a random process per task',
    async () => {
      const { ctx, plugin } = await rig();
      const placements = [
        { scope: scope({ worker: 1, thread: 1 }) },
        ...plugin.processWorkers().map((w) => ({ scope: scope({ worker: w.worker }) })),
      ];
      return {
        context: ctx,
        pick: () => placements[Math.floor(Math.random() * placements.length)] as object,
      };
    },
    // One cluster serves every case (starting worker processes is the slow part), the one the
    // test above used; the kit closes it after its last case.
    { describe, it, afterAll },
    { share: true },
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
