import type { Processor } from '../../processor/processor.js';
import type { DTask } from '../../task/dtask.js';
import { dataHome } from './data-home.js';

/**
 * Arguments written in place (`inPlaceArgs`) whose data is not where the task was placed
 * (`proc`, outside the scope of the processor holding it, see `taskScope`): on the scheduler's
 * thread (`here`: a result held here, a chunk in this thread's storage) or on a worker. They
 * travel to the task as copies, so the runtime must send the written copies back. Adds their
 * positions to the task's `returnArgs.indices`, whose `apply` writes them where the data is
 * (`applyReturnedArgs` names it: the result held here, or the worker holding it; a chunk's
 * data here is the value `sendArgs` saw). Does nothing when the task runs where its data is.
 */
export function markMovedArgs(
  task: DTask<unknown>,
  proc: Processor,
  here: Processor | undefined,
): void {
  const o = task.options;
  if (o.inPlaceArgs === undefined) return;
  const back = o.returnArgs;
  if (back?.apply === undefined) return;
  let indices: number[] | undefined;
  for (const i of o.inPlaceArgs) {
    if (back.indices.includes(i)) continue;
    const home = dataHome(task.args[i], here);
    if (home === undefined || home === proc) continue;
    (indices ??= [...back.indices]).push(i);
  }
  if (indices === undefined) return;
  // Object.assign, not a spread: see mergeOptions.
  task.options = Object.assign({}, o, { returnArgs: { indices, apply: back.apply } });
}
