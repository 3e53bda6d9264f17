// The example processor package under core's processor conformance kit, and what it adds: a
// memory space of its own (arguments arrive as DeviceArrays, results stay there, a CPU task
// gets a host copy), opt-in placement, its scope key, and errors.
import {
  ArgumentError,
  Context,
  type DTask,
  DTaskFailedError,
  StorageError,
  scope,
  taskProcessor,
} from '@dtask/core';
import { processorConformance } from '@dtask/core/testing';
import { describe, expect, it } from 'vitest';
import { AccelProc, accelerator, DeviceArray } from './index.js';

processorConformance(
  'example-accelerator AccelProc',
  async () => {
    const plugin = accelerator();
    const context = new Context({ plugins: [plugin] });
    await context.ready();
    return { context, processor: plugin.devices[0] };
  },
  { describe, it },
);

async function withAccelerator<T>(
  options: Parameters<typeof accelerator>[0],
  body: (ctx: Context, plugin: ReturnType<typeof accelerator>) => Promise<T>,
): Promise<T> {
  const plugin = accelerator(options);
  const ctx = new Context({ plugins: [plugin] });
  try {
    await ctx.ready();
    return await body(ctx, plugin);
  } finally {
    await ctx.close();
  }
}

describe('accelerator()', () => {
  it('moves a host array in, keeps the kernel result on the device, copies it out for a CPU task', async () => {
    await withAccelerator({}, async (ctx, plugin) => {
      // The move rule turns the host array into a DeviceArray on its way in: say so to the types.
      const host = ctx.spawn(() => new Float64Array([1, 2, 3, 4])) as unknown as DTask<DeviceArray>;
      const doubled = ctx.spawn(
        { scope: scope({ accel: 0 }) },
        (a: DeviceArray) => {
          expect(a).toBeInstanceOf(DeviceArray);
          return a.map((v) => v * 2); // stays in device memory
        },
        host,
      );
      const again = ctx.spawn(
        { scope: scope({ accel: 0 }) },
        (a: DeviceArray) => {
          expect(a).toBeInstanceOf(DeviceArray); // same device: no transfer
          return a.map((v) => v + 1);
        },
        doubled,
      );
      const sum = ctx.spawn(
        (h: Float64Array) => {
          expect(h).toBeInstanceOf(Float64Array);
          return h.reduce((s, v) => s + v, 0);
        },
        again as unknown as DTask<Float64Array>,
      ); // and back into a host array on its way out
      expect(await sum).toBe(24);
      const [stats] = plugin.stats();
      expect(stats.transfers).toBe(2); // one host → device, one device → host
      expect(stats.peak).toBeGreaterThanOrEqual(3 * 32);
    });
  });

  it('runs only tasks that ask for it (not default-enabled); `any` picks any accelerator', async () => {
    await withAccelerator({ count: 2 }, async (ctx) => {
      const plain = await Promise.all(
        Array.from({ length: 20 }, () => ctx.spawn(() => taskProcessor().id)),
      );
      expect(new Set(plain)).toEqual(new Set(['thread:1:1']));
      expect(await ctx.spawn({ scope: scope({ accel: 1 }) }, () => taskProcessor().id)).toBe(
        'accel:1:1',
      );
      expect(await ctx.spawn({ scope: scope({ accel: 'any' }) }, () => taskProcessor().kind)).toBe(
        AccelProc.kind,
      );
    });
  });

  it('a result that does not fit in device memory fails the task with StorageError', async () => {
    await withAccelerator({ memory: 64 }, async (ctx) => {
      const big = ctx.spawn(() => new Float64Array(100)) as unknown as DTask<DeviceArray>;
      const t = ctx.spawn({ scope: scope({ accel: 0 }) }, (a: DeviceArray) => a.length, big);
      const error = await t.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(DTaskFailedError.isInstance(error)).toBe(true);
      expect(StorageError.isInstance((error as DTaskFailedError).cause)).toBe(true);
      expect(String((error as Error).message + (error as DTaskFailedError).cause)).toMatch(
        /do not fit/,
      );
      // The scheduler keeps serving.
      expect(await ctx.spawn(() => 1 + 1)).toBe(2);
    });
  });

  it('names what is wrong', async () => {
    expect(() => accelerator({ count: 0 })).toThrow(ArgumentError);
    expect(() => accelerator({ memory: -1 })).toThrow(/byte count/);
    expect(() => accelerator({ cores: 2 } as never)).toThrow(/unknown option 'cores'/);
    await withAccelerator({}, async () => {
      expect(() => scope({ accel: 3 })).toThrow(/device index from 0 to 0/);
    });
  });
});
