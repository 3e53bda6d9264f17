// Spilling by conversion: past `memoryLimit`, the least recently used result tensors become
// host typed arrays; tasks that use them again get tensors back, and the result is right.
import { disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { lmdb } from '@dtask/lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { gpuRig } from './__fixtures__/rig.js';
import { gpu, gpuOrCpu } from './index.js';

// Logging is the process's: off again, and its events fetched, for the next file (files share
// processes).
afterEach(() => {
  disableLogging();
  fetchLogs();
});

declare const dtask: typeof import('@dtask/core'); // each thread's global

const N = 16_384; // 64 KiB of float32 per tensor

/**
 * CPU threads for the tests whose tasks run on the TfjsProc (and at most one on thread 2): one
 * instead of the rig's two (each about 0.1 s of CPU to start).
 */
const ONE_THREAD = 1;

const filled = gpu((n: number, v: number) => (globalThis as any).tf.fill([n / 128, 128], v));
const sumAll = gpu((...ts: any[]) => {
  const tf = (globalThis as any).tf;
  return [tf.addN(ts).sum().dataSync()[0], ts.map((t: any) => t.shape)];
});

describe.each(['wasm', 'cpu'] as const)('spilling by conversion on %s', (backend) => {
  it('keeps at most memoryLimit of tensors; spilled ones come back on use, and the sum is right', async () => {
    const { ctx, plugin } = await gpuRig({ backend, memoryLimit: 3 * 4 * N }, ONE_THREAD);
    enableLogging();
    fetchLogs();
    const parts = Array.from({ length: 6 }, (_, i) => ctx.spawn(filled, N, i + 1));
    await Promise.all(parts.map((p) => p.wait()));
    const held = plugin.stats();
    expect(held.bytesInStore).toBeLessThanOrEqual(3 * 4 * N);
    expect(held.spills).toBe(3);
    expect(held.bytesSpilled).toBe(3 * 4 * N);
    const [total, shapes] = (await ctx.spawn(sumAll, ...parts)) as [number, number[][]];
    expect(total).toBe(N * (1 + 2 + 3 + 4 + 5 + 6));
    expect(shapes).toEqual(Array(6).fill([N / 128, 128])); // spilled ones keep their shape
    // Log events come over the thread's admin channel, which may arrive after the result.
    const logs = fetchLogs().filter((e) => e.processor === 'tfjs:1:0');
    for (let i = 0; i < 100 && logs.filter((e) => e.kind === 'unspill').length < 3; i++) {
      await new Promise((r) => setTimeout(r, 20));
      logs.push(...fetchLogs().filter((e) => e.processor === 'tfjs:1:0'));
    }
    const spills = logs.filter((e) => e.kind === 'spill');
    const back = logs.filter((e) => e.kind === 'unspill');
    expect(spills.length).toBe(3);
    expect(spills[0].detail).toMatch(/tensor \[128,128\] → typed array \(past memoryLimit\)/);
    expect(back.length).toBe(3);
    expect(back.every((e) => e.bytes === 4 * N)).toBe(true);
    // A spilled result fetched to the main thread is its data, without a round trip to a tensor.
    const first = (await parts[0]) as Float32Array;
    expect(first).toBeInstanceOf(Float32Array);
    expect(first.length).toBe(N);
    expect(first[N - 1]).toBe(1);
  });

  it('a chain longer than the limit allows computes the right result', async () => {
    const { ctx, plugin } = await gpuRig({ backend, memoryLimit: 2 * 4 * N }, ONE_THREAD);
    const on = { scope: scope({ gpu: 0 }) };
    let x = ctx.spawn(filled, N, 1);
    const kept = [x];
    for (let i = 0; i < 8; i++) {
      x = ctx.spawn(on, (t: any) => t.add(1), x);
      kept.push(x);
    }
    const sums = await Promise.all(
      kept.map((t) => ctx.spawn(on, (a: any) => a.sum().dataSync()[0], t)),
    );
    expect(sums).toEqual(kept.map((_, i) => N * (i + 1)));
    expect(plugin.stats().spills).toBeGreaterThan(0);
  });

  it('dependents that may run on a CPU thread run there once their input was spilled; the others stay on the GPU', async () => {
    const n = 1 << 18; // 1 MiB of float32: moving a tensor off the device costs more than running beside it
    const { ctx, plugin } = await gpuRig({ backend, memoryLimit: 2 * 4 * n });
    enableLogging();
    fetchLogs();
    const big = gpu((k: number, v: number) => (globalThis as any).tf.fill([k], v));
    const parts = Array.from({ length: 4 }, (_, i) => ctx.spawn(big, n, i + 1));
    await Promise.all(parts.map((p) => p.wait()));
    expect(plugin.stats().spills).toBe(2); // the two least recently made are host arrays now
    // A task written for either side: sums its input, says where it ran and what it got.
    const total = gpuOrCpu((x: any) => {
      const sum =
        typeof x.dataSync === 'function'
          ? x.sum().dataSync()[0]
          : x.reduce((a: number, b: number) => a + b, 0);
      return [dtask.taskProcessor().id, sum];
    });
    const ran = (await Promise.all(parts.map((p) => ctx.spawn({ name: 'total' }, total, p)))) as [
      string,
      number,
    ][];
    expect(ran.map(([, sum]) => sum)).toEqual([1, 2, 3, 4].map((v) => v * n));
    expect(ran[0][0]).toMatch(/^thread:1:/);
    expect(ran[1][0]).toMatch(/^thread:1:/);
    expect(ran.slice(2).map(([where]) => where)).toEqual(['tfjs:1:0', 'tfjs:1:0']);
    // The logs show the conversions and where each dependent ran.
    const logs = fetchLogs();
    expect(logs.filter((e) => e.kind === 'spill' && e.processor === 'tfjs:1:0')).toHaveLength(2);
    // And the device's memory after each task there (tf.memory(), as in stats()).
    const device = logs.filter((e) => e.kind === 'device-memory' && e.processor === 'tfjs:1:0');
    expect(device.length).toBeGreaterThan(0);
    expect(device.every((e) => typeof e.bytes === 'number' && e.bytes > 0)).toBe(true);
    const runs = logs.filter((e) => e.kind === 'start' && e.name === 'total');
    expect(runs.map((e) => e.processor).sort()).toEqual(ran.map(([where]) => where).sort());
  });

  it('with @dtask/lmdb in the context, spilled tensors move on to disk past its memory limit and come back right', async () => {
    // Host memory for 2 tensors in the whole process; 8 tensors, 2 kept on the device.
    const disk = lmdb({ memoryLimit: 2 * 4 * N + 1024 });
    const { ctx, plugin } = await gpuRig({ backend, memoryLimit: 2 * 4 * N }, ONE_THREAD, [disk]);
    enableLogging();
    fetchLogs();
    const parts = Array.from({ length: 8 }, (_, i) => ctx.spawn(filled, N, i + 1));
    await Promise.all(parts.map((p) => p.wait()));
    expect(plugin.stats().spills).toBe(6); // six became host arrays...
    // ...and the lmdb store of the TfjsProc's thread wrote those past its limit to disk (in the
    // background; its counters are the process's, shared by its threads).
    for (let i = 0; i < 200 && disk.stats().spills < 4; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(disk.stats().spills).toBeGreaterThanOrEqual(4);
    expect(disk.stats().bytesOnDisk).toBeGreaterThanOrEqual(4 * 4 * N);
    // Every part comes back right: the device reads spilled ones back from disk.
    const [total] = (await ctx.spawn(sumAll, ...parts)) as [number];
    expect(total).toBe(N * (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8));
    expect(disk.stats().unspills).toBeGreaterThanOrEqual(4);
    // A CPU thread gets a spilled part's data straight from the device's store.
    const first = await ctx.spawn(
      { scope: scope({ thread: 2 }) },
      (a: Float32Array) => a[7],
      parts[0],
    );
    expect(first).toBe(1);
    // The logs show both steps, by the TfjsProc: tensor → typed array, then typed array → LMDB.
    const logs = fetchLogs().filter((e) => e.processor === 'tfjs:1:0');
    for (let i = 0; i < 100 && !logs.some((e) => e.kind === 'unspill' && e.bytes === 4 * N); i++) {
      await new Promise((r) => setTimeout(r, 20));
      logs.push(...fetchLogs().filter((e) => e.processor === 'tfjs:1:0'));
    }
    const spills = logs.filter((e) => e.kind === 'spill');
    const conversions = spills.filter((e) => e.detail?.includes('→ typed array'));
    expect(conversions).toHaveLength(6);
    // And the LMDB store's writes of those typed arrays, each with its bytes.
    const toDisk = spills.filter((e) => e.to === 'lmdb');
    expect(toDisk.length).toBeGreaterThanOrEqual(4);
    expect(toDisk.every((e) => e.bytes === 4 * N)).toBe(true);
  });
});
