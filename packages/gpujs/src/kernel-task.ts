import { ArgumentError } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { checkSettings, type KernelSettings } from './kernel-settings.js';
import { markGpujs } from './markers.js';

/**
 * A task function that runs one gpu.js kernel on a GpujsProc (made by `kernel`). Typed by what
 * its result is wherever it is fetched or used off the processor: a `Float32Array` (a pipeline
 * texture is one only on its own GpujsProc).
 */
export type KernelTask = ((...args: any[]) => Float32Array) & { readonly kernelSource: string };

/**
 * Makes a task function that runs the gpu.js kernel `fn` with `settings` on a GpujsProc:
 * `ctx.spawn(k, a, b)`. The kernel is compiled once per processor (cached by its source and
 * settings) the first time a task runs it there. Arguments are typed arrays, numbers or (in
 * pipeline mode) textures left by an earlier kernel on the same processor; the result is a
 * `Float32Array` (row-major for 2-D and 3-D outputs) or, with `pipeline: true`, a texture kept
 * on the device. Such tasks run only on a GpujsProc. Throws `ArgumentError` for a bad `fn` or
 * bad settings; a kernel that does not compile fails its task with `GpujsKernelError`.
 */
export function kernel(fn: Function | string, settings: KernelSettings): KernelTask {
  if (typeof fn !== 'function' && typeof fn !== 'string') {
    throw new ArgumentError(
      `kernel(fn, settings): fn must be a kernel function (or its source text); got ${describeValue(fn)}`,
    );
  }
  const source = typeof fn === 'string' ? fn : fn.toString();
  if (/^\s*(async\s*)?(\([^)]*\)|[\w$]+)\s*=>/.test(source)) {
    // gpu.js reads `this.thread`: an arrow function has no `this` of its own.
    throw new ArgumentError(
      'kernel(fn, settings): fn is an arrow function; gpu.js kernels read this.thread, so write it as function (a, b) { ... }',
    );
  }
  const s = checkSettings(settings, 'kernel(fn, settings)');
  const body = `return globalThis.gpujs.run(${JSON.stringify(source)}, ${JSON.stringify(s)}, args);`;
  const task = new Function('...args', body) as KernelTask;
  const name = typeof fn === 'function' && fn.name ? fn.name : 'kernel';
  Object.defineProperty(task, 'name', { value: name });
  Object.defineProperty(task, 'kernelSource', { value: source });
  return markGpujs(task);
}
