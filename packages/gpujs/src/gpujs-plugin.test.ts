// The plugin's report (mode chosen, why better ones were not taken, never an emulated device
// called a GPU) and its typed errors for misuse.
import {
  Context,
  DTaskFailedError,
  disableLogging,
  enableLogging,
  fetchLogs,
  scope,
} from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterEach, describe, expect, it } from 'vitest';
import { gpujsRig } from './__fixtures__/rig.js';
import { xDisplay } from './__fixtures__/x-display.js';
import { GpujsKernelError, gpujs, kernel } from './index.js';

// Logging is the process's: off again, and its events fetched, for the next file (files share
// processes).
afterEach(() => {
  disableLogging();
  fetchLogs();
});

describe('gpujs() options and report', () => {
  it('rejects a bad mode and unknown options with ArgumentError', () => {
    expect(() => gpujs({ mode: 'cuda' as never })).toThrow(
      expect.objectContaining({
        code: 'DTASK_ARGUMENT',
        message: expect.stringContaining('headlessgl'),
      }),
    );
    expect(() => gpujs({ modes: 'cpu' } as never)).toThrow(
      expect.objectContaining({
        code: 'DTASK_ARGUMENT',
        message: expect.stringContaining("unknown option 'modes'"),
      }),
    );
  });

  it('describe() names the mode and, left to pick, why each better mode was not taken', async () => {
    const noX = await xDisplay(); // an X server, so that headlessgl can be taken
    const { plugin } = await gpujsRig({ mode: undefined });
    const text = plugin.describe();
    expect(text).toMatch(/^gpujs mode: (headlessgl|webgpu|cpu)/);
    if (plugin.mode === 'cpu') {
      expect(text).toContain('not taken: headlessgl');
      // An npm user has no scripts/ of this repository: say what to install instead.
      expect(text).not.toMatch(/scripts\/|test-deps/);
      if (/does not load/.test(text)) {
        expect(text).toMatch(/libxi-dev libglu1-mesa-dev libglew-dev pkg-config/);
        expect(text).toContain('npm_config_nodedir=/usr npm rebuild gl');
      }
      expect(text).toContain('not taken: webgpu');
      expect(text).toContain('(on the CPU, not a GPU)');
    }
    if (noX) console.warn(`@dtask/gpujs: auto mode tested without an X server: ${noX}`);
    if (plugin.mode === 'headlessgl')
      expect(text).toMatch(/^gpujs mode: headlessgl on ANGLE over /);
    // Mesa's llvmpipe (all there is here) is never called a GPU.
    if (/llvmpipe|software/.test(text)) {
      expect(plugin.report?.gpu).toBe(false);
      expect(text).toContain('emulated on the CPU, not a GPU');
    }
  });

  it('logs the mode chosen as a backend event when the context starts', async () => {
    enableLogging();
    fetchLogs();
    const { plugin } = await gpujsRig({ mode: 'cpu' });
    const logged = fetchLogs().filter((e) => e.kind === 'backend' && e.processor === 'gpujs:1:0');
    expect(logged.map((e) => e.detail)).toEqual([plugin.describe()]);
  });

  it('rejects a bad scope({ gpujs }) with ArgumentError', async () => {
    const { ctx } = await gpujsRig({ mode: 'cpu' });
    expect(() => ctx.spawn({ scope: scope({ gpujs: -1 }) }, () => 1)).toThrow(
      expect.objectContaining({
        code: 'DTASK_ARGUMENT',
        message: expect.stringContaining('scope({ gpujs })'),
      }),
    );
  });

  it('a mode that cannot start here makes ready() reject with UnsupportedError saying why', async () => {
    const ctx = new Context({ plugins: [threads({ count: 1 }), gpujs({ mode: 'webgpu' })] });
    try {
      await ctx.ready();
      console.warn('@dtask/gpujs: webgpu starts here; the cannot-start case is not tested');
    } catch (error) {
      expect(error).toMatchObject({ code: 'DTASK_UNSUPPORTED' });
      expect(String((error as Error).message)).toContain('webgpu:');
    } finally {
      await ctx.close();
    }
  });
});

describe('kernel() misuse', () => {
  it('rejects non-functions, arrow functions and bad settings with ArgumentError', () => {
    expect(() => kernel(42 as never, { output: [1] })).toThrow(
      expect.objectContaining({ code: 'DTASK_ARGUMENT' }),
    );
    expect(() => kernel((a: number[]) => a[0], { output: [1] })).toThrow(/arrow function/);
    expect(() => kernel('function () { return 1; }', { output: [0] })).toThrow(/positive integers/);
    expect(() =>
      kernel('function () { return 1; }', { output: [4], pipline: true } as never),
    ).toThrow(/unknown setting 'pipline'/);
  });

  it('a kernel that does not compile fails its task with GpujsKernelError', async () => {
    const { ctx } = await gpujsRig({ mode: 'cpu' });
    const bad = kernel('function (a) { return a[this.thread.x] +* 1; }', { output: [4] });
    const err = await ctx.spawn(bad, new Float32Array(4)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(DTaskFailedError.isInstance(err)).toBe(true);
    expect((err as Error).cause).toMatchObject({
      name: 'GpujsKernelError',
      code: GpujsKernelError.code,
    });
    // Rebuilt as itself on this side of the processor's thread, not a plain Error.
    expect((err as Error).cause).toBeInstanceOf(GpujsKernelError);
    expect(String((err as Error).message)).toContain('does not compile in gpu.js cpu mode');
    // The processor still works afterwards.
    const ok = kernel('function (a) { return a[this.thread.x] + 1; }', { output: [2] });
    expect(Array.from((await ctx.spawn(ok, new Float32Array([1, 2]))) as Float32Array)).toEqual([
      2, 3,
    ]);
    expect(await ctx.spawn({ scope: scope({ gpujs: 0 }) }, () => 7)).toBe(7);
  });
});
