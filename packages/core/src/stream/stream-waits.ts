import type { EdgeBuffer } from './edge-buffer.js';

/** How long a stream's loop on the scheduler's thread may run on without letting timers and I/O in. */
export const SLICE_MS = 8;

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves on the next turn of the event loop (timers and I/O run first). */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Resolves when `edge` has a value or has ended, or after `ms`. */
export function dataOrTimeout(edge: EdgeBuffer, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    edge.data().then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
