import { ArgumentError } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';

const MARK = Symbol.for('dtask.gpujs.task');

/** Marks `f` to run only on a GpujsProc (used by `kernel` and `gpujsTask`). */
export function markGpujs<F extends Function>(f: F): F {
  Object.defineProperty(f, MARK, { value: true, configurable: true });
  return f;
}

/**
 * Declares `f` a gpu.js task: it runs only on a GpujsProc, never on a CPU thread, and may use
 * the processor's runtime there through the global `gpujs` (`gpujs.kernel(fn, settings)`
 * returns the cached compiled kernel; `gpujs.mode` names the mode). Returns `f` itself, marked.
 */
export function gpujsTask<F extends Function>(f: F): F {
  if (typeof f !== 'function') {
    throw new ArgumentError(`gpujsTask(f): f must be a function; got ${describeValue(f)}`);
  }
  return markGpujs(f);
}

/** True for a function made by `kernel` or declared with `gpujsTask`. */
export function isGpujsTask(f: unknown): boolean {
  return typeof f === 'function' && (f as { [MARK]?: boolean })[MARK] === true;
}
