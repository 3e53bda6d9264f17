import { isChunk } from '../../chunk/chunk.js';
import { type DTask, isDTask } from '../../task/dtask.js';
import { pendingTaskOf } from '../ready/pending-task-of.js';

/**
 * The ids of the tasks `task` takes results from or waits for (its arguments, the chunks'
 * producers, a task used as its function, `syncdeps` and `extraDeps`), each once, in order:
 * the edges of the task graph that a `spawn` log event records. Called by the scheduler only
 * while logging is on.
 */
export function inputIds(task: DTask<unknown>, extraDeps?: readonly unknown[]): number[] {
  const ids = new Set<number>();
  const add = (dep: unknown): void => {
    if (typeof dep !== 'object' || dep === null) return;
    const upstream = isDTask(dep) ? dep : isChunk(dep) ? pendingTaskOf(dep) : undefined;
    if (upstream !== undefined && upstream !== task) ids.add(upstream.id);
  };
  for (const a of task.args) add(a);
  add(task.fn);
  if (task.options.syncdeps) for (const dep of task.options.syncdeps) add(dep);
  if (extraDeps) for (const dep of extraDeps) add(dep);
  return [...ids];
}
