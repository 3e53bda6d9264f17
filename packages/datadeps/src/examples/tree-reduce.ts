import { spawn as defaultSpawn } from '@dtask/core';
import { In, InOut } from '../annotations.js';
import { spawnDatadeps } from '../spawn-datadeps.js';
import type { SpawnLike } from './cholesky.js';

/**
 * Seed 002's `tree_reduce!`: reduces `as` elementwise into `as[0]` with `op(x, y)`, which must
 * update `x` in place from `y` (e.g. `addInto`). Pairs of neighbours are reduced first, then
 * pairs of their results, and so on; each `op` is a task with `InOut(x)`/`In(y)`, so the pairs
 * of one level run in parallel. Give arrays over `SharedArrayBuffer`s to update them in place on
 * worker threads (ordinary ones are copied back after each task). Resolves to `as[0]`.
 */
export async function treeReduce<T>(
  op: (x: T, y: T) => unknown,
  as: T[],
  spawn: SpawnLike = defaultSpawn,
): Promise<T> {
  await spawnDatadeps(() => {
    const toReduce: T[][] = [as];
    while (toReduce.length > 0) {
      const xs = toReduce.pop()!;
      const n = xs.length;
      if (n === 2) spawn(op, InOut(xs[0]), In(xs[1]));
      else if (n > 2) {
        const half = Math.floor(n / 2);
        toReduce.push([xs[0], xs[half]]);
        toReduce.push(xs.slice(0, half));
        toReduce.push(xs.slice(half));
      }
    }
  });
  return as[0];
}

/** `x[i] += y[i]` for every `i` (self-contained: it travels to worker threads as source). */
export function addInto(x: Float64Array, y: Float64Array): void {
  for (let i = 0; i < x.length; i++) x[i] += y[i];
}
