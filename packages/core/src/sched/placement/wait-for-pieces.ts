import type { Processor } from '../../processor/processor.js';
import type { DTask } from '../../task/dtask.js';
import { TaskState } from '../../task/task-state.js';
import { failFromUpstream } from '../completion/fail-from-upstream.js';
import { linkTask } from '../ready/link-task.js';
import type { SchedulerState } from '../scheduler-state.js';
import { takePieces } from './take-pieces.js';

/**
 * Called by the scheduler's dispatch once it has chosen `proc` for a task flagged `PieceArgs`:
 * gives `task` the pieces `proc` holds of its per-processor chunks (`takePieces`). Returns true
 * when the task must first wait for pieces still being made (it goes back to `Pending`, linked
 * to the tasks making them, and is placed again once they exist), or when one of those failed
 * (the task then fails with it); false when it can start on `proc` now.
 */
export function waitForPieces(s: SchedulerState, task: DTask<unknown>, proc: Processor): boolean {
  // Ends: `takePieces` lists only unfinished tasks, which `linkTask` answers with 1 or -1 (the
  // loop goes round again only if they all finished in between).
  for (;;) {
    const making = takePieces(task, proc);
    if (making === undefined) return false;
    let waiting = 0;
    for (const upstream of making) {
      const linked = linkTask(s, task, upstream);
      if (linked === -1) {
        failFromUpstream(s, task, upstream);
        return true;
      }
      waiting += linked;
    }
    if (waiting > 0) {
      task.state = TaskState.Pending;
      task.waiting = waiting;
      return true;
    }
  }
}
