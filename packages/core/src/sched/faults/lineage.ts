import { type DTask, isDTask, type TaskOwner, taskExtra } from '../../task/dtask.js';
import type { RemoteResult } from '../../task/remote-result.js';
import { TaskState } from '../../task/task-state.js';
import type { LineageState } from '../scheduler-state.js';

/**
 * How long a chain of worker-held results may get before the scheduler keeps a copy of one on
 * its own thread and lets that result's lineage go (see `noteLineage`).
 */
export const DEFAULT_LINEAGE_DEPTH = 64;

/** Results copied home so far by `noteLineage`, process-wide (for tests and benchmarks). */
let keptCopies = 0;

/** How many results the scheduler has copied home to bound lineage so far (process-wide). */
export function lineageCopies(): number {
  return keptCopies;
}

/**
 * Bounds the lineage of a result held by a worker. Lineage is what recomputes a lost result:
 * the task's function and arguments, and through them its input tasks, theirs, and so on. A
 * local result needs none (the scheduler drops it), but a result on a worker keeps its inputs
 * alive, and so, transitively, every task of a long pipeline while its last handle lives.
 *
 * Each worker-held result counts the longest chain of worker-held results it depends on
 * (`DTask.lineage`). When that exceeds `s.lineageDepth`, the scheduler pulls a copy of the
 * result to its own thread (the worker keeps its own, for dependents placed there); once the
 * copy has arrived, the task's arguments are dropped: a loss of its worker is then answered
 * with the copy, not by running it again, and nothing upstream of it is kept for its sake.
 * Upstream tasks nothing else refers to are then collected, and the worker connection's
 * `FinalizationRegistry` releases their results on the workers. So the tasks and results kept
 * for recomputation are bounded by the depth times the pipeline's width, whatever its length.
 */
export function noteLineage(
  s: LineageState & TaskOwner,
  task: DTask<unknown>,
  v: RemoteResult,
): void {
  const args = task.args;
  let depth = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a !== 'object' || a === null || !isDTask(a) || a.owner !== s) continue;
    if (a.lineage > depth) depth = a.lineage;
  }
  depth++;
  // A result pinned by its resultScope (a shard's piece) is not copied: it may be mutated
  // where it lives, or belong away from this thread. Its dependents are copied instead.
  if (depth <= s.lineageDepth || task.options.resultScope !== undefined) {
    task.lineage = depth;
    return;
  }
  // Dependents count from here: this task's own lineage goes once the copy is in.
  task.lineage = 0;
  v.fetch().then(
    (copy) => {
      if (task.value !== v || task.state !== TaskState.Done) return; // taken home or recomputed
      taskExtra(task).kept = { value: copy };
      task.args = NO_LINEAGE;
      keptCopies++;
    },
    () => {
      // Its worker died first: the lineage stays, and recomputation uses it.
      if (task.value === v) task.lineage = depth;
    },
  );
}

const NO_LINEAGE: unknown[] = [];

/**
 * For a task whose worker-held result was lost: puts back the copy kept on this thread by
 * `noteLineage`, if there is one. Returns true when the task has its value again.
 */
export function restoreKeptCopy(task: DTask<unknown>): boolean {
  const kept = task.extra?.kept;
  if (kept === undefined) return false;
  task.value = kept.value;
  task.extra!.kept = undefined;
  task.lineage = 0;
  return true;
}
