import { WorkerLostError } from '../../errors/errors.js';
import { describeTask } from '../../errors/task-failed-error.js';
import { type DTask, taskExtra } from '../../task/dtask.js';
import { TaskFlags } from '../../task/task-state.js';

/** How many workers one task may take down with it before it fails instead of re-running. */
export const MAX_KILLS = 3;

/** What the faults phase needs from the scheduler. */
export interface FaultSink {
  requeue(task: DTask<unknown>): void;
  fail(task: DTask<unknown>, error: unknown): void;
}

/**
 * A worker died while holding `tasks`: each goes back to placement to run elsewhere, unless it
 * has now been running on `MAX_KILLS` workers that died (it likely kills them: it fails with
 * `WorkerLostError` instead of looping). A kill from outside (`byUs`, e.g. a cancel's grace
 * period running out, or a shutdown) does not count toward that limit. A task that must not run
 * twice (`notRerun`: a streaming task) fails with `WorkerLostError` whenever it lost a worker it
 * was sent to, even when another task brought that worker down (a task calling process.exit() on
 * a thread running streaming tasks otherwise restarted them on the replacement thread, and the
 * DAG streamed on, repeating values); only one sent ahead of its inputs is placed again.
 */
export function recoverLostTasks(
  sink: FaultSink,
  tasks: Iterable<DTask<unknown>>,
  reason: unknown,
  byUs = false,
): void {
  for (const task of tasks) {
    const extra = taskExtra(task);
    if (!byUs) extra.kills = (extra.kills ?? 0) + 1;
    if (extra.notRerun !== undefined && (!byUs || (task.flags & TaskFlags.SentAhead) === 0)) {
      sink.fail(
        task,
        new WorkerLostError(
          `Task ${describeTask(task)} lost its worker while it ran; ${extra.notRerun}.`,
          { cause: reason },
        ),
      );
      continue;
    }
    if (task.options.inPlace === true && (!byUs || extra.began === true)) {
      // It was running (the one charged with the loss, or one its worker said began) and may
      // have written shared memory already: running it again could apply its effect twice
      // (DESIGN.md). One that never began runs again. Copy-in/copy-out tasks are not inPlace:
      // their writes were not published yet, so they are re-run like any other.
      sink.fail(
        task,
        new WorkerLostError(
          `Task ${describeTask(task)} writes in place (shared memory, or a shard's piece) and its worker died while it ran; ` +
            'it is not re-run, since its writes may be half done. Restore the data and run it again.',
          { cause: reason },
        ),
      );
      continue;
    }
    if ((extra.kills ?? 0) >= MAX_KILLS) {
      sink.fail(
        task,
        new WorkerLostError(
          `Task ${describeTask(task)} was running on ${MAX_KILLS} workers that died; it is not retried again. ` +
            'Check it for crashes (process.exit, out of memory) or raise resourceLimits.',
          { cause: reason },
        ),
      );
    } else sink.requeue(task);
  }
}
