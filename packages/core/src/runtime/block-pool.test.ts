import { afterEach, describe, expect, it } from 'vitest';
import { ExactScope, type ThreadProc } from '../index.js';
import { spawnGroup } from '../registry/spawn-group.js';
import { collectUntil } from '../testing/collect-until.js';
import { type InMemoryRig, inMemoryRig } from '../testing/in-memory-rig.js';
import { localStoreConformance } from '../testing/local-store-conformance.js';
import { BLOCK_MEMORY, BlockPool, PooledStore } from './block-pool.js';

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * A kernel as `@dtask/array`'s fused one: its new block's memory from the runtime's pool where
 * it runs as the task itself, every element written (`n` float64s, all `v`).
 */
function makeBlock(n: number, v: number) {
  const memory = (globalThis as Record<symbol, unknown>)[Symbol.for('@dtask/core.blockMemory')] as
    | ((bytes: number, kernel: Function) => SharedArrayBuffer | undefined)
    | undefined;
  const data = new Float64Array(memory?.(8 * n, makeBlock) ?? new SharedArrayBuffer(8 * n));
  data.fill(v);
  return { data, shape: [n], strides: [1], offset: 0 };
}

/**
 * The first element of the memory the pool hands a kernel for `n` float64s, left as it was:
 * 0 for new memory, an earlier block's value for reused memory. A number back (inline).
 */
function firstOfMemory(n: number) {
  const memory = (globalThis as Record<symbol, unknown>)[Symbol.for('@dtask/core.blockMemory')] as
    | ((bytes: number, kernel: Function) => SharedArrayBuffer | undefined)
    | undefined;
  return new Float64Array(memory?.(8 * n, firstOfMemory) ?? new SharedArrayBuffer(8 * n))[0];
}

// Task functions travel as source and may use only globals: the test's own task that calls the
// kernel reaches it through one.
(globalThis as { makeBlock?: typeof makeBlock }).makeBlock = makeBlock;

const N = 512; // 4 KiB blocks: kept on the worker, not sent back inline

let current: InMemoryRig | undefined;
afterEach(async () => {
  await current?.ctx.close();
  current = undefined;
});

const on = (proc: ThreadProc) => ({ scope: new ExactScope(proc) });

/** Runs `makeBlock(N, v)` on `proc`, waits for it and drops it; resolves once it is released. */
async function madeAndReleased(rig: InMemoryRig, k: number, v: number): Promise<boolean> {
  const store = rig.runtimes[k].store;
  const before = store.size;
  await (async () => {
    await rig.ctx.spawn(on(rig.procs[k]), makeBlock, N, v).wait();
    expect(store.size).toBe(before + 1);
  })();
  return collectUntil(() => store.size === before);
}

// The runtime's default store keeps every rule of a store (ids beyond 32 bits among them).
localStoreConformance('the pooled store', () => new PooledStore(new BlockPool()), {
  describe,
  it,
});

if (!gc)
  console.warn('block pool tests skipped: they need node --expose-gc (vitest.config.ts passes it)');

describe.runIf(gc)('a worker reuses a released block only where no one else reached it', () => {
  it('a block no one read is reused once released, by a block of the same size only', async () => {
    const rig = (current = inMemoryRig(1));
    expect(await madeAndReleased(rig, 0, 7)).toBe(true);
    const proc = rig.procs[0];
    expect(await rig.ctx.spawn(on(proc), firstOfMemory, N / 2)).toBe(0);
    expect(await rig.ctx.spawn(on(proc), firstOfMemory, N)).toBe(7);
    // Taken from the pool once: the next is new memory.
    expect(await rig.ctx.spawn(on(proc), firstOfMemory, N)).toBe(0);
  });

  it('a block fetched home is never reused: what was fetched keeps its values', async () => {
    const rig = (current = inMemoryRig(1));
    const proc = rig.procs[0];
    const store = rig.runtimes[0].store;
    const got = await (async () => {
      const t = rig.ctx.spawn(on(proc), makeBlock, N, 5);
      return (await t) as { data: Float64Array };
    })();
    expect(got.data.buffer).toBeInstanceOf(SharedArrayBuffer); // shares the worker's memory
    expect(await collectUntil(() => store.size === 0)).toBe(true);
    expect(await rig.ctx.spawn(on(proc), firstOfMemory, N)).toBe(0);
    for (let i = 0; i < 4; i++) await rig.ctx.spawn(on(proc), makeBlock, N, 9).wait();
    expect(got.data.every((x) => x === 5)).toBe(true);
  });

  it('a block a task here took as input is never reused: the task may keep it', async () => {
    // (A reader sent ahead, waiting for it, rules it out at once: `made` is not told of it.)
    const rig = (current = inMemoryRig(1));
    const proc = rig.procs[0];
    const store = rig.runtimes[0].store;
    const keepsInput = (b: { data: Float64Array }) => {
      (globalThis as { keptInput?: unknown }).keptInput = b;
      return b.data.length;
    };
    await (async () => {
      const a = rig.ctx.spawn(on(proc), makeBlock, N, 3);
      await a.wait(); // finished before its reader is sent: no task here waited for it
      expect(await rig.ctx.spawn(on(proc), keepsInput, a)).toBe(N);
    })();
    expect(await collectUntil(() => store.size === 0)).toBe(true);
    expect(await rig.ctx.spawn(on(proc), firstOfMemory, N)).toBe(0);
    for (let i = 0; i < 4; i++) await rig.ctx.spawn(on(proc), makeBlock, N, 9).wait();
    const kept = (globalThis as { keptInput?: { data: Float64Array } }).keptInput;
    expect(kept?.data.every((x) => x === 3)).toBe(true);
    delete (globalThis as { keptInput?: unknown }).keptInput;
  });

  it('a block sent to another worker is never reused', async () => {
    const rig = (current = inMemoryRig(2));
    const [p0, p1] = rig.procs;
    const store = rig.runtimes[0].store;
    const sum = (b: { data: Float64Array }) => b.data.reduce((s, x) => s + x, 0);
    await (async () => {
      const a = rig.ctx.spawn(on(p0), makeBlock, N, 2);
      expect(await rig.ctx.spawn(on(p1), sum, a)).toBe(2 * N);
    })();
    expect(await collectUntil(() => store.size === 0)).toBe(true);
    expect(await rig.ctx.spawn(on(p0), firstOfMemory, N)).toBe(0);
  });

  it("a block a task's function made by calling the kernel is never reused (the function may keep it)", async () => {
    const rig = (current = inMemoryRig(1));
    const proc = rig.procs[0];
    const store = rig.runtimes[0].store;
    const keeps = (n: number) => {
      const b = (globalThis as unknown as { makeBlock: typeof makeBlock }).makeBlock(n, 4);
      (globalThis as { keptBlock?: unknown }).keptBlock = b;
      return b;
    };
    await (async () => {
      await rig.ctx.spawn(on(proc), keeps, N).wait();
    })();
    expect(await collectUntil(() => store.size === 0)).toBe(true);
    expect(await rig.ctx.spawn(on(proc), firstOfMemory, N)).toBe(0);
    const kept = (globalThis as { keptBlock?: { data: Float64Array } }).keptBlock;
    expect(kept?.data.every((x) => x === 4)).toBe(true);
    delete (globalThis as { keptBlock?: unknown }).keptBlock;
  });

  it("a group task's outputs made by the kernels its runner called are reused once released, each once", async () => {
    const rig = (current = inMemoryRig(1));
    const proc = rig.procs[0];
    const store = rig.runtimes[0].store;
    const runner = (base: number, n: number, twice: boolean) => {
      const make = (globalThis as unknown as { makeBlock: typeof makeBlock }).makeBlock;
      const a = make(n, 6);
      const values = twice ? [a, a] : [a, make(n, 8)];
      return { [Symbol.for('dtask.groupParts')]: true, base, values };
    };
    for (const twice of [false, true]) {
      await (async () => {
        const handles = spawnGroup(rig.ctx, on(proc), runner, 2, [N, twice]);
        await Promise.all(handles.map((h) => h.wait()));
        expect(store.size).toBe(2);
      })();
      expect(await collectUntil(() => store.size === 0)).toBe(true);
      const reused = [];
      for (let i = 0; i < 3; i++) reused.push(await rig.ctx.spawn(on(proc), firstOfMemory, N));
      // Last in, first out; an output given twice returns its memory once.
      expect(reused).toEqual(twice ? [6, 0, 0] : [8, 6, 0]);
    }
  });

  it('a block read from the store and then released is not reused (PooledStore)', () => {
    const pool = new BlockPool();
    const store = new PooledStore(pool);
    const run = (key: number) => {
      const before = pool.begin(makeBlock);
      const value = makeBlock(N, key);
      const handed = pool.end(before);
      store.set(key, value);
      pool.made(key, value, handed);
      return value;
    };
    const first = run(1);
    run(2);
    expect(store.get(1)).toBe(first); // read: rules result 1 out
    store.delete(1);
    store.delete(2);
    const hook = (globalThis as Record<symbol, unknown>)[BLOCK_MEMORY] as (
      bytes: number,
    ) => SharedArrayBuffer | undefined;
    expect(hook(8 * N)).toBeUndefined(); // no runtime task running: the kernel allocates
    const before = pool.begin(firstOfMemory);
    const a = new Float64Array(pool.take(8 * N, firstOfMemory))[0];
    const b = new Float64Array(pool.take(8 * N, firstOfMemory))[0];
    pool.end(before);
    expect([a, b]).toEqual([2, 0]);
    expect(first.data.every((x) => x === 1)).toBe(true);
    store.clear();
  });

  it('a task made again under the same key forgets its earlier memory unless the new result qualifies', () => {
    const pool = new BlockPool();
    const store = new PooledStore(pool);
    const before = pool.begin(makeBlock);
    const first = makeBlock(N, 1);
    pool.made(1, first, pool.end(before));
    // Made again, its result a view of the first block's memory that no pool handed out: the
    // first memory must not return to the pool when this result is released.
    const again = { data: first.data.subarray(0), shape: [N], strides: [1], offset: 0 };
    store.set(1, again);
    pool.made(1, again, undefined);
    store.delete(1);
    const running = pool.begin(firstOfMemory);
    const memory = new Float64Array(pool.take(8 * N, firstOfMemory));
    pool.end(running);
    expect(memory[0]).toBe(0); // new memory, not the first block's
    memory.fill(7);
    expect(again.data.every((x) => x === 1)).toBe(true);
    store.clear();
  });
});
