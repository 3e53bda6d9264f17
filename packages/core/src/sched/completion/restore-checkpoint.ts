import type { DTask } from '../../task/dtask.js';
import { isThenable } from '../../task/is-thenable.js';
import { runTask } from '../dispatch/run-task.js';
import type { ProcSlot } from '../placement/proc-slot.js';
import type { SchedulerState } from '../scheduler-state.js';

/**
 * Dagger's `restore`: a saved result (anything but undefined) skips running the task. A restore
 * function that throws (or rejects) does not fail the task: as in Dagger, the task runs and a
 * warning says the restore failed.
 */
export function restoreOrRun(s: SchedulerState, task: DTask<unknown>, slot: ProcSlot): void {
  const settle = (saved: unknown): void => {
    if (saved === undefined) runTask(s, task, slot);
    else s.sink.complete(task, saved);
  };
  const runAnyway = (error: unknown): void => {
    process.emitWarning(
      `dtask: restore of task #${task.id} failed, so the task runs instead: ${error}`,
    );
    runTask(s, task, slot);
  };
  let saved: unknown;
  try {
    saved = (task.options.restore as (t: unknown) => unknown)(task);
  } catch (error) {
    runAnyway(error);
    return;
  }
  if (!isThenable(saved)) {
    settle(saved);
    return;
  }
  s.running.set(task.id, task);
  Promise.resolve(saved).then(settle, runAnyway);
}

/** Dagger's `checkpoint`: hands a finished task's result to the option's function. */
export function checkpoint(task: DTask<unknown>): void {
  try {
    const r = (task.options.checkpoint as (t: unknown, v: unknown) => unknown)(task, task.value);
    if (isThenable(r))
      Promise.resolve(r).catch((e) =>
        process.emitWarning(`dtask: checkpoint of task #${task.id} failed: ${e}`),
      );
  } catch (e) {
    process.emitWarning(`dtask: checkpoint of task #${task.id} failed: ${e}`);
  }
}
