import { isChunk } from '../../chunk/chunk.js';
import type { Processor } from '../../processor/processor.js';
import { type DTask, isDTask } from '../../task/dtask.js';
import { isRemoteResult } from '../../task/remote-result.js';
import { TaskState } from '../../task/task-state.js';
import { resultTaskOf } from '../ready/pending-task-of.js';
import type { ProcSlot } from './proc-slot.js';

/**
 * The processor that holds the data of argument `a` (the `inPlaceArgs` option): for a finished
 * task, where its result is (the worker holding it; `here`, the scheduler's own thread, for a
 * result kept on this thread: one made here, one that rode back inline from a worker because it
 * was small, or one a fetch brought home; for a task that returned a chunk, that chunk's); for
 * a chunk, the holder of the task result it is, else its `processor`. Undefined for anything
 * else, and for a task not finished yet. Without `here`, a result kept on this thread answers
 * the processor it ran on (or was moved to).
 */
export function dataHome(a: unknown, here?: Processor): Processor | undefined {
  if (isChunk(a)) {
    const held = resultTaskOf(a);
    return held !== undefined ? dataHome(held, here) : a.processor;
  }
  if (!isDTask(a)) return undefined;
  const t = a as DTask<unknown>;
  if (t.state !== TaskState.Done) return undefined;
  const v = t.value;
  if (isRemoteResult(v)) return v.processor;
  if (isChunk(v)) return dataHome(v, here);
  return here ?? t.proc;
}

/**
 * The data of argument `a` when it is a finished task's result (or a chunk that is one) held
 * on this thread: that very object, which a write-back goes into. Undefined otherwise.
 */
export function heldHere(a: unknown): { value: unknown } | undefined {
  if (isChunk(a)) {
    const held = resultTaskOf(a);
    return held !== undefined ? heldHere(held) : undefined;
  }
  if (!isDTask(a)) return undefined;
  const t = a as DTask<unknown>;
  if (t.state !== TaskState.Done) return undefined;
  const v = t.value;
  if (isRemoteResult(v)) return undefined;
  if (isChunk(v)) return heldHere(v);
  return { value: v };
}

/**
 * The processor of a worker holding the data of argument `a` (a finished task's result kept
 * there, or a chunk that is one), which a write-back must reach; undefined for data on this
 * thread and for anything else.
 */
export function heldRemotely(a: unknown): Processor | undefined {
  if (isChunk(a)) {
    const held = resultTaskOf(a);
    return held !== undefined ? heldRemotely(held) : undefined;
  }
  if (!isDTask(a)) return undefined;
  const t = a as DTask<unknown>;
  if (t.state !== TaskState.Done) return undefined;
  const v = t.value;
  if (isRemoteResult(v)) return v.processor;
  if (isChunk(v)) return heldRemotely(v);
  return undefined;
}

/** The processor of the scheduler's own thread among `slots`, when it runs tasks. */
export function hereOf(slots: readonly ProcSlot[]): Processor | undefined {
  for (const slot of slots) if (slot.executor.inline && !slot.removed) return slot.proc;
  return undefined;
}
