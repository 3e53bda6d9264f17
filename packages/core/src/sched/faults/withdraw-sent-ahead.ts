import type { DTask } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import type { SlotTable } from '../scheduler-state.js';

/**
 * Tasks sent ahead behind `handedBack` (tasks a worker gave back to be placed again), taken back
 * from their workers, transitively. Each waits there for an input that may now be made on
 * another worker, where it would wait forever (regression: the 1-in-30 chaos-test hang, after
 * an input's fetch from a dying peer failed and only that input was placed again). Tasks already
 * in `handedBack` (a whole worker lost) are not withdrawn again. Returns the withdrawn tasks, for
 * the caller to place again with the others.
 */
export function withdrawSentAhead(s: SlotTable, handedBack: DTask<unknown>[]): DTask<unknown>[] {
  const seen = new Set(handedBack);
  const withdrawn: DTask<unknown>[] = [];
  const stack = [...handedBack];
  while (stack.length > 0) {
    const d = stack.pop()!.dependents;
    if (d === undefined) continue;
    for (const next of Array.isArray(d) ? d : [d]) {
      if (seen.has(next)) continue;
      seen.add(next);
      if (next.state !== TaskState.Running || (next.flags & TaskFlags.SentAhead) === 0) continue;
      if (next.proc) s.slotById.get(next.proc.id)?.executor.withdraw?.(next);
      withdrawn.push(next);
      stack.push(next);
    }
  }
  return withdrawn;
}
