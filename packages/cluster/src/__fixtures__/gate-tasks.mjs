// Loaded with everywhere() by cluster-rebalance.test.ts: a task that holds its worker's thread
// until a file appears, a second at a time, so that the worker answers messages between tasks.
import { existsSync } from 'node:fs';

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Blocks the thread until `gate` exists or a second has passed, whichever comes first, then
 * returns `[the worker it ran on, i]`.
 */
export function holdUntil(gate, i) {
  const end = performance.now() + 1000;
  while (!existsSync(gate) && performance.now() < end) Atomics.wait(pause, 0, 0, 20);
  return [dtask.currentWorker(), i];
}
