import type { Processor } from '../../processor/processor.js';
import type { DTask } from '../../task/dtask.js';
import { dataHome } from './data-home.js';

/**
 * Arguments written in place (`inPlaceArgs`) whose data is on the scheduler's thread (`here`:
 * a result held here, a chunk in this thread's storage) while the task was placed on another
 * processor `proc` (its scope does not reach this thread, see `taskScope`): they travel there
 * as copies, so the runtime must send the written copies back. Adds their positions to the
 * task's `returnArgs.indices`, whose `apply` writes them into the data here (for a result held
 * here, `applyReturnedArgs` passes it as the target; a chunk's data is the value `sendArgs`
 * saw). Does nothing when the task runs here or moves nothing.
 */
export function markMovedArgs(
  task: DTask<unknown>,
  proc: Processor,
  here: Processor | undefined,
): void {
  const o = task.options;
  if (o.inPlaceArgs === undefined || here === undefined || proc === here) return;
  const back = o.returnArgs;
  if (back?.apply === undefined) return;
  let indices: number[] | undefined;
  for (const i of o.inPlaceArgs) {
    if (back.indices.includes(i) || dataHome(task.args[i], here) !== here) continue;
    (indices ??= [...back.indices]).push(i);
  }
  if (indices === undefined) return;
  task.options = { ...o, returnArgs: { indices, apply: back.apply } };
}
