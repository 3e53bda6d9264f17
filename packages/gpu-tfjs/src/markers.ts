import { ArgumentError, defaultOption, ProcessorTypeScope } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';

/** Where a marked function may run: only on a GPU processor, or on a GPU or a CPU thread alike. */
export type Placement = 'gpu' | 'gpuOrCpu';

const MARK = Symbol.for('dtask.gpu.placement');

/** Whether the program-wide rule that scopes `gpu(f)` tasks to TfjsProcs is registered. */
let gpuOnlyRuled = false;

function mark<F extends Function>(f: F, placement: Placement, caller: string): F {
  if (typeof f !== 'function') {
    throw new ArgumentError(`${caller}(f): f must be a function; got ${describeValue(f)}`);
  }
  // GPU-only tasks are scoped to TfjsProcs in every context, also one without the plugin
  // (the task then fails with SchedulingError instead of running on a CPU thread).
  if (placement === 'gpu' && !gpuOnlyRuled) {
    defaultOption('scope', (fn) => placementOf(fn) === 'gpu', new ProcessorTypeScope('tfjs'));
    gpuOnlyRuled = true;
  }
  Object.defineProperty(f, MARK, { value: placement, configurable: true });
  return f;
}

/**
 * Declares `f` GPU-only: its tasks run on a GPU processor (a `TfjsProc`), never on a CPU
 * thread, and receive tensors. Returns `f` itself, marked.
 */
export function gpu<F extends Function>(f: F): F {
  return mark(f, 'gpu', 'gpu');
}

/**
 * Declares that `f` runs on a GPU or a CPU thread alike (API: `gpuOrCpu`): on a `TfjsProc` its
 * float32/int32 typed-array arguments arrive as tensors; on a thread they stay typed arrays, so
 * `f` must handle both. Such a task runs where its inputs are. Returns `f` itself, marked.
 */
export function gpuOrCpu<F extends Function>(f: F): F {
  return mark(f, 'gpuOrCpu', 'gpuOrCpu');
}

/** How `f` was declared (`gpu`, `gpuOrCpu`), or undefined for a plain (CPU) function. */
export function placementOf(f: unknown): Placement | undefined {
  return typeof f === 'function' ? (f as { [MARK]?: Placement })[MARK] : undefined;
}
