// The raw peer of a DArray sum on 2 threads: two bare `worker_threads` workers, each given half
// of the blocks (shared memory, sent once), sum their halves with the plain loop's own block
// kernel when told to (bench/fixtures/raw-sum-worker.mjs); the two partial sums are added here.
// No scheduler, no tasks: what two threads of this machine do with the same data and kernel,
// memory bandwidth included.
import { Worker } from 'node:worker_threads';

/**
 * Two raw workers holding halves of `blocks` (blocks over SharedArrayBuffers): `sum()` resolves
 * to the sum of every element; `close()` ends them.
 */
export function rawSumPool(blocks) {
  const half = Math.ceil(blocks.length / 2);
  const workers = [blocks.slice(0, half), blocks.slice(half)].map((part) => {
    const w = new Worker(new URL('./fixtures/raw-sum-worker.mjs', import.meta.url));
    w.postMessage(part);
    return w;
  });
  const ask = (w) =>
    new Promise((resolve) => {
      w.once('message', resolve);
      w.postMessage('go');
    });
  return {
    sum: async () => (await Promise.all(workers.map(ask))).reduce((a, b) => a + b, 0),
    close: () => Promise.all(workers.map((w) => w.terminate())),
  };
}
