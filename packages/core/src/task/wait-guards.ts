import type { DTask } from './dtask.js';

/**
 * Checks a wait on a task before it happens: throws to forbid it, or readies what the wait needs
 * (a bulk queue hands over the tasks it holds).
 */
export type WaitGuard = (task: DTask<unknown>) => void;

const KEY = Symbol.for('dtask.waitGuards');

let shared: WaitGuard[] | undefined;

/** The list every copy of core shares (on `globalThis`); looked up once, then kept. */
function guards(): WaitGuard[] {
  if (shared === undefined) {
    const g = globalThis as unknown as { [KEY]?: WaitGuard[] };
    g[KEY] ??= [];
    shared = g[KEY];
  }
  return shared;
}

/**
 * Lets a task queue forbid or prepare waits on some tasks: datadeps throws
 * `ConcurrencyViolationError` when code inside a region fetches or waits on one of the region's
 * own tasks; `spawnBulk` submits the tasks it holds when one of them is waited on. Returns a
 * remover.
 */
export function registerWaitGuard(guard: WaitGuard): () => void {
  const list = guards();
  list.push(guard);
  return () => {
    const at = list.indexOf(guard);
    if (at >= 0) list.splice(at, 1);
  };
}

/** Runs every registered guard for a wait on `task` (called by `fetch`/`wait`/`await`). */
export function runGuards(task: DTask<unknown>): void {
  const list = guards();
  for (let i = 0; i < list.length; i++) list[i](task);
}

/**
 * A function that registers `guard` the first time it is called and does nothing after: a
 * task queue installs its guard when its first region opens, so that programs without one pay
 * nothing on their waits.
 */
export function lazyWaitGuard(guard: WaitGuard): () => void {
  let installed = false;
  return () => {
    if (installed) return;
    installed = true;
    registerWaitGuard(guard);
  };
}
