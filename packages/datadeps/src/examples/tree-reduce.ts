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
    // What is left to reduce, on one stack of number triples (no sliced copies of `as`): a
    // range `as[a..b)`, or (`PAIR`) the join of `as[a]` and `as[b]`, the first elements of a
    // range's two halves. A range pushes its join, then its halves: the right half is popped
    // first, then the left, then the join, as the lists were before.
    const stack = [RANGE, 0, as.length];
    while (stack.length > 0) {
      const b = stack.pop()!;
      const a = stack.pop()!;
      const kind = stack.pop()!;
      const n = b - a;
      if (kind === PAIR || n === 2) spawn(op, InOut(as[a]), In(as[kind === PAIR ? b : a + 1]));
      else if (n > 2) {
        const half = a + Math.floor(n / 2);
        stack.push(PAIR, a, half, RANGE, a, half, RANGE, half, b);
      }
    }
  });
  return as[0];
}

/** A range of `as` on `treeReduce`'s stack. */
const RANGE = 0;
/** Two elements of `as` to join on `treeReduce`'s stack. */
const PAIR = 1;

/** `x[i] += y[i]` for every `i` (self-contained: it travels to worker threads as source). */
export function addInto(x: Float64Array, y: Float64Array): void {
  for (let i = 0; i < x.length; i++) x[i] += y[i];
}
