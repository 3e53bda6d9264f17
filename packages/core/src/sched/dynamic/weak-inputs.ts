import { type DTask, isDTask } from '../../task/dtask.js';

const NONE: unknown[] = [];

/**
 * What a finished task whose result stays on this thread keeps of its arguments: weak
 * references to its input tasks, nothing else. It needs no lineage (its result cannot be lost
 * with a worker), and a strong reference would keep every upstream task and its value alive
 * as long as any downstream handle lives. The weak references let `getDagIds` still list
 * finished upstream tasks that have handles, with their dependents, as Dagger does.
 */
export function weakInputs(args: readonly unknown[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a === 'object' && a !== null && isDTask(a)) (out ??= []).push(new WeakRef(a));
  }
  return out ?? NONE;
}

/** The input tasks among a task's arguments, whether held directly or through `weakInputs`. */
export function forEachInput(args: readonly unknown[], visit: (t: DTask<unknown>) => void): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a !== 'object' || a === null) continue;
    const t = a instanceof WeakRef ? a.deref() : a;
    if (isDTask(t)) visit(t);
  }
}
