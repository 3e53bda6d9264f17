// Seed 004 (task affinity), translated to API.md's names and run on real worker threads.
// Dagger's workers 2 and 3 become this process's threads 2 and 3 (`thread:1:2`,
// `thread:1:3`; the main thread is `thread:1:1`), since @dtask/threads has one worker.
import { scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';

const g = (x: number, y: number) => x * 2 + y * 3;
const T2 = 'thread:1:2';
const T3 = 'thread:1:3';

describe('seed 004: a function as a chunk', () => {
  it('h1..h5 run inside the chunk’s scope, and the result is held there', async () => {
    const { ctx } = await rig();
    const chunkScope = scope({ worker: 1, thread: 3 });
    const gChunk = ctx.toChunk(g, ctx.localProc, chunkScope);
    const h1 = ctx.spawn({ scope: chunkScope }, gChunk, 10, 11);
    const h2 = ctx.spawn(
      { computeScope: scope({ worker: 1, thread: 1 }, { worker: 1, thread: 3 }) },
      gChunk,
      20,
      21,
    );
    const h3 = ctx.spawn(
      {
        scope: scope({ worker: 1, thread: 2 }),
        computeScope: scope({ worker: 1, thread: 1 }, { worker: 1, thread: 3 }),
      },
      gChunk,
      30,
      31,
    );
    const h4 = ctx.spawn({ resultScope: scope({ worker: 1 }) }, gChunk, 40, 41);
    const h5 = ctx.spawn(
      {
        scope: scope({ worker: 1, thread: 3 }),
        computeScope: scope({ worker: 1 }),
        resultScope: scope({ worker: 1, threads: [2, 3] }),
      },
      gChunk,
      50,
      51,
    );
    const hs = [h1, h2, h3, h4, h5];
    expect(await Promise.all(hs)).toEqual([53, 103, 153, 203, 253]);
    for (const h of hs) {
      expect(h.proc?.id).toBe(T3);
      const result = await h.fetch({ raw: true });
      expect(result.processor.id).toBe(T3);
    }
  });
});

describe('seed 004: chunk arguments', () => {
  it('tasks run where the argument’s scope and theirs meet', async () => {
    const { ctx } = await rig();
    const argScope = scope({ worker: 1, thread: 2 });
    const arg = ctx.toChunk(g(1, 2), ctx.localProc, argScope);
    const h = ctx.spawn({ scope: argScope }, g, arg, 11);
    const h1 = ctx.spawn(
      { computeScope: scope({ worker: 1, thread: 1 }, { worker: 1, thread: 2 }) },
      g,
      arg,
      11,
    );
    const h2 = ctx.spawn(
      {
        scope: scope({ worker: 1, thread: 3 }),
        computeScope: scope({ worker: 1, thread: 1 }, { worker: 1, thread: 2 }),
      },
      g,
      arg,
      21,
    );
    const hr = ctx.spawn({ resultScope: argScope }, g, arg, 11);
    expect(await Promise.all([h, h1, h2, hr])).toEqual([49, 49, 79, 49]);
    for (const t of [h, h1, h2, hr]) expect(t.proc?.id).toBe(T2);
  });
});
