import {
  ArgumentError,
  ConcurrencyViolationError,
  type DTask,
  DTaskFailedError,
} from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rig, sharedF64 } from './__fixtures__/harness.js';
import { Deps, In, InOut, Out, spawnDatadeps, view } from './index.js';

const rand = (n: number) => Float64Array.from({ length: n }, () => Math.random());

describe('spawnDatadeps on worker threads', () => {
  it("Dagger's case: add!/add!/add!/copyto! equals the sequential program (ordinary buffers, copied back)", async () => {
    const { ctx, k } = await rig();
    const A = rand(100);
    const B = rand(100);
    const C = rand(100);
    const D = new Float64Array(100);
    const [a, b, c] = [A.slice(), B.slice(), C.slice()];
    const where: DTask<string>[] = [];
    await spawnDatadeps(() => {
      where.push(ctx.spawn(k.addInto, InOut(B), In(A)));
      where.push(ctx.spawn(k.addInto, InOut(C), In(A)));
      where.push(ctx.spawn(k.addInto, InOut(C), In(B)));
      where.push(ctx.spawn(k.copyInto, Out(D), In(C)));
    });
    for (let i = 0; i < 100; i++) {
      const expected = a[i] + b[i] + (a[i] + c[i]);
      expect(C[i]).toBeCloseTo(expected, 12);
      expect(D[i]).toBeCloseTo(expected, 12);
      expect(B[i]).toBeCloseTo(a[i] + b[i], 12);
    }
    // They really ran on worker threads.
    for (const t of where) expect(await t).toMatch(/^thread:1:[23]$/);
  });

  it('two overlapping views of zeros(3) set to 1 give [1, 1, 1]', async () => {
    const { ctx, k } = await rig();
    const x = new Float64Array(3);
    await spawnDatadeps(() => {
      ctx.spawn(k.fill, InOut(view(x, [0, 2])), 1);
      ctx.spawn(k.fill, InOut(view(x, [1, 3])), 1);
    });
    expect([...x]).toEqual([1, 1, 1]);
  });

  it('the same over a SharedArrayBuffer (written in place)', async () => {
    const { ctx, k } = await rig();
    const x = sharedF64(3);
    await spawnDatadeps(() => {
      ctx.spawn(k.fill, InOut(view(x, [0, 2])), 1);
      ctx.spawn(k.fill, InOut(view(x, [1, 3])), 1);
    });
    expect([...x]).toEqual([1, 1, 1]);
  });

  it('spawnDatadeps(() => 42) is 42', async () => {
    expect(await spawnDatadeps(() => 42)).toBe(42);
    expect(await spawnDatadeps(async () => 'x')).toBe('x');
  });

  it('a region with a failing task rejects with that failure; later readers fail with it', async () => {
    const { ctx, k } = await rig();
    const x = sharedF64(4);
    const err = await spawnDatadeps(() => {
      ctx.spawn(k.boom, 'kaput');
      ctx.spawn(k.fill, InOut(x), 1);
    }).catch((e) => e);
    expect(DTaskFailedError.isInstance(err)).toBe(true);
    expect(String(err.cause?.message ?? err.message)).toContain('kaput');
    expect([...x]).toEqual([1, 1, 1, 1]); // an unrelated task still ran
  });

  it('fetch, wait and await of a region task inside the region throw ConcurrencyViolationError', async () => {
    const { ctx, k } = await rig();
    const x = sharedF64(4);
    const seen: unknown[] = [];
    let task: DTask<string> | undefined;
    await spawnDatadeps(async () => {
      task = ctx.spawn(k.fill, InOut(x), 2);
      for (const f of [() => task!.fetch(), () => task!.wait(), async () => await task!]) {
        try {
          await f();
        } catch (e) {
          seen.push(e);
        }
      }
    });
    expect(seen).toHaveLength(3);
    for (const e of seen) expect(ConcurrencyViolationError.isInstance(e)).toBe(true);
    expect((seen[0] as Error & { code: string }).code).toBe('DTASK_CONCURRENCY');
    // After the region, waiting is fine.
    expect(await task!).toMatch(/^thread:/);
  });

  it("a field written via Deps(x, InOut('x')) is then read", async () => {
    const { ctx, k } = await rig();
    const obj = { x: 1, y: 'keep' };
    let read: DTask<unknown> | undefined;
    await spawnDatadeps(() => {
      ctx.spawn(k.setField, Deps(obj, InOut('x')), 'x', 42);
      read = ctx.spawn(k.getField, Deps(obj, In('x')), 'x');
    });
    expect(await read!).toBe(42);
    expect(obj).toEqual({ x: 42, y: 'keep' });
  });
});

describe('spawnDatadeps: boundaries', () => {
  it('tasks that do not alias run at the same time on both threads', async () => {
    const { ctx, k } = await rig();
    const order = new Int32Array(new SharedArrayBuffer(4 * 8));
    const x = sharedF64(8);
    const where: DTask<string>[] = [];
    // Each waits up to 10 s for the other to start (a loaded machine may start it late), and
    // ends at once when it does.
    await spawnDatadeps(() => {
      where.push(ctx.spawn(k.stampOn, InOut(x.subarray(0, 4)), order, 10_000, 1));
      where.push(ctx.spawn(k.stampOn, InOut(x.subarray(4)), order, 10_000, 2));
    });
    const log = [...order.subarray(1, 1 + order[0])];
    expect(log.slice(0, 2).sort()).toEqual([1, 2]); // both started before either ended
    expect(new Set(await Promise.all(where)).size).toBe(2);
  });

  it('the first task starts on an idle thread while the region is still spawning', async () => {
    const { ctx, k } = await rig();
    const order = new Int32Array(new SharedArrayBuffer(4 * 8));
    const x = sharedF64(4);
    const seenWhileSpawning = await spawnDatadeps(() => {
      ctx.spawn(k.stampOn, InOut(x), order, 1, 1);
      // Spawning goes on (here: a busy wait of up to 3 s); the task must not wait for it to end.
      const until = Date.now() + 3000;
      while (Atomics.load(order, 0) === 0 && Date.now() < until);
      return Atomics.load(order, 0) > 0;
    });
    expect(seenWhileSpawning).toBe(true);
    expect([...order.subarray(1, 3)]).toEqual([1, 11]);
  });

  it('a task whose input finished starts while the region is still spawning', async () => {
    const { ctx, k } = await rig();
    const order = new Int32Array(new SharedArrayBuffer(4 * 8));
    const x = sharedF64(4);
    const y = sharedF64(4);
    const seenWhileSpawning = await spawnDatadeps(() => {
      ctx.spawn(k.stampOn, InOut(x), order, 1, 1);
      ctx.spawn(k.stampOn, In(x), order, 1, 2); // waits for the first one
      // Spawning goes on for up to 3 s (unrelated tasks, one per millisecond); the second task
      // must start as soon as the first is done, not once the region yields.
      const until = Date.now() + 3000;
      const pause = new Int32Array(new SharedArrayBuffer(4));
      while (Atomics.load(order, 0) < 3 && Date.now() < until) {
        ctx.spawn(k.fill, Out(y), 0);
        Atomics.wait(pause, 0, 0, 1);
      }
      return Atomics.load(order, 0) >= 3;
    });
    expect(seenWhileSpawning).toBe(true);
    expect([...order.subarray(1, 5)]).toEqual([1, 11, 2, 12]);
  });

  it('a bad argument throws ArgumentError at spawn, inside the region', async () => {
    const { ctx, k } = await rig();
    const error = await spawnDatadeps(() => {
      ctx.spawn(k.fill, Out(3 as unknown as Float64Array), 1);
    }).catch((e) => e);
    expect(ArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/Argument 0 is marked Out\/InOut but is a number/);
  });

  it('options are checked: traversal must be inorder, unknown keys are errors', async () => {
    await expect(spawnDatadeps(() => 1, { traversal: 'bfs' as 'inorder' })).rejects.toThrow(
      /traversal 'bfs' is not supported/,
    );
    await expect(spawnDatadeps(() => 1, { order: 1 } as never)).rejects.toThrow(
      /unknown option 'order'/,
    );
    await expect(spawnDatadeps(1 as never)).rejects.toThrow(ArgumentError);
    expect(await spawnDatadeps(() => 7, { traversal: 'inorder' })).toBe(7);
  });

  it("the region's function failing rejects with its error after its tasks finished", async () => {
    const { ctx, k } = await rig();
    const x = sharedF64(2);
    const error = await spawnDatadeps(() => {
      ctx.spawn(k.fill, InOut(x), 5);
      throw new Error('region body failed');
    }).catch((e) => e);
    expect(error.message).toBe('region body failed');
    expect([...x]).toEqual([5, 5]);
  });

  it('waiting on tasks spawned outside the region is allowed inside it', async () => {
    const { ctx, k } = await rig();
    const outside = ctx.spawn(k.whereAmI);
    const seen = await spawnDatadeps(async () => await outside);
    expect(seen).toMatch(/^thread:/);
  });
});
