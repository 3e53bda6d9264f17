// The example processor package under core's processor conformance kit, and what it adds: a
// memory space of its own in a thread of its own (arguments arrive as DeviceArrays, results
// stay there, a CPU task gets a host copy), opt-in placement, its scope key, and errors. Task
// functions run in the accelerator's thread, so they return what they saw and the test
// asserts on that. Needs the built dist (the threads run dist/worker-entry.js).
import {
  ArgumentError,
  Context,
  type DTask,
  DTaskFailedError,
  everywhere,
  StorageError,
  scope,
} from '@dtask/core';
import { processorConformance } from '@dtask/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { AccelProc, accelerator, type DeviceArray } from './index.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc)
  console.warn('freeing test skipped: it needs node --expose-gc (vitest.config.ts passes it)');

const PROBE_URL = new URL('./__fixtures__/conformance-probe.mjs', import.meta.url);

/** The API as functions that travel to the accelerator's thread as source text see it. */
type WithApi = { dtask: { taskProcessor(): { id: string; kind: string } } };

processorConformance(
  'example-accelerator AccelProc',
  async () => {
    const plugin = accelerator();
    const context = new Context({ plugins: [plugin] });
    await context.ready();
    // Loaded in the accelerator's thread too: the probe every conformance task runs.
    await everywhere(PROBE_URL, context);
    return { context, processor: plugin.devices[0] };
  },
  // One context serves all the suite's tests (starting the accelerator's thread each time was
  // most of their CPU).
  { describe, it, afterAll },
  { share: true },
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
      const onDevice = { scope: scope({ accel: 0 }) };
      const doubled = ctx.spawn(onDevice, (a: DeviceArray) => a.map((v) => v * 2), host);
      const again = ctx.spawn(onDevice, (a: DeviceArray) => a.map((v) => v + 1), doubled);
      // And back into a host array on its way out.
      const sum = ctx.spawn(
        (h: Float64Array) => [h.constructor.name, h.reduce((s, v) => s + v, 0)],
        again as unknown as DTask<Float64Array>,
      );
      expect(await sum).toEqual(['Float64Array', 24]);
      const [stats] = plugin.stats();
      expect(stats.id).toBe('accel:1:0');
      expect(stats.transfers).toBe(2); // one host → device, one device → host
      // The copy moved in is freed when the first kernel's task ends: two results at most.
      expect(stats.peak).toBe(2 * 32);
      expect(stats.inUse).toBeGreaterThan(0);
      // What a task on the device receives: a host array moved in, and a result kept there
      // passed as it is (no transfer for it: one more, for the host array).
      const kinds = ctx.spawn(
        onDevice,
        (a: DeviceArray, b: DeviceArray) => [a.constructor.name, b.constructor.name, b.length],
        host,
        doubled,
      );
      expect(await kinds).toEqual(['DeviceArray', 'DeviceArray', 4]);
      expect(plugin.stats()[0].transfers).toBe(3);
    });
  });

  it('gives device memory back as tasks end, not when the garbage collector runs', async () => {
    // 1 MiB moved in per task on an 8 MiB device: the copies and the kernels' outputs that a
    // task does not return are freed when it ends. Freed only by the garbage collector, the
    // device was full after four tasks and the rest failed with DTASK_STORAGE_FULL.
    await withAccelerator({ memory: 8 * 1024 * 1024 }, async (ctx, plugin) => {
      const onDevice = { scope: scope({ accel: 0 }) };
      const kinds: ((a: DeviceArray) => unknown)[] = [
        (a: DeviceArray) => a.map((v) => v * 2).length,
        async (a: DeviceArray) => {
          await new Promise((r) => setTimeout(r, 1));
          return a.length;
        },
        // A plain function returning a promise uses its input until the promise settles.
        (a: DeviceArray) => new Promise((r) => setTimeout(() => r(a.view()[0]), 1)),
      ];
      for (let i = 0; i < 60; i++) {
        const host = ctx.spawn(() => new Float64Array(131_072).fill(1));
        const value = await ctx.spawn(
          onDevice,
          kinds[i % 3]!,
          host as unknown as DTask<DeviceArray>,
        );
        expect(value).toBe(i % 3 === 2 ? 1 : 131_072);
      }
      expect(plugin.stats()[0].inUse).toBe(0);
    });
  });

  it.runIf(gc)(
    'a result kept on the device holds its bytes until no handle needs it, then frees them at once',
    async () => {
      await withAccelerator({}, async (ctx, plugin) => {
        await (async () => {
          const kept = ctx.spawn(
            { scope: scope({ accel: 0 }) },
            (a: DeviceArray) => a.map((v) => v + 1),
            new Float64Array(4) as unknown as DeviceArray,
          );
          expect([...((await kept) as unknown as Float64Array)]).toEqual([1, 1, 1, 1]);
          expect(plugin.stats()[0].inUse).toBe(32);
        })();
        // The scheduler lets the result go once its task is collected; the store frees it
        // then, without waiting for the accelerator thread's garbage collector.
        for (let i = 0; i < 200 && plugin.stats()[0].inUse > 0; i++) {
          gc?.();
          await new Promise((r) => setTimeout(r, 20));
        }
        expect(plugin.stats()[0].inUse).toBe(0);
      });
    },
  );

  it('an array moving between two accelerators goes through host memory into the other', async () => {
    await withAccelerator({ count: 2 }, async (ctx, plugin) => {
      const first = ctx.spawn(
        { scope: scope({ accel: 0 }) },
        (a: DeviceArray) => a.map((v) => v * 10),
        new Float64Array([1, 2]) as unknown as DeviceArray,
      );
      const second = ctx.spawn(
        { scope: scope({ accel: 1 }) },
        (a: DeviceArray) => [a.constructor.name, ...a.toArray()],
        first,
      );
      expect(await second).toEqual(['DeviceArray', 10, 20]);
      // Device 0: in, then out to the host; device 1: in.
      expect(plugin.stats().map((s) => [s.id, s.transfers])).toEqual([
        ['accel:1:0', 2],
        ['accel:1:1', 1],
      ]);
    });
  });

  it('device arrays in an array result leave as host arrays', async () => {
    await withAccelerator({}, async (ctx, plugin) => {
      const pair = ctx.spawn(
        { scope: scope({ accel: 0 }) },
        (a: DeviceArray) => [a, a.map((v) => -v), 'two'],
        new Float64Array([1, 2]) as unknown as DeviceArray,
      );
      const [first, second, label] = (await pair) as unknown as [
        Float64Array,
        Float64Array,
        string,
      ];
      expect([first.constructor.name, [...first], [...second], label]).toEqual([
        'Float64Array',
        [1, 2],
        [-1, -2],
        'two',
      ]);
      expect(plugin.stats()[0].transfers).toBe(3); // one in, two out
    });
  });

  it('runs only tasks that ask for it (not default-enabled); `any` picks any accelerator', async () => {
    await withAccelerator({ count: 2 }, async (ctx, plugin) => {
      expect(plugin.devices.map((d) => d.id)).toEqual(['accel:1:0', 'accel:1:1']);
      // A function with no closure could run anywhere: the accelerators say no to it.
      const id = () => (globalThis as unknown as WithApi).dtask.taskProcessor().id;
      const plain = await Promise.all(Array.from({ length: 20 }, () => ctx.spawn(id)));
      expect(new Set(plain)).toEqual(new Set(['thread:1:1']));
      expect(await ctx.spawn({ scope: scope({ accel: 1 }) }, id)).toBe('accel:1:1');
      const kind = () => (globalThis as unknown as WithApi).dtask.taskProcessor().kind;
      expect(await ctx.spawn({ scope: scope({ accel: 'any' }) }, kind)).toBe(AccelProc.kind);
    });
  });

  it('a value that does not fit in device memory fails the task with StorageError', async () => {
    await withAccelerator({ memory: 64 }, async (ctx, plugin) => {
      const big = ctx.spawn(() => new Float64Array(100)) as unknown as DTask<DeviceArray>;
      const t = ctx.spawn({ scope: scope({ accel: 0 }) }, (a: DeviceArray) => a.length, big);
      const error = await t.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(DTaskFailedError.isInstance(error)).toBe(true);
      const cause = (error as DTaskFailedError).cause;
      expect(StorageError.isInstance(cause)).toBe(true);
      expect((cause as StorageError).code).toBe('DTASK_STORAGE_FULL');
      expect(String(cause)).toMatch(/accel:1:0: 800 bytes do not fit \(0 of 64 in use\)/);
      // The scheduler keeps serving, the device too.
      expect(await ctx.spawn(() => 1 + 1)).toBe(2);
      const small = ctx.spawn(
        { scope: scope({ accel: 0 }) },
        (a: DeviceArray) => a.length,
        new Float64Array(8) as unknown as DeviceArray,
      );
      expect(await small).toBe(8);
      expect(plugin.stats()[0].peak).toBe(64);
    });
  });

  it('a kernel result that does not fit fails its task with StorageError', async () => {
    await withAccelerator({ memory: 48 }, async (ctx) => {
      const t = ctx.spawn(
        { scope: scope({ accel: 0 }) },
        (a: DeviceArray) => a.map((v) => v + 1),
        new Float64Array(4) as unknown as DeviceArray,
      );
      const cause = await t.then(
        () => undefined,
        (e: unknown) => (e as DTaskFailedError).cause,
      );
      expect(StorageError.isInstance(cause)).toBe(true);
      expect(String(cause)).toMatch(/32 bytes do not fit \(32 of 48 in use\)/);
    });
  });

  it('names what is wrong', async () => {
    expect(() => accelerator({ count: 0 })).toThrow(ArgumentError);
    expect(() => accelerator({ count: 129 })).toThrow(/integer from 1 to 128; got 129/);
    expect(() => accelerator({ memory: -1 })).toThrow(/byte count/);
    expect(() => accelerator({ cores: 2 } as never)).toThrow(/unknown option 'cores'/);
    await withAccelerator({}, async () => {
      expect(() => scope({ accel: 3 })).toThrow(/device index from 0 to 0/);
    });
  });
});
