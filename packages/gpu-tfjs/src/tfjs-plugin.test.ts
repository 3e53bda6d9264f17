import { ArgumentError, disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { gpuRig } from './__fixtures__/rig.js';
import { tfjs } from './index.js';

// Logging is the process's: off again, and its events fetched, for the next file (files share
// processes).
afterEach(() => {
  disableLogging();
  fetchLogs();
});

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc)
  console.warn('freeing test skipped: it needs node --expose-gc (vitest.config.ts passes it)');

describe('tfjs plugin', () => {
  it('starts a TfjsProc on the chosen backend and says why better ones were not taken', async () => {
    enableLogging();
    fetchLogs();
    const { ctx, plugin } = await gpuRig();
    expect(plugin.backend).toBe('wasm');
    expect(plugin.processors.map((p) => p.id)).toEqual(['tfjs:1:0']);
    expect(plugin.describe()).toMatch(/tfjs backend: wasm .*emulated on the CPU, not a GPU/);
    const backendLog = fetchLogs().find((e) => e.kind === 'backend');
    expect(backendLog?.detail).toBe(plugin.describe());
    const where = await ctx.spawn({ scope: scope({ gpu: 0 }) }, () => [
      dtask.taskProcessor().id,
      (globalThis as any).tf.getBackend(),
    ]);
    expect(where).toEqual(['tfjs:1:0', 'wasm']);
  });

  it('registers the gpu and tfjs scope keys, rejecting bad device indices', async () => {
    await gpuRig();
    expect(String(scope({ gpu: 0 }))).toMatch(/tfjs:1:0/);
    expect(() => scope({ gpu: -1 })).toThrow(ArgumentError);
    // @ts-expect-error a device index or 'any'
    expect(() => scope({ tfjs: 'first' })).toThrow(/device index ≥ 0 or 'any'/);
  });

  it('validates its options', () => {
    expect(() => tfjs({ backend: 'metal' as never })).toThrow(ArgumentError);
    expect(() => tfjs({ memoryLimit: -1 })).toThrow(/memoryLimit/);
    expect(() => tfjs({ devices: 2 } as never)).toThrow(/unknown option 'devices'/);
  });

  it('typed arrays arrive as tensors; a tensor result stays there and is fetched as a typed array copy', async () => {
    const { ctx, plugin } = await gpuRig();
    const on = { scope: scope({ tfjs: 0 }) };
    const x = new Float32Array(4096).fill(2);
    const t = ctx.spawn(on, (a: any) => a.mul(3), x);
    const kinds = ctx.spawn(on, (a: any) => [typeof a.dataSync, a.shape], t);
    expect(await kinds).toEqual(['function', [4096]]);
    const held = plugin.stats();
    expect(held.bytesInStore).toBe(4096 * 4); // t's result, kept on the device as a tensor
    expect(held.bytesOnDevice).toBeGreaterThanOrEqual(4096 * 4);
    const back = (await t) as Float32Array;
    expect(back).toBeInstanceOf(Float32Array);
    expect(back[4095]).toBe(6);
    const s = plugin.stats();
    expect(s.toTensor).toBeGreaterThanOrEqual(1);
    expect(s.toTypedArray).toBeGreaterThanOrEqual(1);
    // The fetch copied it: the tensor stays on the device for dependents while `t` lives.
    expect(s.bytesInStore).toBe(4096 * 4);
    expect(s.tensors).toBeGreaterThanOrEqual(1);
  });

  it.runIf(gc)(
    'a fetched tensor result is freed on the device once no handle needs it',
    async () => {
      const { ctx, plugin } = await gpuRig();
      await (async () => {
        const t = ctx.spawn(
          { scope: scope({ tfjs: 0 }) },
          (a: any) => a.add(1),
          new Float32Array(1024),
        );
        expect(((await t) as Float32Array)[0]).toBe(1);
        expect(plugin.stats().bytesInStore).toBe(1024 * 4);
      })();
      for (let i = 0; i < 200 && plugin.stats().bytesInStore > 0; i++) {
        gc?.();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(plugin.stats().bytesInStore).toBe(0);
    },
  );
});

declare const dtask: typeof import('@dtask/core');
