import { logEvent, now } from '../log/index.js';
import type { Processor } from '../processor/processor.js';
import type { DTask } from '../task/dtask.js';
import { TaskState } from '../task/task-state.js';
import { inputIds } from './dispatch/input-ids.js';
import { logMoves } from './dispatch/log-moves.js';

// The scheduler's log events for one task, at each step of its life. The scheduler calls these
// only while logging is on (`loggingState.enabled`), so they cost nothing otherwise.

/**
 * Logs the `spawn` of `task` (its inputs: arguments, plus `extraDeps`). Returns `extraDeps` as
 * an array, since the scheduler reads them again (a one-shot iterable would then be empty).
 */
export function logSpawn(
  task: DTask<unknown>,
  extraDeps: Iterable<unknown> | undefined,
): unknown[] | undefined {
  const deps = extraDeps !== undefined && !Array.isArray(extraDeps) ? [...extraDeps] : extraDeps;
  const inputs = inputIds(task, deps as unknown[] | undefined);
  logEvent({
    kind: 'spawn',
    time: now(),
    task: task.id,
    name: task.options.name,
    worker: 1,
    inputs,
  });
  return deps as unknown[] | undefined;
}

/** Logs the `start` of `task` on `proc`, and a `move` for each input that must travel there. */
export function logStart(task: DTask<unknown>, proc: Processor): void {
  logEvent({
    kind: 'start',
    time: now(),
    task: task.id,
    name: task.options.name,
    processor: proc.id,
    worker: proc.worker,
  });
  logMoves(task, proc);
}

/** Logs how `task` settled: `finish` when done, `fail` otherwise. */
export function logSettled(task: DTask<unknown>): void {
  logEvent({
    kind: task.state === TaskState.Done ? 'finish' : 'fail',
    time: now(),
    task: task.id,
    name: task.options.name,
    processor: task.proc?.id,
    worker: task.proc?.worker,
  });
}
