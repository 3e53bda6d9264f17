import type { DTask } from '../../task/dtask.js';
import { isThenable } from '../../task/is-thenable.js';
import type { ReturnArgsOption } from '../../task/options.js';
import { heldHere, heldRemotely } from '../placement/data-home.js';

/**
 * Copy-in/copy-out of arguments (the `returnArgs` task option), the scheduler's side (the
 * worker's side is `returnedArgs`, task/returned-args.ts): passes the values a runtime sent
 * back for `task` to its `returnArgs.apply`, in the order of `indices` (default
 * `returnArgs.indices`), with the objects they go into (a `Chunk`/`DTask` argument's data held on this thread) and the workers
 * holding the data of the others. Called before the task completes, so dependents see the
 * written data. Returns the error that should fail the task (an `apply` that throws or
 * rejects), or undefined; a promise of it when `apply` returned one.
 */
export function applyReturnedArgs(
  task: DTask<unknown>,
  values: unknown[] | undefined,
  indices?: readonly number[],
): unknown {
  const option: ReturnArgsOption | undefined = task.options.returnArgs;
  if (values === undefined || option?.apply === undefined) return undefined;
  try {
    const at = indices ?? option.indices;
    const targets = at.map((i) => {
      const a = task.args[i];
      return heldHere(a)?.value ?? a;
    });
    const holders = at.map((i) => heldRemotely(task.args[i]));
    const done = option.apply(values, task, { indices: at, targets, holders });
    return isThenable(done)
      ? Promise.resolve(done).then(
          () => undefined,
          (error: unknown) => error ?? new Error('returnArgs.apply rejected'),
        )
      : undefined;
  } catch (error) {
    return error;
  }
}
