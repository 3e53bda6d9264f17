// Dagger moves data to the task (seed 002, "Chunk Data"): a Chunk or DTask argument whose data
// is on the main thread, written in place by a task scoped to a worker thread or a worker
// process, is copied to where the task runs, and the written copy back into the data here.
// Ordinary memory and shared memory; each equal to the sequential program.
import { cluster } from '@dtask/cluster';
import { type AbstractScope, type Chunk, Context, type DTask, isChunk, scope } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InOut, Out } from './annotations.js';
import { spawnDatadeps } from './spawn-datadeps.js';

type Memory = 'ordinary' | 'shared';
type Kind = 'Chunk' | 'DTask';
type Holder = Chunk<Float64Array> | DTask<Float64Array>;

const N = 300; // 2.4 KiB: a task result this big stays on the worker that made it

function floats(memory: Memory, n: number): Float64Array {
  return memory === 'shared' ? new Float64Array(new SharedArrayBuffer(8 * n)) : new Float64Array(n);
}

async function heldValue(h: Holder): Promise<Float64Array> {
  return isChunk(h) ? await h.fetch() : await h;
}

/** The sequential program: `x[i] = i + 1` (Out), then `x[i] = x[i] * 10 + 1` twice. */
function sequential(n: number): number[] {
  const x = Array.from({ length: n }, (_, i) => i + 1);
  for (let r = 0; r < 2; r++) for (let i = 0; i < n; i++) x[i] = x[i] * 10 + 1;
  return x;
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

declare const dtask: typeof import('@dtask/core');

describe('datadeps moves written data to a task scoped elsewhere, and back', () => {
  let ctx: Context;
  // The worker process's number, from the plugin (numbers are counted per test process).
  let processWorker = 0;
  beforeAll(async () => {
    const plugin = cluster({ workers: 1 });
    ctx = new Context({ plugins: [threads({ count: 2 }), plugin] });
    await ctx.ready();
    [{ worker: processWorker }] = plugin.processWorkers();
  }, 60_000);
  afterAll(() => ctx?.close());

  const writers: [string, () => AbstractScope, () => string][] = [
    ['a worker thread', () => scope({ worker: 1, thread: 3 }), () => 'thread:1:3'],
    ['a worker process', () => scope({ worker: processWorker }), () => `thread:${processWorker}:1`],
  ];
  for (const [where, at, id] of writers) {
    for (const kind of ['Chunk', 'DTask'] as Kind[]) {
      for (const memory of ['ordinary', 'shared'] as Memory[]) {
        it(`${kind} made on the main thread, ${memory} memory, written on ${where}: equals the sequential program`, async () => {
          // A toChunk of data here, or a task result made here (big: it stays here).
          const h: Holder =
            kind === 'Chunk'
              ? ctx.toChunk(floats(memory, N))
              : (ctx.spawn(
                  { scope: scope({ worker: 1, thread: 1 }) },
                  (x: Float64Array) => x,
                  floats(memory, N),
                ) as DTask<Float64Array>);
          const ran = await writeOn(ctx, h, at());
          expect(Array.from(await heldValue(h))).toEqual(sequential(N));
          expect(new Set(ran)).toEqual(new Set([id()]));
        }, 60_000);
      }
    }
  }
});
