import type { ToWorker } from '../protocol/protocol.js';

/**
 * Called by a runtime on each batch from the scheduler, before it handles any message in it:
 * tasks sent ahead name results of this runtime (`holder`, or '' for "here") that may finish
 * before their message is read. Counts them in `consumers` (key: how many tasks here will
 * still take it), so such a result is kept here (even a small one, which otherwise only
 * travels back inline) until each of them has taken it.
 */
export function countLocalConsumers(
  batch: readonly ToWorker[],
  holder: string,
  consumers: Map<number, number>,
): void {
  for (const m of batch) {
    if (!Array.isArray(m) || m[4] === undefined) continue;
    for (const [, key, from] of m[4]) {
      if (from === '' || from === holder) consumers.set(key, (consumers.get(key) ?? 0) + 1);
    }
  }
}
