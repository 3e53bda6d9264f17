import { type DTask, isDTask } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';

const NONE: unknown[] = [];

/**
 * What a finished task whose result stays on this thread keeps of its arguments, so that
 * `getDagIds` can still walk up through it without keeping anything upstream alive: its
 * arguments' values are let go (it needs no lineage: its result cannot be lost with a worker),
 * and its input tasks are kept, in the task's own `args` array (no allocation), as
 *
 * - their ids, while `weak` is false (`Scheduler.weakUpstream`: no task of the context has
 *   asked for a scheduler handle yet). A number is all a chain of tasks pays: `getDagIds` lists
 *   such inputs by id, one level above the tasks it reaches. The `InputIds` flag says so;
 * - weak references, once `weak` is true: those that still have handles are listed, with
 *   their own inputs, however far up. A `WeakRef` costs far more than the task itself (its
 *   constructor also keeps the target alive to the end of the job), so a program that never
 *   asks for a handle makes none.
 *
 * Returns the array to keep as the task's `args`.
 */
export function keepInputs(task: DTask<unknown>, weak: boolean): unknown[] {
  // No argument was a task or chunk when it was submitted: nothing to look for.
  if ((task.flags & TaskFlags.ValueArgs) !== 0) return NONE;
  const args = task.args;
  let i = 0;
  while (i < args.length && !isTaskArg(args[i])) i++;
  if (i === args.length) return NONE; // no input task: nothing to keep
  for (i = 0; i < args.length; i++) {
    const a = args[i];
    args[i] = isTaskArg(a) ? (weak ? new WeakRef(a) : a.id) : undefined;
  }
  if (!weak) task.flags |= TaskFlags.InputIds;
  return args;
}

/** Weak references to the input tasks among `args`, in a new array (see `keepInputs`). */
export function weakInputs(args: readonly unknown[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (isTaskArg(a)) (out ??= []).push(new WeakRef(a));
  }
  return out ?? NONE;
}

/**
 * The input tasks of `task`, whether held directly (its arguments, or a finished task's
 * lineage) or as `keepInputs` left them: `visit` gets each task still alive, `visitId` the
 * id of each kept only by id.
 */
export function forEachInput(
  task: DTask<unknown>,
  visit: (t: DTask<unknown>) => void,
  visitId: (id: number) => void,
): void {
  const args = task.args;
  const ids = task.state >= TaskState.Done && (task.flags & TaskFlags.InputIds) !== 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (ids) {
      if (typeof a === 'number') visitId(a);
      continue;
    }
    if (typeof a !== 'object' || a === null) continue;
    const t = a instanceof WeakRef ? a.deref() : a;
    if (isDTask(t)) visit(t);
  }
}

function isTaskArg(a: unknown): a is DTask<unknown> {
  return typeof a === 'object' && a !== null && isDTask(a);
}
