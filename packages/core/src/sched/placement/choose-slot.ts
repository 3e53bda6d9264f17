import { sizeOf } from '../../chunk/size-of.js';
import { type DTask, isDTask, taskExtra } from '../../task/dtask.js';
import { TaskState } from '../../task/task-state.js';
import { RemoteResult } from '../dispatch/executor.js';
import type { CostModel } from './cost-model.js';
import type { ProcSlot } from './proc-slot.js';

/** Bytes of a finished task's result (measured once, then remembered). */
export function resultBytes(task: DTask<unknown>): number {
  const extra = taskExtra(task);
  if (extra.bytes !== undefined) return extra.bytes;
  const v = task.value;
  extra.bytes = v instanceof RemoteResult ? (v.bytes ?? 0) : sizeOf(v);
  return extra.bytes;
}

/**
 * Picks the processor where `task` is estimated to finish first: work already placed there,
 * plus the task's learned run time, plus the time to move its inputs there from where they
 * live (bytes ÷ measured bandwidth). A task therefore goes where its big inputs are unless
 * that processor is busy enough that moving them is cheaper.
 */
export function chooseSlot(
  task: DTask<unknown>,
  candidates: readonly ProcSlot[],
  model: CostModel,
): ProcSlot {
  if (candidates.length === 1) return candidates[0];
  const run = model.estimateRun(task.fn, task.args.length);
  let best = candidates[0];
  let bestCost = Number.POSITIVE_INFINITY;
  for (const slot of candidates) {
    let cost = slot.load + run;
    const args = task.args;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (!isDTask(a) || a.state !== TaskState.Done || a.proc === undefined) continue;
      cost += model.moveCost(a.proc, slot.proc, resultBytes(a));
    }
    if (cost < bestCost) {
      best = slot;
      bestCost = cost;
    }
  }
  return best;
}
