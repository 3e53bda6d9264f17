// Loaded with everywhere() by nested-main.mjs: a tree of nested tasks, spawned from inside
// tasks on worker processes (so the function travels by reference).
import { spawn } from '@dtask/core';

/**
 * A tree of nested tasks `depth` deep with `fanout` children each. Its leaves, numbered
 * `first` on, each sleep (leaf number mod 10) * `ms` ms and give their number; the tree gives
 * their sum, `first * n + n(n - 1)/2` for its n = fanout^depth leaves.
 */
export async function tree(depth, fanout, first, ms) {
  if (depth === 0) {
    await new Promise((resolve) => setTimeout(resolve, (first % 10) * ms));
    return first;
  }
  const size = fanout ** (depth - 1);
  const kids = [];
  for (let i = 0; i < fanout; i++) kids.push(spawn(tree, depth - 1, fanout, first + i * size, ms));
  let sum = 0;
  for (const s of await Promise.all(kids)) sum += s;
  return sum;
}
