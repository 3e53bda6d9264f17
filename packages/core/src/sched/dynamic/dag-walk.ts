import type { DTask } from '../../task/dtask.js';
import { TaskState } from '../../task/task-state.js';
import { forEachDependent } from '../completion/settle.js';
import type { TaskTables } from '../scheduler-state.js';
import { forEachInput } from './weak-inputs.js';

/**
 * The task graph the scheduler still holds, found by walking from `roots` (tasks ready,
 * running, or parked) down through dependents and up through tasks' inputs (for a finished
 * task: its lineage, or what `keepInputs` left of its inputs: weak references, or ids).
 * Returns every task reached by id, and edges task → its dependents; `edges` also names the
 * inputs known only by id, which `tasks` lacks.
 */
export function walkDag(roots: Iterable<DTask<unknown>>): {
  tasks: Map<number, DTask<unknown>>;
  edges: Map<number, Set<number>>;
} {
  const tasks = new Map<number, DTask<unknown>>();
  const edges = new Map<number, Set<number>>();
  const stack: DTask<unknown>[] = [];
  const node = (id: number): Set<number> => {
    let dependents = edges.get(id);
    if (dependents === undefined) edges.set(id, (dependents = new Set()));
    return dependents;
  };
  const visit = (t: DTask<unknown>): void => {
    if (tasks.has(t.id)) return;
    tasks.set(t.id, t);
    node(t.id);
    stack.push(t);
  };
  for (const r of roots) visit(r);
  while (stack.length > 0) {
    const t = stack.pop()!;
    forEachDependent(t, (d) => {
      visit(d);
      edges.get(t.id)!.add(d.id);
    });
    // Up through inputs: an unfinished task's arguments, a finished one's lineage, or what a
    // finished local one keeps (finished upstream tasks that still have handles, or ids).
    forEachInput(
      t,
      (a) => {
        visit(a);
        node(a.id).add(t.id);
      },
      (id) => node(id).add(t.id),
    );
  }
  return { tasks, edges };
}

/**
 * `getDagIds`' answer from `walkDag`'s: every task reached, each with the dependents that still
 * wait for it or run (Dagger's DAG querying: once `b` and `c` have finished, `a`'s set is empty,
 * its result no longer needed; `b`'s and `c`'s hold `d` while `d` runs).
 */
export function pendingDependents(dag: ReturnType<typeof walkDag>): Map<number, Set<number>> {
  for (const dependents of dag.edges.values()) {
    for (const id of dependents) {
      const d = dag.tasks.get(id);
      if (d === undefined || d.state >= TaskState.Done) dependents.delete(id);
    }
  }
  return dag.edges;
}

/** True when `target` is downstream of `from` (reachable through dependents). */
export function isDownstream(from: DTask<unknown>, target: DTask<unknown>): boolean {
  const seen = new Set<number>();
  const stack = [from];
  while (stack.length > 0) {
    const t = stack.pop()!;
    let found = false;
    forEachDependent(t, (d) => {
      if (d === target) found = true;
      if (!seen.has(d.id)) {
        seen.add(d.id);
        stack.push(d);
      }
    });
    if (found) return true;
  }
  return false;
}

/**
 * Tasks `s` holds now (ready, running, or parked in a processor's backlog) that have not
 * settled, plus `extra`: the roots `walkDag` starts from for `getDagIds`.
 */
export function liveTasks(s: TaskTables, extra?: DTask<unknown>): DTask<unknown>[] {
  const roots: DTask<unknown>[] = [...s.ready, ...s.running.values()];
  for (const slot of s.slots) roots.push(...slot.backlog);
  if (extra) roots.push(extra);
  return roots.filter((t) => t.state < TaskState.Done || t === extra);
}
