// Dagger moves data to the task (seed 002, "Chunk Data"): a Chunk or DTask argument whose data
// a worker thread or a worker process holds, written in place by a task scoped to another
// worker or to the main thread, gets a copy where the task runs, and its written copy is
// written back into the data on the worker holding it before later tasks run. Ordinary and
// shared memory (shared memory of one process is written in place by its threads); each case
// equals the sequential program, read back where the data lives; the child-program case runs
// what a user would run.
import { cluster } from '@dtask/cluster';
import { type AbstractScope, type Chunk, Context, type DTask, scope } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFixture } from './__fixtures__/run-node.js';
import { InOut, Out } from './annotations.js';
import { spawnDatadeps } from './spawn-datadeps.js';

type Memory = 'ordinary' | 'shared';
type Kind = 'Chunk' | 'DTask';
type Holder = Chunk<Float64Array> | DTask<Float64Array>;

declare const dtask: typeof import('@dtask/core');

const N = 300; // 2.4 KiB: a task result this big stays on the worker that made it

interface Place {
  name: string;
  scope: () => AbstractScope;
  id: string;
}

const MAIN: Place = {
  name: 'the main thread',
  scope: () => scope({ worker: 1, thread: 1 }),
  id: 'thread:1:1',
};
const THREAD: Place = {
  name: 'a worker thread',
  scope: () => scope({ worker: 1, thread: 2 }),
  id: 'thread:1:2',
};
const OTHER_THREAD: Place = {
  name: 'another worker thread',
  scope: () => scope({ worker: 1, thread: 3 }),
  id: 'thread:1:3',
};
/** The worker processes' numbers, from the plugin once started (counted per test process). */
const processWorkers = [2, 3];
const PROCESS: Place = {
  name: 'a worker process',
  scope: () => scope({ worker: processWorkers[0] }),
  get id() {
    return `thread:${processWorkers[0]}:1`;
  },
};
const OTHER_PROCESS: Place = {
  name: 'another worker process',
  scope: () => scope({ worker: processWorkers[1] }),
  get id() {
    return `thread:${processWorkers[1]}:1`;
  },
};

/** The sequential program: `x[i] = i + 1` (Out), then `x[i] = x[i] * 10 + 1` twice. */
function sequential(n: number): number[] {
  const x = Array.from({ length: n }, (_, i) => i + 1);
  for (let r = 0; r < 2; r++) for (let i = 0; i < n; i++) x[i] = x[i] * 10 + 1;
  return x;
}

/**
 * Data made by a task on `home` (it stays there), as a DTask or as the Chunk of its result (in
 * a box: an async function's result that is a DTask, a thenable, would be awaited).
 */
async function madeOn(
  ctx: Context,
  home: Place,
  kind: Kind,
  memory: Memory,
): Promise<{ h: Holder }> {
  const t = ctx.spawn(
    { scope: home.scope() },
    (n: number, shared: boolean) =>
      shared ? new Float64Array(new SharedArrayBuffer(8 * n)) : new Float64Array(n),
    N,
    memory === 'shared',
  ) as DTask<Float64Array>;
  await t.wait();
  return { h: kind === 'DTask' ? t : ((await t.fetch({ raw: true })) as Chunk<Float64Array>) };
}

/** The data as the processor `home` holds it (a task there reads it in place). */
async function readOn(ctx: Context, h: Holder, home: Place): Promise<number[]> {
  return (await ctx.spawn(
    { scope: home.scope() },
    (x: Float64Array) => [dtask.taskProcessor().id, ...Array.from(x)],
    h,
  )) as number[];
}

/** The region: writes `h` three times on `at`, reporting where each task ran. */
async function writeOn(ctx: Context, h: Holder, at: AbstractScope): Promise<string[]> {
  const ran: DTask<string>[] = [];
  await spawnDatadeps(() => {
    ran.push(
      ctx.spawn(
        { scope: at },
        (x: Float64Array) => {
          for (let i = 0; i < x.length; i++) x[i] = i + 1;
          return dtask.taskProcessor().id;
        },
        Out(h),
      ) as DTask<string>,
    );
    for (let r = 0; r < 2; r++) {
      ran.push(
        ctx.spawn(
          { scope: at },
          (x: Float64Array) => {
            for (let i = 0; i < x.length; i++) x[i] = x[i] * 10 + 1;
            return dtask.taskProcessor().id;
          },
          InOut(h),
        ) as DTask<string>,
      );
    }
  });
  return Promise.all(ran);
}

describe('datadeps moves data held by a worker to a task scoped elsewhere, and back there', () => {
  let ctx: Context;
  beforeAll(async () => {
    const plugin = cluster({ workers: 2 });
    ctx = new Context({ plugins: [threads({ count: 3 }), plugin] });
    await ctx.ready();
    processWorkers.splice(0, 2, ...plugin.processWorkers().map((w) => w.worker));
  }, 120_000);
  afterAll(() => ctx?.close());

  const cases: [Place, Place][] = [
    [THREAD, OTHER_THREAD],
    [THREAD, PROCESS],
    [THREAD, MAIN],
    [PROCESS, THREAD],
    [PROCESS, OTHER_PROCESS],
    [PROCESS, MAIN],
    // Written where it is held: in place there (a raw-fetched chunk too, not a copy of it).
    [THREAD, THREAD],
    [PROCESS, PROCESS],
  ];
  for (const [home, writer] of cases) {
    for (const kind of ['Chunk', 'DTask'] as Kind[]) {
      for (const memory of ['ordinary', 'shared'] as Memory[]) {
        const on = writer === home ? 'that worker' : writer.name;
        it(`${kind} held by ${home.name}, ${memory} memory, written on ${on}: equals the sequential program`, async () => {
          const { h } = await madeOn(ctx, home, kind, memory);
          const ran = await writeOn(ctx, h, writer.scope());
          expect(new Set(ran)).toEqual(new Set([writer.id]));
          // Written where it lives: a task there reads the writes in place.
          expect(await readOn(ctx, h, home)).toEqual([home.id, ...sequential(N)]);
        }, 60_000);
      }
    }
  }
});

describe('a plain node program writing data held by a worker process from a worker thread', () => {
  it('prints the sequential result, written on the thread and held by the process', async () => {
    const { code, out, err } = await runFixture('worker-held-main.mjs', 80_000);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(JSON.parse(out.trim().split('\n').at(-1) ?? '')).toEqual({
      writer: 'thread:1:2',
      held: ['thread:2:1', 11, 21, 3001],
    });
  }, 90_000);
});
