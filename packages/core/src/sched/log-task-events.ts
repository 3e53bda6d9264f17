import { sizeOf } from '../chunk/size-of.js';
import { functionName } from '../log/function-name.js';
import { logEvent, now } from '../log/index.js';
import type { Processor } from '../processor/processor.js';
import type { DTask } from '../task/dtask.js';
import { isRemoteResult } from '../task/remote-result.js';
import { TaskState } from '../task/task-state.js';
import { inputIds } from './dispatch/input-ids.js';
import { logMoves } from './dispatch/log-moves.js';

// The scheduler's log events for one task, at each step of its life. The scheduler calls these
// only while logging is on (`loggingState.enabled`), so they cost nothing otherwise.

/** The name a task's events carry: its `name` option, else its function's name (`functionName`). */
export function taskLogName(task: DTask<unknown>): string | undefined {
  return task.options.name ?? functionName(task.fn);
}

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
    name: taskLogName(task),
    worker: 1,
    inputs,
  });
  return deps as unknown[] | undefined;
}

/**
 * Logs the `start` of `task` on `proc` (sent there: by the scheduler's dispatch, or ahead of
 * its inputs by `sendAhead`), and a `move` for each input that must travel there.
 */
export function logStart(task: DTask<unknown>, proc: Processor): void {
  logEvent({
    kind: 'start',
    time: now(),
    task: task.id,
    name: taskLogName(task),
    processor: proc.id,
    worker: proc.worker,
  });
  logMoves(task, proc);
}

/**
 * Logs how `task` settled: `finish` when done, with the size of its result in `bytes` (as its
 * holder reported it, or `sizeOf` for a value held here); `fail` otherwise.
 */
export function logSettled(task: DTask<unknown>): void {
  const done = task.state === TaskState.Done;
  logEvent({
    kind: done ? 'finish' : 'fail',
    time: now(),
    task: task.id,
    name: taskLogName(task),
    processor: task.proc?.id,
    worker: task.proc?.worker,
    bytes: done ? resultBytes(task) : undefined,
  });
}

function resultBytes(task: DTask<unknown>): number | undefined {
  const value = task.value;
  if (isRemoteResult(value)) return value.bytes ?? task.extra?.bytes;
  return sizeOf(value);
}
