const KEY = Symbol.for('dtask.cluster.nextWorker');

/**
 * A fresh worker id, unique in this program (worker 1 is the main process). Ids are never
 * reused, except by a local worker replaced under its own id.
 */
export function nextWorkerId(): number {
  const g = globalThis as { [KEY]?: number };
  g[KEY] ??= 2;
  return g[KEY]++;
}
