import { isChunk } from '../chunk/chunk.js';
import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import { groupHandles } from '../sched/completion/group-run.js';
import { Scheduler } from '../sched/scheduler.js';
import { ExactScope } from '../scope/exact-scope.js';
import type { DTask } from '../task/dtask.js';
import { normalizeOptions, type TaskOptionsInput } from '../task/options.js';
import { takeTaskIds } from '../task/spawn-task.js';
import type { Context } from './context.js';
import { currentScheduler } from './default-context.js';
import { batchOf } from './spawn-batch.js';

/**
 * Spawns one group task that makes `n` outputs, and returns a pending handle per output, at
 * once (Ray's `num_returns`, Dask's multi-output layer): `fn(base, ...args)` runs once, and
 * must return `groupParts(base, values)` with its first argument as `base` and `n` values.
 * On a worker, each value is kept there under a key of its own; each handle then settles with
 * its output, all in one loop when the group finishes: no placement, queue, message or promise
 * per output. A handle is a `DTask` in all else: it can be awaited and fetched (that output
 * alone comes), passed to other tasks on any thread (they wait for the group, then read that
 * output where it lives), and its `processor` is the group's (at once when `options.scope` is
 * an `ExactScope`).
 *
 * - The group failing fails every pending handle as a failed input fails its dependents
 *   (`DTaskFailedError`, with the group as the root task and its error as the cause).
 * - Cancelling a handle cancels the group, and so every pending output of it (Ray's rule for a
 *   task's returns).
 * - A worker lost with the outputs (before or after the group finished) runs the group again,
 *   once for all its outputs, from its lineage, when one of them is next needed.
 * - The outputs are released on the worker together, once no handle of the group is reachable.
 *
 * `options` are the group's (`spawn`'s, normalized once); `context`: where it goes (undefined:
 * where `spawn` goes). Only where the scheduler is on the calling thread (not in a task running
 * on a worker: `ArgumentError`). Throws what `spawn` throws.
 */
export function spawnGroup<T = unknown>(
  context: Context | undefined,
  options: TaskOptionsInput,
  fn: unknown,
  n: number,
  args: readonly unknown[],
): DTask<T>[] {
  if (typeof fn !== 'function' && !isChunk(fn)) {
    throw new ArgumentError(
      `spawnGroup(context, options, f, n, args): f must be a function or a Chunk holding one; got ${describeValue(fn)}`,
    );
  }
  if (!Number.isInteger(n) || n < 1) {
    throw new ArgumentError(
      `spawnGroup(context, options, f, n, args): n must be a whole number of outputs, at least 1; got ${describeValue(n)}`,
    );
  }
  const sink = context === undefined ? currentScheduler() : context.scheduler;
  if (!(sink instanceof Scheduler)) {
    throw new ArgumentError(
      'spawnGroup: the scheduler runs on another thread (a task running on a worker); spawn the ' +
        "outputs' tasks one by one there (spawnBatch)",
    );
  }
  const explicit = normalizeOptions(options, 'spawnGroup');
  const base = takeTaskIds(n);
  const groupArgs = [base, ...args];
  const lineage = groupArgs.slice(); // the group's own array is let go of once it finishes
  const out: DTask<unknown>[] = [];
  batchOf(context, explicit, fn)([groupArgs], out); // a closed context throws here
  const group = out[0];
  const scope = group.options.scope;
  const proc = scope instanceof ExactScope ? scope.processor : undefined;
  return groupHandles(sink, group, lineage, base, n, proc) as DTask<T>[];
}
