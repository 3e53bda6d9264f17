import { WorkerLostError } from '../../errors/errors.js';
import { describeTask } from '../../errors/task-failed-error.js';
import { type DTask, taskExtra } from '../../task/dtask.js';
import { isDetached } from '../../task/transfer-option.js';
import { couldHaveBegun } from './could-have-begun.js';

/** How many workers one task may take down with it before it fails instead of re-running. */
export const MAX_KILLS = 3;

/** Slack for sums of shared blame (thirds do not add up exactly). */
const EPSILON = 1e-9;

/** What recovering lost tasks does with each: place it again, or fail it (tests record them). */
export interface FaultSink {
  requeue(task: DTask<unknown>): void;
  fail(task: DTask<unknown>, error: unknown): void;
}

/**
 * A worker died while `tasks` may have been running there (its suspects): each goes back to
 * placement to run elsewhere, unless the deaths blamed on it now add up to `MAX_KILLS` (it
 * likely kills them: it fails with `WorkerLostError` instead of looping). One death is one
 * kill, shared among its suspects: a task that kills every worker it runs on fails after 3
 * deaths when it runs alone, and later beside others, while a task that merely ran beside a
 * worker killed from outside is not failed as a killer. A kill by the scheduler itself (`byUs`,
 * e.g. a cancel's grace period running out, or a shutdown, or tasks it knows were not running)
 * is not counted. A task that must not run twice (`notRerun`: a streaming task) fails with
 * `WorkerLostError` whenever it lost a worker it was sent to, even when another task brought
 * that worker down (a task calling process.exit() on a thread running streaming tasks otherwise
 * restarted them on the replacement thread, and the DAG streamed on, repeating values); only
 * one sent ahead of inputs still being made, which has not begun, is placed again.
 */
export function recoverLostTasks(
  sink: FaultSink,
  tasks: Iterable<DTask<unknown>>,
  reason: unknown,
  byUs = false,
): void {
  const list = [...tasks];
  const blame = byUs ? 0 : 1 / list.length;
  for (const task of list) {
    const extra = taskExtra(task);
    if (blame > 0) {
      extra.kills = (extra.kills ?? 0) + blame;
      extra.deaths = (extra.deaths ?? 0) + 1;
    }
    if (task.options.transfer?.some(isDetached)) {
      // Its buffers moved to the dead worker: a second run would get empty ones.
      sink.fail(
        task,
        new WorkerLostError(
          `Task ${describeTask(task)} lost its worker after the buffers of its transfer option moved there; ` +
            'it is not re-run, since they are gone from here. Spawn it again with fresh buffers.',
          { cause: reason },
        ),
      );
      continue;
    }
    if (extra.notRerun !== undefined && couldHaveBegun(task)) {
      sink.fail(
        task,
        new WorkerLostError(
          `Task ${describeTask(task)} lost its worker while it ran; ${extra.notRerun}.`,
          { cause: reason },
        ),
      );
      continue;
    }
    if (task.options.inPlace === true && (blame === 1 || extra.began === true)) {
      // It was running (the one task that could have been, or one its worker said began) and
      // may have written shared memory already: running it again could apply its effect twice
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
    if ((extra.kills ?? 0) >= MAX_KILLS - EPSILON) {
      sink.fail(
        task,
        new WorkerLostError(
          `Task ${describeTask(task)} was running on ${extra.deaths} workers that died, ${killerEvidence(extra.deaths ?? 0)}; ` +
            `it is not retried again. Check it for crashes (process.exit, out of memory); ${memoryAdvice(task)}`,
          { cause: reason },
        ),
      );
    } else sink.requeue(task);
  }
}

function killerEvidence(deaths: number): string {
  return deaths <= MAX_KILLS
    ? 'alone each time'
    : 'some beside other tasks (a death is blamed on all that were running, shared among them)';
}

/**
 * How to give the task's workers more memory, for the plugin that runs them: threads of this
 * process (worker 1) take `resourceLimits`; worker processes take Node flags.
 */
function memoryAdvice(task: DTask<unknown>): string {
  const threads =
    "threads({ resourceLimits: { maxOldGenerationSizeMb } }) raises a worker thread's heap limit";
  const processes =
    "cluster({ execArgv: ['--max-old-space-size=<MiB>'] }) raises a worker process's";
  const worker = task.processor?.worker;
  if (worker === 1) return `${threads}.`;
  if (worker !== undefined) return `${processes}.`;
  return `${threads}; ${processes}.`;
}
