import { ConcurrencyViolationError, type Context, type DTask, DTaskFailedError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { type Kernels, rig, sharedF64 } from './__fixtures__/harness.js';
import { In, InOut, spawnDatadeps } from './index.js';

const N = 16;

/** A tree reduction of `xs` into `xs[0]` (pairs, then pairs of results): the tasks, in order. */
async function tree(
  ctx: Context,
  f: Kernels['addInto'],
  xs: Float64Array[],
  options?: { inline?: boolean },
): Promise<DTask<string>[]> {
  const tasks: DTask<string>[] = [];
  await spawnDatadeps(() => {
    for (let step = 1; step < xs.length; step *= 2) {
      for (let i = 0; i + step < xs.length; i += 2 * step) {
        tasks.push(ctx.spawn(f, InOut(xs[i]), In(xs[i + step])));
      }
    }
  }, options);
  return tasks;
}

/** `n` arrays of 8 over one SharedArrayBuffer, array k holding k + 1 everywhere. */
function arrays(n = N): Float64Array[] {
  const all = sharedF64(8 * n);
  return Array.from({ length: n }, (_, k) => all.subarray(8 * k, 8 * k + 8).fill(k + 1));
}

/** Trees until one runs wholly on the calling thread (tiny tasks, learned): at most `rounds`. */
async function untilHere(ctx: Context, k: Kernels, rounds = 20): Promise<string[]> {
  let where: string[] = [];
  for (let r = 0; r < rounds; r++) {
    const xs = arrays();
    where = await Promise.all(await tree(ctx, k.addInto, xs));
    expect([...xs[0]]).toEqual(new Array(8).fill((N * (N + 1)) / 2));
    if (where.every((w) => w === 'thread:1:1')) break;
  }
  return where;
}

describe('spawnDatadeps: tiny tasks run on the calling thread', () => {
  it('a tree of tiny additions first runs on the worker threads, then, learned, here, with the same sums', async () => {
    const { ctx, k } = await rig();
    const first = await Promise.all(await tree(ctx, k.addInto, arrays()));
    // Nothing is known of addInto at first: the tasks go to the workers.
    expect(first.filter((w) => w !== 'thread:1:1').length).toBeGreaterThan(0);
    const where = await untilHere(ctx, k);
    expect(new Set(where)).toEqual(new Set(['thread:1:1']));
    expect(where).toHaveLength(N - 1);
  });

  it('inline: false sends every task to the worker threads as before', async () => {
    const { ctx, k } = await rig();
    await untilHere(ctx, k);
    const xs = arrays();
    const where = await Promise.all(await tree(ctx, k.addInto, xs, { inline: false }));
    expect(where.every((w) => /^thread:1:[23]$/.test(w))).toBe(true);
    expect(xs[0][0]).toBe((N * (N + 1)) / 2);
  });

  it('an ordinary (non-shared) array is written directly by a task run here', async () => {
    const { ctx, k } = await rig();
    await untilHere(ctx, k);
    const x = new Float64Array(8).fill(1);
    const y = new Float64Array(8).fill(2);
    let where: DTask<string> | undefined;
    await spawnDatadeps(() => {
      where = ctx.spawn(k.addInto, InOut(x), In(y));
    });
    expect(await where!).toBe('thread:1:1');
    expect([...x]).toEqual(new Array(8).fill(3));
  });

  it('a tiny task that throws here fails the region; a later reader of what it writes fails with it', async () => {
    const { ctx, k } = await rig();
    for (let r = 0; r < 20; r++) {
      const xs = arrays(2);
      await spawnDatadeps(() => ctx.spawn(k.addIntoOr, InOut(xs[0]), In(xs[1]), null));
    }
    const xs = arrays(3);
    let first: DTask<string> | undefined;
    let reader: DTask<string> | undefined;
    const error = await spawnDatadeps(() => {
      first = ctx.spawn(k.addIntoOr, InOut(xs[0]), In(xs[1]), 'kaput');
      reader = ctx.spawn(k.addIntoOr, InOut(xs[2]), In(xs[0]), null);
    }).catch((e) => e);
    expect(DTaskFailedError.isInstance(error)).toBe(true);
    expect(String(error.cause?.message ?? error.message)).toContain('kaput');
    await expect(first!).rejects.toThrow(/kaput/);
    await expect(reader!).rejects.toThrow();
    expect([...xs[2]]).toEqual(new Array(8).fill(3)); // the reader never ran
  });

  it('awaiting a task inside the region still throws ConcurrencyViolationError when it ran here', async () => {
    const { ctx, k } = await rig();
    await untilHere(ctx, k);
    const [x, y] = arrays(2);
    let task: DTask<string> | undefined;
    let seen: unknown;
    await spawnDatadeps(async () => {
      task = ctx.spawn(k.addInto, InOut(x), In(y));
      try {
        await task;
      } catch (e) {
        seen = e;
      }
    });
    expect(ConcurrencyViolationError.isInstance(seen)).toBe(true);
    expect(await task!).toBe('thread:1:1');
  });

  it('a tiny function whose runs grow goes back to the worker threads within a few dozen runs', async () => {
    const { ctx, k } = await rig();
    const x = sharedF64(1);
    const ms = sharedF64(1); // how long each run sleeps
    /** One region of one `countAfter`: where it ran. */
    const run = async () => {
      let where: DTask<string> | undefined;
      await spawnDatadeps(() => {
        where = ctx.spawn(k.countAfter, InOut(x), In(ms));
      });
      return where!;
    };
    let runs = 0;
    let learned = false;
    for (; runs < 300 && !learned; runs++) learned = (await run()) === 'thread:1:1';
    expect(learned).toBe(true);
    // Timed here (about a microsecond each), its typical time falls far below the bar.
    for (let r = 0; r < 30; r++, runs++) await run();
    ms[0] = 2; // 100 times what runs here: each slow run timed here raises its typical time
    const where: string[] = [];
    for (let r = 0; r < 60; r++, runs++) where.push(await run());
    const last = where.lastIndexOf('thread:1:1');
    // Runs here are timed one in a few until a slow one is seen, then each: the few dozen runs
    // it took when every run was timed, and a few more at most; then it stays on the workers.
    expect(last).toBeGreaterThanOrEqual(0);
    expect(last).toBeLessThan(40);
    expect(where.slice(last + 1).every((w) => /^thread:1:[23]$/.test(w))).toBe(true);
    expect(x[0]).toBe(runs); // every run counted once, here or on a worker
  });

  it('the inline option is checked', async () => {
    await expect(spawnDatadeps(() => 1, { inline: 'yes' as never })).rejects.toThrow(
      /inline must be true or false; got yes/,
    );
    expect(await spawnDatadeps(() => 2, { inline: false })).toBe(2);
  });
});
